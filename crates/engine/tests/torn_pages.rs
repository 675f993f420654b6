//! Torn page writes: a crash in the middle of a page write leaves the page
//! half new, half old. With `innodb_doublewrite=ON` recovery restores it
//! from the doublewrite buffer; with DETECT_ONLY it is detected and
//! reported; with OFF its checksum catches it when read. It is never
//! served.

use std::path::Path;
use std::sync::Arc;

use quire_engine::dblwr::{Doublewrite, DoublewriteConfig, DoublewriteMode, FlushType};
use quire_engine::page::{self, PageType};
use quire_engine::space::files::SpaceFiles;
use quire_engine::{Error, PageId};
use quire_io::{CrashPolicy, FaultKind, FaultVfs, OpKind, TearBoundary, Vfs};

const PS: usize = 4096;

fn page(id: PageId, lsn: u64, fill: u8) -> Vec<u8> {
    let mut p = vec![fill; PS];
    page::init_header(&mut p, id, PageType::Overflow);
    page::set_page_lsn(&mut p, lsn);
    page::seal(&mut p);
    p
}

fn setup(mode: DoublewriteMode) -> (Arc<FaultVfs>, Arc<SpaceFiles>, Doublewrite) {
    let fault = FaultVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let files = Arc::new(SpaceFiles::new(vfs.clone(), PS, false));
    files.open(5, Path::new("/d/t.qbd"), true).unwrap();
    // Version 1 of pages 3 and 5 on disk, synced.
    for p in [3, 5] {
        files.get(5).unwrap().write_page(p, &page(PageId::new(5, p), 100, 1)).unwrap();
    }
    files.get(5).unwrap().sync().unwrap();
    let cfg = DoublewriteConfig { mode, ..DoublewriteConfig::default() };
    let d = Doublewrite::open(&vfs, Path::new("/d"), &cfg, PS, 2).unwrap();
    (fault, files, d)
}

/// Writes version 2 of pages 3 and 5 (not adjacent: two writes, each torn)
/// through the doublewrite buffer, with
/// the tablespace sync failing (the crash comes before it), then crashes
/// tearing every unsynced write after its first 512 bytes.
fn torn_batch(fault: &Arc<FaultVfs>, files: &SpaceFiles, d: &Doublewrite) {
    let v2: Vec<(PageId, Vec<u8>)> =
        [3, 5].iter().map(|&p| (PageId::new(5, p), page(PageId::new(5, p), 200, 2))).collect();
    let batch: Vec<(PageId, &[u8])> = v2.iter().map(|(id, b)| (*id, &b[..])).collect();
    if d.mode() == DoublewriteMode::Off {
        // No doublewrite: pages go in place, synced only at the next checkpoint.
        d.write_batch(1, FlushType::FlushList, &batch, files).unwrap();
    } else {
        // The doublewrite sync succeeds; the crash comes before the
        // tablespace sync.
        fault.fail_nth(OpKind::Sync, 2, FaultKind::Io, true);
        assert!(d.write_batch(1, FlushType::FlushList, &batch, files).is_err());
    }
    fault.crash(CrashPolicy::TearAll { boundary: TearBoundary::Sector512 });
}

fn reopen(fault: &Arc<FaultVfs>) -> Arc<SpaceFiles> {
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let files = Arc::new(SpaceFiles::new(vfs, PS, false));
    files.open(5, Path::new("/d/t.qbd"), false).unwrap();
    files
}

fn read(files: &SpaceFiles, p: u32) -> Result<Vec<u8>, Error> {
    let mut b = vec![0u8; PS];
    files.get(5)?.read_page(p, &mut b)?;
    page::verify(&b, PageId::new(5, p))?;
    Ok(b)
}

#[test]
fn torn_page_repaired_from_doublewrite() {
    let (fault, files, d) = setup(DoublewriteMode::On);
    torn_batch(&fault, &files, &d);
    let files = reopen(&fault);
    assert!(read(&files, 3).unwrap_err().is_corruption(), "the crash tore the page");
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let d = Doublewrite::open(&vfs, Path::new("/d"), &DoublewriteConfig::default(), PS, 2).unwrap();
    let report = d.repair(&files, 150).unwrap();
    assert_eq!(report.repaired, vec![PageId::new(5, 3), PageId::new(5, 5)]);
    for p in [3, 5] {
        let b = read(&files, p).unwrap();
        assert_eq!(page::page_lsn(&b), 200);
        assert!(b[100..].iter().all(|&x| x == 2), "the new version, whole");
    }
}

#[test]
fn copies_older_than_the_checkpoint_are_not_used() {
    let (fault, files, d) = setup(DoublewriteMode::On);
    torn_batch(&fault, &files, &d);
    let files = reopen(&fault);
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let d = Doublewrite::open(&vfs, Path::new("/d"), &DoublewriteConfig::default(), PS, 2).unwrap();
    // A checkpoint past the copies' LSN: they predate the recovery range.
    let report = d.repair(&files, 250).unwrap();
    assert!(report.repaired.is_empty());
    assert!(read(&files, 3).unwrap_err().is_corruption());
}

#[test]
fn torn_page_detected_but_not_repaired_with_detect_only() {
    let (fault, files, d) = setup(DoublewriteMode::DetectOnly);
    torn_batch(&fault, &files, &d);
    let files = reopen(&fault);
    let vfs: Arc<dyn Vfs> = Arc::new(fault.clone());
    let cfg = DoublewriteConfig { mode: DoublewriteMode::DetectOnly, ..DoublewriteConfig::default() };
    let d = Doublewrite::open(&vfs, Path::new("/d"), &cfg, PS, 2).unwrap();
    let report = d.repair(&files, 150).unwrap();
    assert!(report.repaired.is_empty());
    assert_eq!(report.detected, vec![PageId::new(5, 3), PageId::new(5, 5)]);
    assert!(read(&files, 3).unwrap_err().is_corruption(), "never served");
}

#[test]
fn torn_page_is_caught_by_its_checksum_with_doublewrite_off() {
    let (fault, files, d) = setup(DoublewriteMode::Off);
    torn_batch(&fault, &files, &d);
    let files = reopen(&fault);
    let err = read(&files, 3).unwrap_err();
    assert!(err.is_corruption() && err.to_string().contains("checksum"), "{err}");
}
