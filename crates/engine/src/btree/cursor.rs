//! Range scans, forward and backward.
//!
//! A cursor holds no latch between calls. It copies the qualifying entries
//! of one leaf into its own buffer (optimistically, validated; or under the
//! shared latch when a value lives in overflow pages), and remembers the
//! leaf's fence — the key range the leaf covers, learnt from the separators
//! on the way down. When the buffer runs out it descends again from the
//! fence: forward to the first key >= the upper fence, backward to the
//! greatest key < the lower fence. Leaves therefore need no sibling
//! pointers, and concurrent splits and merges cannot make a cursor skip or
//! repeat a key: keys in one leaf are copied atomically, and each refill
//! starts strictly after the last leaf's range.
//!
//! On a salvaging tree (`innodb_force_recovery`), a damaged page met on the
//! way is skipped: the fences narrowed down to it bound the keys it held,
//! so the scan logs the loss and continues past that range.

use std::ops::Bound;

use super::{node, overflow, BTree, Fences, Seek};
use crate::buffer::Restart;
use crate::sync::PageView;
use crate::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

pub struct Cursor {
    tree: BTree,
    st: State,
}

/// Everything but the tree, so that a descent (borrowing the tree) and a
/// leaf copy (mutating the state) can overlap.
struct State {
    dir: Direction,
    /// Where the next refill starts (moves in `dir`).
    from: Bound<Vec<u8>>,
    /// Where the scan stops.
    to: Bound<Vec<u8>>,
    /// Copied entries: (key start, key len, value start, value len) in `buf`.
    entries: Vec<(usize, usize, usize, usize)>,
    buf: Vec<u8>,
    next: usize,
    /// No leaf is left to read.
    done: bool,
}

fn owned(b: Bound<&[u8]>) -> Bound<Vec<u8>> {
    match b {
        Bound::Included(k) => Bound::Included(k.to_vec()),
        Bound::Excluded(k) => Bound::Excluded(k.to_vec()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Cursor {
    pub(crate) fn new(tree: BTree, lower: Bound<&[u8]>, upper: Bound<&[u8]>, dir: Direction) -> Self {
        let (from, to) = match dir {
            Direction::Forward => (owned(lower), owned(upper)),
            Direction::Backward => (owned(upper), owned(lower)),
        };
        Self { tree, st: State { dir, from, to, entries: Vec::new(), buf: Vec::new(), next: 0, done: false } }
    }

    /// The next entry, or `None` at the end of the range.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        while self.st.next >= self.st.entries.len() {
            if self.st.done {
                return Ok(None);
            }
            self.st.refill(&self.tree)?;
        }
        let st = &mut self.st;
        let (ko, kl, vo, vl) = st.entries[st.next];
        st.next += 1;
        Ok(Some((&st.buf[ko..ko + kl], &st.buf[vo..vo + vl])))
    }

    /// Collects the remaining entries (tests, small scans).
    pub fn collect_all(&mut self) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::new();
        while let Some((k, v)) = self.next()? {
            out.push((k.to_vec(), v.to_vec()));
        }
        Ok(out)
    }
}

impl State {
    /// Whether `key` is beyond the stopping bound.
    fn past_end(&self, key: &[u8]) -> bool {
        match (&self.to, self.dir) {
            (Bound::Unbounded, _) => false,
            (Bound::Included(e), Direction::Forward) => key > e.as_slice(),
            (Bound::Excluded(e), Direction::Forward) => key >= e.as_slice(),
            (Bound::Included(e), Direction::Backward) => key < e.as_slice(),
            (Bound::Excluded(e), Direction::Backward) => key <= e.as_slice(),
        }
    }

    fn refill(&mut self, tree: &BTree) -> Result<()> {
        self.entries.clear();
        self.buf.clear();
        self.next = 0;
        loop {
            let mut fences = Fences::default();
            let step = match self.refill_once(tree, false, &mut fences) {
                Err(e) if tree.salvage && e.is_corruption() => {
                    self.skip_damaged(&fences, &e);
                    return Ok(());
                }
                other => other?,
            };
            match step {
                Ok(()) => return Ok(()),
                Err(Restart) => {
                    // What the failed copy saw (including "past the end")
                    // is not to be trusted.
                    self.entries.clear();
                    self.buf.clear();
                    self.done = false;
                }
            }
        }
    }

    /// Salvage: gives up the range `fences` (that of the damaged page the
    /// last attempt reached) and moves past it.
    fn skip_damaged(&mut self, fences: &Fences, e: &Error) {
        let show = |k: &Option<Vec<u8>>| k.as_ref().map_or("-inf/+inf".to_string(), |k| format!("{k:02x?}"));
        tracing::error!(
            "innodb_force_recovery: a scan skips keys [{}, {}): {e}",
            show(&fences.lower),
            show(&fences.upper)
        );
        self.entries.clear();
        self.buf.clear();
        self.next = 0;
        let next = match self.dir {
            Direction::Forward => fences.upper.clone().map(Bound::Included),
            Direction::Backward => fences.lower.clone().map(Bound::Excluded),
        };
        match next {
            Some(b) => self.from = b,
            None => self.done = true,
        }
    }

    /// One attempt at copying the next leaf. With `shared`, the leaf is read
    /// under its shared latch (needed to follow overflow chains). `fences`
    /// is left holding the range of the node where the attempt ended.
    fn refill_once(
        &mut self,
        tree: &BTree,
        shared: bool,
        fences: &mut Fences,
    ) -> Result<std::result::Result<(), Restart>> {
        let (seek_key, seek): (Vec<u8>, Seek) = match (&self.from, self.dir) {
            (Bound::Included(k) | Bound::Excluded(k), Direction::Forward) => (k.clone(), Seek::At),
            (Bound::Unbounded, Direction::Forward) => (Vec::new(), Seek::At),
            (Bound::Included(k), Direction::Backward) => (k.clone(), Seek::At),
            (Bound::Excluded(k), Direction::Backward) => (k.clone(), Seek::Before),
            (Bound::Unbounded, Direction::Backward) => (Vec::new(), Seek::Last),
        };
        *fences = Fences::default();
        let path = match tree.descend(&seek_key, 0, seek, Some(fences))? {
            Ok(p) => p,
            Err(r) => return Ok(Err(r)),
        };
        let leaf = path.node;
        if shared {
            let Ok(s) = leaf.upgrade_shared() else { return Ok(Err(Restart)) };
            self.copy_leaf(s.data(), &seek_key, true).map_err(|e| Error::corruption(s.id(), e.0))?;
            // Resolve overflow stubs while the leaf is latched; values were
            // copied with a one-byte tag (1 = stub).
            let mut resolved = Vec::with_capacity(self.buf.len());
            let mut entries = Vec::with_capacity(self.entries.len());
            for &(ko, kl, vo, vl) in &self.entries {
                let nk = resolved.len();
                resolved.extend_from_slice(&self.buf[ko..ko + kl]);
                let nv = resolved.len();
                let tagged = &self.buf[vo..vo + vl];
                if tagged[0] == 1 {
                    overflow::read_chain(&tree.pool, tree.space(), &tagged[1..], &mut resolved)?;
                } else {
                    resolved.extend_from_slice(&tagged[1..]);
                }
                entries.push((nk, kl, nv, resolved.len() - nv));
            }
            self.buf = resolved;
            self.entries = entries;
        } else {
            let v = leaf.view();
            let external = match self.copy_leaf(v, &seek_key, false) {
                Ok(x) => x,
                Err(e) => return Ok(Err(BTree::inconsistent(&leaf, e)?)),
            };
            if leaf.validate().is_err() {
                return Ok(Err(Restart));
            }
            if external {
                self.entries.clear();
                self.buf.clear();
                self.done = false;
                return self.refill_once(tree, true, fences);
            }
        }
        // Where the next leaf starts, unless this one reached the end bound.
        if !self.done {
            match self.dir {
                Direction::Forward => match fences.upper.take() {
                    Some(u) => self.from = Bound::Included(u),
                    None => self.done = true,
                },
                Direction::Backward => match fences.lower.take() {
                    Some(l) => self.from = Bound::Excluded(l),
                    None => self.done = true,
                },
            }
        }
        Ok(Ok(()))
    }

    /// Copies the qualifying entries of a leaf. With `tagged`, each value is
    /// stored behind a one-byte tag (1 = overflow stub, 0 = inline); without,
    /// meeting an overflow stub stops the copy and returns `true` so the
    /// caller retries under the shared latch.
    fn copy_leaf<V: PageView>(&mut self, v: V, seek_key: &[u8], tagged: bool) -> node::NResult<bool> {
        let n = node::count(v);
        let (first, step): (isize, isize) = match (&self.from, self.dir) {
            (Bound::Unbounded, Direction::Forward) => (0, 1),
            (Bound::Included(_), Direction::Forward) => (node::lower_bound(v, seek_key)?.0 as isize, 1),
            (Bound::Excluded(_), Direction::Forward) => {
                let (p, f) = node::lower_bound(v, seek_key)?;
                (p as isize + f as isize, 1)
            }
            (Bound::Unbounded, Direction::Backward) => (n as isize - 1, -1),
            (Bound::Included(_), Direction::Backward) => {
                let (p, f) = node::lower_bound(v, seek_key)?;
                (if f { p as isize } else { p as isize - 1 }, -1)
            }
            (Bound::Excluded(_), Direction::Backward) => (node::lower_bound(v, seek_key)?.0 as isize - 1, -1),
        };
        let mut i = first;
        let mut key = Vec::new();
        if self.buf.capacity() == 0 {
            // A leaf's entries fit in about a (default 16 KiB) page: one
            // allocation, not a dozen doublings.
            self.buf.reserve(16 * 1024);
            self.entries.reserve(n);
        }
        while i >= 0 && (i as usize) < n {
            node::copy_key(v, i as usize, &mut key)?;
            if self.past_end(&key) {
                self.done = true;
                break;
            }
            let ko = self.buf.len();
            self.buf.extend_from_slice(&key);
            let vo = self.buf.len();
            if tagged {
                self.buf.push(0);
            }
            if node::append_value(v, i as usize, &mut self.buf)? {
                if !tagged {
                    return Ok(true);
                }
                self.buf[vo] = 1;
            }
            self.entries.push((ko, key.len(), vo, self.buf.len() - vo));
            i += step;
        }
        Ok(false)
    }
}
