//! The write I/O threads (`innodb_write_io_threads`): a batch's pages,
//! scattered over spaces and runs, land in place whoever writes them; runs
//! of consecutive pages are one write each; a failed write fails the batch.

use std::path::Path;
use std::sync::Arc;

use quire_engine::space::files::SpaceFiles;
use quire_engine::PageId;
use quire_io::{FaultKind, FaultVfs, OpKind, Vfs};

const PS: usize = 4096;

fn image(id: PageId) -> Vec<u8> {
    let mut b = vec![0u8; PS];
    for (i, x) in b.iter_mut().enumerate() {
        *x = (id.space as usize * 31 + id.page_no as usize * 7 + i) as u8;
    }
    b
}

fn setup(threads: Option<usize>) -> (Arc<FaultVfs>, SpaceFiles) {
    let vfs = FaultVfs::new();
    let files = SpaceFiles::new(Arc::new(vfs.clone()) as Arc<dyn Vfs>, PS, false);
    for s in 1..=3 {
        let f = files.open(s, Path::new(&format!("/d/s{s}.qbd")), true).unwrap();
        f.extend_to(256).unwrap();
    }
    if let Some(n) = threads {
        files.start_write_io(n).unwrap();
    }
    (vfs, files)
}

/// Pages 10-29 of space 1 (one run), every third page of space 2, and a
/// few of space 3, handed over in a shuffled order.
fn batch() -> Vec<PageId> {
    let mut ids: Vec<PageId> = (10..30).map(|p| PageId::new(1, p)).collect();
    ids.extend((0..60).step_by(3).map(|p| PageId::new(2, p + 100)));
    ids.extend([PageId::new(3, 7), PageId::new(3, 8), PageId::new(3, 200)]);
    let n = ids.len();
    (0..n).map(|i| ids[i * 17 % n]).collect()
}

#[test]
fn pages_written_by_the_write_threads_land_in_place() {
    for threads in [None, Some(1), Some(4)] {
        let (vfs, files) = setup(threads);
        let ids = batch();
        let images: Vec<Vec<u8>> = ids.iter().map(|&id| image(id)).collect();
        let pages: Vec<(PageId, &[u8])> = ids.iter().zip(&images).map(|(&id, b)| (id, &b[..])).collect();
        let before = vfs.write_count();
        files.write_pages(&pages).unwrap();
        // Space 1's 20 pages are one write, space 3's 7-8 another: 43 pages,
        // 1 + 20 + 2 runs.
        assert_eq!(vfs.write_count() - before, 23, "one write per run ({threads:?} threads)");
        let mut buf = vec![0u8; PS];
        for &id in &ids {
            files.get(id.space).unwrap().read_page(id.page_no, &mut buf).unwrap();
            assert_eq!(buf, image(id), "page {id:?} ({threads:?} threads)");
        }
        // Pages outside the batch were not touched.
        files.get(1).unwrap().read_page(30, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0));
        files.stop_write_io();
    }
}

#[test]
fn a_failed_write_on_a_write_thread_fails_the_batch() {
    let (vfs, files) = setup(Some(4));
    let ids = batch();
    let images: Vec<Vec<u8>> = ids.iter().map(|&id| image(id)).collect();
    let pages: Vec<(PageId, &[u8])> = ids.iter().zip(&images).map(|(&id, b)| (id, &b[..])).collect();
    // The 5th write fails: one of the runs the pool took, not the first.
    vfs.fail_nth(OpKind::Write, 5, FaultKind::Io, false);
    assert!(files.write_pages(&pages).is_err());
    vfs.clear_faults();
    // The pool still serves the next batch.
    files.write_pages(&pages).unwrap();
    let mut buf = vec![0u8; PS];
    for &id in &ids {
        files.get(id.space).unwrap().read_page(id.page_no, &mut buf).unwrap();
        assert_eq!(buf, image(id));
    }
}
