//! The little of epoll(7) a pool group needs: one-shot read interest per
//! connection (a connection is handed to one worker at a time and re-armed
//! when its worker is done with it) and an eventfd to wake the group's
//! listener when the pool stops.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The token the stop eventfd is registered with (connection tokens are
/// slot and generation, never all ones).
pub const WAKE_TOKEN: u64 = u64::MAX;

/// An epoll instance with its wake-up eventfd.
pub struct Epoll {
    fd: OwnedFd,
    wake: OwnedFd,
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

impl Epoll {
    pub fn new() -> io::Result<Self> {
        // SAFETY: plain system calls; the descriptors returned are owned
        // from here on.
        let (fd, wake) = unsafe {
            let fd = OwnedFd::from_raw_fd(check(libc::epoll_create1(libc::EPOLL_CLOEXEC))?);
            let wake = OwnedFd::from_raw_fd(check(libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK))?);
            (fd, wake)
        };
        let ep = Epoll { fd, wake };
        ep.ctl(libc::EPOLL_CTL_ADD, ep.wake.as_raw_fd(), libc::EPOLLIN as u32, WAKE_TOKEN)?;
        Ok(ep)
    }

    fn ctl(&self, op: libc::c_int, fd: RawFd, events: u32, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: token };
        // SAFETY: `ev` is a valid epoll_event for the call's duration.
        check(unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), op, fd, &mut ev) }).map(|_| ())
    }

    /// Arms `fd` for one readiness report (readable, hung up or failed)
    /// under `token`: `first` adds it, otherwise it is re-armed.
    pub fn arm(&self, fd: RawFd, token: u64, first: bool) -> io::Result<()> {
        let events = (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLONESHOT) as u32;
        let op = if first { libc::EPOLL_CTL_ADD } else { libc::EPOLL_CTL_MOD };
        self.ctl(op, fd, events, token)
    }

    /// Forgets `fd` (before it is closed: the socket's other descriptors
    /// would keep it registered).
    pub fn remove(&self, fd: RawFd) {
        let _ = self.ctl(libc::EPOLL_CTL_DEL, fd, 0, 0);
    }

    /// Waits up to `timeout_ms` (-1: forever) and appends the ready
    /// tokens to `out` (the wake token included when [`Epoll::wake`] was
    /// called and not yet drained).
    pub fn wait(&self, out: &mut Vec<u64>, timeout_ms: i32) -> io::Result<()> {
        const MAX: usize = 64;
        let mut evs = [libc::epoll_event { events: 0, u64: 0 }; MAX];
        // SAFETY: `evs` has room for MAX events.
        let rc = unsafe { libc::epoll_wait(self.fd.as_raw_fd(), evs.as_mut_ptr(), MAX as libc::c_int, timeout_ms) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted { Ok(()) } else { Err(e) };
        }
        out.extend(evs[..rc as usize].iter().map(|e| e.u64));
        Ok(())
    }

    /// Resets the wake-up (after it was reported).
    pub fn drain(&self) {
        let mut n: u64 = 0;
        // SAFETY: reads at most 8 bytes into a live u64 from our
        // non-blocking eventfd.
        unsafe { libc::read(self.wake.as_raw_fd(), (&mut n as *mut u64).cast(), 8) };
    }

    /// Wakes whoever waits (or the next to wait) once, until drained.
    pub fn wake(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd.
        unsafe { libc::write(self.wake.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }
}
