//! parking_lot's mutex and reader-writer lock, each tied to an
//! [`Instrument`]: an acquisition that does not wait is counted, one that
//! waits is timed. The guards are parking_lot's own, so condition
//! variables and guard mapping work unchanged.

use parking_lot::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

use super::{count, time, Instrument};

pub struct Mutex<T> {
    inner: parking_lot::Mutex<T>,
    instrument: Instrument,
}

impl<T> Mutex<T> {
    pub const fn new(instrument: Instrument, value: T) -> Self {
        Self { inner: parking_lot::Mutex::new(value), instrument }
    }

    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        match self.inner.try_lock() {
            Some(g) => {
                count(self.instrument);
                g
            }
            None => self.lock_waiting(),
        }
    }

    #[cold]
    fn lock_waiting(&self) -> MutexGuard<'_, T> {
        time(self.instrument, || self.inner.lock())
    }

    #[inline]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        let g = self.inner.try_lock();
        if g.is_some() {
            count(self.instrument);
        }
        g
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }

    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<T: Default> Mutex<T> {
    pub fn with_default(instrument: Instrument) -> Self {
        Self::new(instrument, T::default())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutex").field("instrument", &self.instrument.name()).field("inner", &self.inner).finish()
    }
}

pub struct RwLock<T> {
    inner: parking_lot::RwLock<T>,
    instrument: Instrument,
}

impl<T> RwLock<T> {
    pub const fn new(instrument: Instrument, value: T) -> Self {
        Self { inner: parking_lot::RwLock::new(value), instrument }
    }

    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        match self.inner.try_read() {
            Some(g) => {
                count(self.instrument);
                g
            }
            None => self.read_waiting(),
        }
    }

    #[cold]
    fn read_waiting(&self) -> RwLockReadGuard<'_, T> {
        time(self.instrument, || self.inner.read())
    }

    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        match self.inner.try_write() {
            Some(g) => {
                count(self.instrument);
                g
            }
            None => self.write_waiting(),
        }
    }

    #[cold]
    fn write_waiting(&self) -> RwLockWriteGuard<'_, T> {
        time(self.instrument, || self.inner.write())
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }

    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::wait::global;

    #[test]
    fn a_contended_lock_is_timed_and_an_uncontended_one_only_counted() {
        // Other tests may record on the same instrument meanwhile: the
        // checks are on at least what this test did.
        let i = Instrument::ThreadConcurrencyQueue;
        let m = Arc::new(Mutex::new(i, 0u32));
        let before = global()[i as usize];
        *m.lock() += 1;
        let held = m.lock();
        let m2 = m.clone();
        let t = std::thread::spawn(move || *m2.lock() += 1);
        std::thread::sleep(std::time::Duration::from_millis(20));
        drop(held);
        t.join().unwrap();
        let after = global()[i as usize];
        assert!(after.count - before.count >= 3);
        assert!(after.max_ns >= 10_000_000, "the waiting acquisition was timed: {after:?}");
        assert_eq!(*m.lock(), 2);
    }
}
