//! Write I/O threads (`innodb_write_io_threads`): the in-place page writes
//! of a flush batch run on several threads at once, so a batch of 64 pages
//! keeps several writes in flight instead of one (InnoDB hands its batches
//! to asynchronous I/O served by these threads).
//!
//! A batch is sorted by page id and cut into runs of consecutive pages of
//! one space; each run is one write (`write_pages`). With at least
//! `MIN_RUNS_TO_SHARE` runs, the batch's own thread writes its first run
//! and hands the others to the pool, then waits for them all (fewer are
//! all written by the batch's thread): the batch returns only when every page is written (its caller
//! then syncs, or frees the doublewrite segment). With no pool (0 threads,
//! tests) the caller writes every run itself.

use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};
use quire_io::AlignedBuf;

use super::files::{SpaceFile, SpaceFiles};
use crate::{Error, PageId, PageNo, Result};

/// Fewer runs than this are all written by the batch's own thread.
pub const MIN_RUNS_TO_SHARE: usize = 8;

/// One run: consecutive pages of one file, as one buffer.
struct Run {
    file: Arc<SpaceFile>,
    first: PageNo,
    image: AlignedBuf,
}

impl Run {
    fn write(&self) -> Result<()> {
        self.file.write_pages(self.first, &self.image)
    }
}

/// The runs of one batch still being written, and the first failure.
struct Batch {
    left: Mutex<(usize, Option<Error>)>,
    done: Condvar,
}

impl Batch {
    fn finish(&self, r: Result<()>) {
        let mut left = self.left.lock();
        left.0 -= 1;
        if let Err(e) = r {
            left.1.get_or_insert(e);
        }
        if left.0 == 0 {
            self.done.notify_all();
        }
    }
}

/// Runs waiting for a thread, and whether the threads must stop.
#[derive(Default)]
struct Jobs {
    runs: VecDeque<(Run, Arc<Batch>)>,
    stop: bool,
}

struct Queue {
    jobs: Mutex<Jobs>,
    ready: Condvar,
}

/// The pool of write I/O threads.
pub struct WriteIo {
    queue: Arc<Queue>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl WriteIo {
    /// Starts `threads` write threads.
    pub fn start(threads: usize) -> Result<WriteIo> {
        let queue = Arc::new(Queue { jobs: Mutex::new(Jobs::default()), ready: Condvar::new() });
        let mut handles = Vec::new();
        for n in 0..threads {
            let q = queue.clone();
            let h = std::thread::Builder::new()
                .name(format!("quire-write-io-{n}"))
                .spawn(move || serve(&q))
                .map_err(|e| Error::io("start of a write I/O thread", e))?;
            handles.push(h);
        }
        Ok(WriteIo { queue, threads: Mutex::new(handles) })
    }

    /// Stops the threads (after the writes queued so far).
    pub fn stop(&self) {
        self.queue.jobs.lock().stop = true;
        self.queue.ready.notify_all();
        for h in self.threads.lock().drain(..) {
            let _ = h.join();
        }
    }

    fn threads(&self) -> usize {
        self.threads.lock().len()
    }
}

impl Drop for WriteIo {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(q: &Queue) {
    loop {
        let (run, batch) = {
            let mut jobs = q.jobs.lock();
            loop {
                if let Some(j) = jobs.runs.pop_front() {
                    break j;
                }
                if jobs.stop {
                    return;
                }
                q.ready.wait(&mut jobs);
            }
        };
        batch.finish(run.write());
    }
}

/// Writes page images in place: sorted into runs of consecutive pages, one
/// write per run, spread over the pool's threads when there is one. A
/// page is copied only where it must be: into a run of several pages (one
/// buffer), or into a run another thread writes; a single page this thread
/// writes goes out from the caller's buffer.
pub fn write_pages(files: &SpaceFiles, pool: Option<&WriteIo>, pages: &[(PageId, &[u8])]) -> Result<()> {
    let mut order: Vec<&(PageId, &[u8])> = pages.iter().collect();
    order.sort_unstable_by_key(|(id, _)| *id);
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let first = order[i].0;
        let mut j = i + 1;
        while j < order.len() && order[j].0.space == first.space && order[j].0.page_no == first.page_no + (j - i) as u32
        {
            j += 1;
        }
        spans.push(i..j);
        i = j;
    }
    let write_here = |span: &std::ops::Range<usize>| -> Result<()> {
        let (id, bytes) = order[span.start];
        match span.len() {
            1 => files.get(id.space)?.write_page(id.page_no, bytes),
            _ => run_of(files, &order[span.clone()])?.write(),
        }
    };
    // A small batch is written by its own thread: waking threads for a
    // few writes costs more than it saves.
    let Some(pool) = pool.filter(|p| spans.len() >= MIN_RUNS_TO_SHARE && p.threads() > 0) else {
        return spans.iter().try_for_each(write_here);
    };
    let runs = spans[1..].iter().map(|span| run_of(files, &order[span.clone()])).collect::<Result<Vec<_>>>()?;
    let batch = Arc::new(Batch { left: Mutex::new((runs.len(), None)), done: Condvar::new() });
    let handed = runs.len();
    {
        let mut jobs = pool.queue.jobs.lock();
        jobs.runs.extend(runs.into_iter().map(|r| (r, batch.clone())));
    }
    // Wake only as many threads as there are runs for them.
    for _ in 0..handed.min(pool.threads()) {
        pool.queue.ready.notify_one();
    }
    let own = write_here(&spans[0]);
    let mut left = batch.left.lock();
    while left.0 > 0 {
        batch.done.wait(&mut left);
    }
    own?;
    match left.1.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Consecutive pages copied into one buffer, as a run to write.
fn run_of(files: &SpaceFiles, pages: &[&(PageId, &[u8])]) -> Result<Run> {
    let ps = files.page_size();
    let mut image = AlignedBuf::zeroed(pages.len() * ps);
    for (k, (_, bytes)) in pages.iter().enumerate() {
        image[k * ps..(k + 1) * ps].copy_from_slice(bytes);
    }
    Ok(Run { file: files.get(pages[0].0.space)?, first: pages[0].0.page_no, image })
}
