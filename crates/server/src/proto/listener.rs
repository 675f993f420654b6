//! Accepting connections: a TCP socket and/or a Unix socket, one accept
//! thread polling both, one OS thread per connection (named `connection`)
//! or, under `thread_handling=pool-of-threads`, the thread pool's
//! workers ([`super::pool`]).
//!
//! Invariants:
//! 1. Connection ids count from 1 and are never reused while the listener
//!    lives (refused connections use one up too, as in MySQL).
//! 2. `open` counts connection threads alive: incremented by the accept
//!    thread before spawning, decremented by a guard the connection thread
//!    drops on exit (even by panic). Only the accept thread increments, so
//!    "check then increment" against `max_connections` is race-free.
//! 3. Up to `max_connections + 1` connections are served: the last one
//!    only to an administrator (MySQL's connection kept for SUPER /
//!    CONNECTION_ADMIN), which the connection checks after authentication
//!    (`over_limit`; anyone else then gets 1040 in place of the OK).
//!    Beyond that a client gets ERR 1040 in place of the handshake (in the
//!    pre-4.1 form without SQLSTATE, as MySQL sends it before it knows the
//!    client's capabilities), then the socket closes. `max_connections`
//!    may change while the listener runs (`SET GLOBAL`).
//! 4. The accept thread polls with a timeout, so setting the stop flag ends
//!    it within [`POLL_INTERVAL_MS`]; accept errors (EMFILE, ECONNABORTED)
//!    are logged and retried after a short sleep, never fatal.
//! 5. Both sockets listen with the configured `back_log` (std's `bind`
//!    would take 128, and a burst of connects beyond the queue waits for
//!    TCP retransmission, a second and more). The kernel caps the queue at
//!    `net.core.somaxconn`; binding warns when it does.
//!
//! Stopping the listener does not close open connections: they end when
//! their clients quit.

use super::thread_cache::{Job, ThreadCache};
use std::io::{self, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use super::conn::{serve_connection_in, ConnEnv, ConnOptions};
use super::pool::ThreadPool;
use super::pooled::Pooled;
use super::socket::SocketControl;
use super::{response, Backend, ErrPacket};

/// How long the accept thread waits before looking at the stop flag.
pub const POLL_INTERVAL_MS: i32 = 100;

/// The listen queue when none is configured: MySQL's `back_log` for the
/// default `max_connections`.
pub const DEFAULT_BACK_LOG: u32 = 151;

/// Where Linux publishes its cap on listen queues.
const SOMAXCONN_PATH: &str = "/proc/sys/net/core/somaxconn";

/// Back-off after a failed accept.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// ER_CON_COUNT_ERROR.
pub fn too_many_connections() -> ErrPacket {
    ErrPacket::new(1040, "08004", "Too many connections")
}

/// Bound sockets, not yet accepting.
pub struct Listener {
    tcp: Option<TcpListener>,
    unix: Option<UnixListener>,
    /// The Unix socket's file, removed when the listener stops.
    unix_path: Option<PathBuf>,
}

/// How a listener serves.
#[derive(Clone, Copy, Debug)]
pub struct ListenerOptions {
    /// Connections served at once (plus one for an administrator); more
    /// get ERR 1040.
    pub max_connections: usize,
    /// Idle connection threads kept for new connections
    /// (`thread_cache_size`, [`super::thread_cache`]).
    pub thread_cache_size: usize,
    pub conn: ConnOptions,
}

impl Default for ListenerOptions {
    fn default() -> Self {
        Self { max_connections: 151, thread_cache_size: 9, conn: ConnOptions::default() }
    }
}

impl Listener {
    /// [`Listener::bind_with_backlog`] with [`DEFAULT_BACK_LOG`].
    pub fn bind(tcp_addr: Option<&str>, unix_path: Option<&Path>) -> io::Result<Self> {
        Self::bind_with_backlog(tcp_addr, unix_path, DEFAULT_BACK_LOG)
    }

    /// Binds `tcp_addr` (e.g. "127.0.0.1:3306"; port 0 picks one) and/or
    /// the Unix socket `unix_path` (a stale socket file there is removed
    /// first; one a live server answers on is left alone: AddrInUse), both
    /// listening with a queue of `back_log` (invariant 5).
    pub fn bind_with_backlog(tcp_addr: Option<&str>, unix_path: Option<&Path>, back_log: u32) -> io::Result<Self> {
        let backlog = i32::try_from(back_log.max(1)).unwrap_or(i32::MAX);
        if let Some(cap) = somaxconn().filter(|&cap| backlog > cap) {
            tracing::warn!(
                "back_log {backlog} exceeds net.core.somaxconn {cap}: the kernel queues at most {cap} connections"
            );
        }
        let tcp = match tcp_addr {
            Some(a) => Some(bind_tcp(a, backlog)?),
            None => None,
        };
        let unix = match unix_path {
            Some(p) => {
                remove_stale_socket(p)?;
                let socket = Socket::new(Domain::UNIX, Type::STREAM, None)?;
                socket.bind(&SockAddr::unix(p)?)?;
                socket.listen(backlog)?;
                Some(UnixListener::from(std::os::fd::OwnedFd::from(socket)))
            }
            None => None,
        };
        Ok(Self { tcp, unix, unix_path: unix_path.map(Path::to_path_buf) })
    }

    /// Wraps sockets bound elsewhere.
    pub fn from_sockets(tcp: Option<TcpListener>, unix: Option<UnixListener>) -> Self {
        let unix_path =
            unix.as_ref().and_then(|u| u.local_addr().ok()).and_then(|a| a.as_pathname().map(Path::to_path_buf));
        Self { tcp, unix, unix_path }
    }

    /// The TCP address bound (with the real port when 0 was asked for).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.tcp.as_ref().and_then(|l| l.local_addr().ok())
    }

    pub fn unix_path(&self) -> Option<&Path> {
        self.unix_path.as_deref()
    }

    /// Starts the accept thread, each connection on its own thread.
    pub fn spawn<B: Backend>(self, backend: Arc<B>, options: ListenerOptions) -> io::Result<ListenerHandle> {
        self.spawn_with_pool(backend, options, None)
    }

    /// Starts the accept thread; connections are served by `pool` if
    /// given (`thread_handling=pool-of-threads`), else each by its own
    /// thread. Stopping the listener stops the pool.
    pub fn spawn_with_pool<B: Backend>(
        self,
        backend: Arc<B>,
        options: ListenerOptions,
        pool: Option<Arc<ThreadPool>>,
    ) -> io::Result<ListenerHandle> {
        let shared = Shared::new(Arc::new(AtomicBool::new(false)), &options, pool);
        let local_addr = self.local_addr();
        let unix_path = self.unix_path.clone();
        let thread = self.start(backend, options, Arc::clone(&shared))?;
        Ok(ListenerHandle { shared, thread: Some(thread), local_addr, unix_path })
    }

    fn start<B: Backend>(
        self,
        backend: Arc<B>,
        options: ListenerOptions,
        shared: Arc<Shared>,
    ) -> io::Result<JoinHandle<()>> {
        if let Some(l) = &self.tcp {
            l.set_nonblocking(true)?;
        }
        if let Some(l) = &self.unix {
            l.set_nonblocking(true)?;
        }
        std::thread::Builder::new().name("accept".into()).spawn(move || accept_loop(self, backend, options, &shared))
    }
}

/// Serves `tcp` and/or `unix` until `stop` is raised: one accept thread
/// (returned; it ends within [`POLL_INTERVAL_MS`] of `stop`), one thread per
/// connection, ERR 1040 beyond `max_connections`.
pub fn spawn<B: Backend>(
    backend: Arc<B>,
    tcp: Option<TcpListener>,
    unix: Option<UnixListener>,
    max_connections: usize,
    stop: Arc<AtomicBool>,
) -> io::Result<Vec<JoinHandle<()>>> {
    let options = ListenerOptions { max_connections, ..ListenerOptions::default() };
    let shared = Shared::new(stop, &options, None);
    let thread = Listener::from_sockets(tcp, unix).start(backend, options, shared)?;
    Ok(vec![thread])
}

/// Binds the first of `addr`'s addresses that takes it, as std's
/// `TcpListener::bind` does (SO_REUSEADDR, so a restart need not wait for
/// TIME_WAIT), but listens with `backlog`.
fn bind_tcp(addr: &str, backlog: i32) -> io::Result<TcpListener> {
    let mut last = io::Error::new(ErrorKind::InvalidInput, format!("{addr} names no address"));
    for a in addr.to_socket_addrs()? {
        let bound = Socket::new(Domain::for_address(a), Type::STREAM, Some(Protocol::TCP)).and_then(|socket| {
            socket.set_reuse_address(true)?;
            socket.bind(&a.into())?;
            socket.listen(backlog)?;
            Ok(socket)
        });
        match bound {
            Ok(socket) => return Ok(TcpListener::from(socket)),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The kernel's cap on a listen queue, where the system publishes it.
fn somaxconn() -> Option<i32> {
    std::fs::read_to_string(SOMAXCONN_PATH).ok()?.trim().parse().ok()
}

/// Removes a socket file nobody answers on.
fn remove_stale_socket(p: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_socket() => {
            if UnixStream::connect(p).is_ok() {
                return Err(io::Error::new(ErrorKind::AddrInUse, format!("a server is listening on {}", p.display())));
            }
            std::fs::remove_file(p)
        }
        _ => Ok(()),
    }
}

/// State shared by the accept thread, connection threads (or the pool's
/// connections) and the handle.
struct Shared {
    stop: Arc<AtomicBool>,
    /// Connection threads alive (invariant 2).
    open: AtomicUsize,
    /// The next connection id (invariant 1).
    next_id: AtomicU32,
    /// `max_connections` now (invariant 3).
    max_connections: Arc<AtomicUsize>,
    /// Idle connection threads (`thread_cache_size`).
    threads: Arc<ThreadCache>,
    /// The thread pool, under `thread_handling=pool-of-threads`.
    pool: Option<Arc<ThreadPool>>,
}

impl Shared {
    fn new(stop: Arc<AtomicBool>, options: &ListenerOptions, pool: Option<Arc<ThreadPool>>) -> Arc<Self> {
        Arc::new(Self {
            pool,
            stop,
            open: AtomicUsize::new(0),
            next_id: AtomicU32::new(1),
            max_connections: Arc::new(AtomicUsize::new(options.max_connections)),
            threads: Arc::new(ThreadCache::new(options.thread_cache_size)),
        })
    }

    /// More connections are open than `max_connections`.
    fn over_limit(&self) -> bool {
        self.open.load(Ordering::Acquire) > self.max_connections.load(Ordering::Acquire)
    }
}

/// A running listener.
pub struct ListenerHandle {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    local_addr: Option<SocketAddr>,
    unix_path: Option<PathBuf>,
}

/// Stops a listener from anywhere (a signal handler thread, say).
#[derive(Clone)]
pub struct Stopper(Arc<Shared>);

impl Stopper {
    pub fn stop(&self) {
        self.0.stop.store(true, Ordering::Release);
    }
}

impl ListenerHandle {
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local_addr
    }

    /// Connections being served now.
    pub fn open_connections(&self) -> usize {
        self.shared.open.load(Ordering::Acquire)
    }

    /// `max_connections`, which may be changed while the listener runs
    /// (the server stores `SET GLOBAL max_connections` here).
    pub fn max_connections(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.shared.max_connections)
    }

    /// The thread cache (`thread_cache_size`, `Threads_created`,
    /// `Threads_cached`).
    pub fn thread_cache(&self) -> Arc<ThreadCache> {
        Arc::clone(&self.shared.threads)
    }

    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.shared))
    }

    /// Waits until a [`Stopper`] stops the listener.
    pub fn join(mut self) {
        self.join_thread();
    }

    /// Stops accepting and waits for the accept thread; removes the Unix
    /// socket file.
    pub fn stop(mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.join_thread();
    }

    fn join_thread(&mut self) {
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                tracing::error!("accept thread panicked");
            }
        }
        if let Some(p) = self.unix_path.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Drop for ListenerHandle {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.join_thread();
    }
}

/// Decrements the open count when a connection thread ends (invariant 2).
struct OpenGuard(Arc<Shared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

fn accept_loop<B: Backend>(listener: Listener, backend: Arc<B>, options: ListenerOptions, shared: &Arc<Shared>) {
    let mut fds = Vec::new();
    if let Some(l) = &listener.tcp {
        fds.push(libc::pollfd { fd: l.as_raw_fd(), events: libc::POLLIN, revents: 0 });
    }
    if let Some(l) = &listener.unix {
        fds.push(libc::pollfd { fd: l.as_raw_fd(), events: libc::POLLIN, revents: 0 });
    }
    while !shared.stop.load(Ordering::Acquire) {
        for f in &mut fds {
            f.revents = 0;
        }
        // SAFETY: `fds` is a valid, exclusively borrowed array of pollfd of
        // the given length for the duration of the call; the descriptors
        // belong to listeners that outlive it.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_INTERVAL_MS) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != ErrorKind::Interrupted {
                tracing::warn!("poll on listening sockets failed: {e}");
                std::thread::sleep(ACCEPT_RETRY);
            }
            continue;
        }
        if rc == 0 {
            continue;
        }
        if let Some(l) = &listener.tcp {
            loop {
                match l.accept() {
                    Ok((stream, addr)) => {
                        let host = addr.ip().to_string();
                        let control = match prepare_tcp(&stream) {
                            Ok(c) => c,
                            Err(e) => {
                                tracing::debug!("dropping connection from {host}: {e}");
                                continue;
                            }
                        };
                        let peer = addr.to_string();
                        start_connection(stream, host, peer, control, &backend, &options, shared);
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::warn!("accept on TCP failed: {e}");
                        std::thread::sleep(ACCEPT_RETRY);
                        break;
                    }
                }
            }
        }
        if let Some(l) = &listener.unix {
            loop {
                match l.accept() {
                    Ok((stream, _)) => {
                        let control = stream.set_nonblocking(false).and_then(|()| stream.try_clone());
                        let control: Arc<dyn SocketControl> = match control {
                            Ok(c) => Arc::new(c),
                            Err(e) => {
                                tracing::debug!("dropping Unix socket connection: {e}");
                                continue;
                            }
                        };
                        let host = "localhost".to_string();
                        start_connection(stream, host.clone(), host, control, &backend, &options, shared);
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::warn!("accept on Unix socket failed: {e}");
                        std::thread::sleep(ACCEPT_RETRY);
                        break;
                    }
                }
            }
        }
    }
    shared.threads.stop();
    if let Some(pool) = &shared.pool {
        pool.stop();
    }
}

/// Blocking mode, no Nagle; returns a clone of the socket to control it.
fn prepare_tcp(stream: &TcpStream) -> io::Result<Arc<dyn SocketControl>> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    Ok(Arc::new(stream.try_clone()?))
}

/// `host`: the client's address for access checks and messages; `peer`:
/// `ip:port` for SHOW PROCESSLIST.
fn start_connection<B: Backend, S: Read + Write + AsRawFd + Send + 'static>(
    mut stream: S,
    host: String,
    peer: String,
    control: Arc<dyn SocketControl>,
    backend: &Arc<B>,
    options: &ListenerOptions,
    shared: &Arc<Shared>,
) {
    let id = shared.next_id.fetch_add(1, Ordering::AcqRel);
    // One more than max_connections, for an administrator (invariant 3).
    let limit = shared.max_connections.load(Ordering::Acquire).saturating_add(1);
    if shared.open.load(Ordering::Acquire) >= limit {
        let mut payload = Vec::new();
        response::err_without_sqlstate(&mut payload, &too_many_connections());
        let len = (payload.len() as u32).to_le_bytes();
        let mut packet = vec![len[0], len[1], len[2], 0];
        packet.extend_from_slice(&payload);
        // A fresh socket's send buffer takes this small packet at once.
        let _ = stream.write_all(&packet);
        return;
    }
    shared.open.fetch_add(1, Ordering::AcqRel);
    let guard = OpenGuard(Arc::clone(shared));
    let backend = Arc::clone(backend);
    let conn_options = options.conn;
    let fd = stream.as_raw_fd();
    if let Some(pool) = &shared.pool {
        let over = Arc::clone(shared);
        let over_limit = Arc::new(move || over.over_limit());
        let client =
            Pooled::new(backend, stream, id, host, peer, conn_options, control, fd, over_limit, Box::new(guard));
        pool.add(id, Box::new(client));
        return;
    }
    let shared = Arc::clone(shared);
    let cache = Arc::clone(&shared.threads);
    let job: Job = Box::new(move || {
        let _guard = guard;
        let over_limit = || shared.over_limit();
        let env = ConnEnv { peer: &peer, socket: Some(control), over_limit: &over_limit, socket_fd: Some(fd) };
        match serve_connection_in(&*backend, stream, id, &host, &conn_options, &env) {
            Ok(()) => tracing::debug!("connection {id} from {host} closed"),
            Err(e) => tracing::debug!("connection {id} from {host} ended: {e}"),
        }
    });
    // An idle cached thread takes it; else a new thread, which joins the
    // cache when its connection ends.
    let Err(job) = cache.hand_off(job) else { return };
    let thread_cache = Arc::clone(&cache);
    let spawned = std::thread::Builder::new().name("connection".into()).spawn(move || {
        job();
        while let Some(next) = thread_cache.wait_for_job() {
            next();
        }
    });
    match spawned {
        Ok(_) => cache.started(),
        // The closure (and its guard) was dropped: the count is already back.
        Err(e) => tracing::warn!("could not start a thread for connection {id}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's `sk_max_ack_backlog` of a listening TCP socket: Linux
    /// reports it in `tcp_info.tcpi_sacked` for sockets in LISTEN.
    fn kernel_backlog(l: &TcpListener) -> u32 {
        // SAFETY: `info` is a plain C struct, zero is a valid value, and
        // `len` holds its size; the descriptor is open for the call.
        unsafe {
            let mut info: libc::tcp_info = std::mem::zeroed();
            let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
            let rc = libc::getsockopt(
                l.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                (&mut info as *mut libc::tcp_info).cast(),
                &mut len,
            );
            assert_eq!(rc, 0, "TCP_INFO: {}", io::Error::last_os_error());
            info.tcpi_sacked
        }
    }

    #[test]
    fn tcp_socket_listens_with_the_configured_back_log_up_to_somaxconn() {
        let cap = somaxconn().unwrap_or(i32::MAX) as u32;
        for asked in [1, 300, 2000] {
            let l = Listener::bind_with_backlog(Some("127.0.0.1:0"), None, asked).unwrap();
            assert_eq!(kernel_backlog(l.tcp.as_ref().unwrap()), asked.min(cap), "back_log {asked}");
        }
        let l = Listener::bind(Some("127.0.0.1:0"), None).unwrap();
        assert_eq!(kernel_backlog(l.tcp.as_ref().unwrap()), DEFAULT_BACK_LOG.min(cap));
    }

    #[test]
    fn unix_socket_queues_back_log_connections_before_any_accept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.sock");
        let l = Listener::bind_with_backlog(None, Some(&path), 200).unwrap();
        // Nobody accepts: a connect completes while the queue has room
        // (Linux queues back_log + 1), then fails at once on a
        // non-blocking socket.
        let mut queued = Vec::new();
        loop {
            let s = Socket::new(Domain::UNIX, Type::STREAM, None).unwrap();
            s.set_nonblocking(true).unwrap();
            if s.connect(&SockAddr::unix(&path).unwrap()).is_err() {
                break;
            }
            queued.push(s);
            assert!(queued.len() < 1000, "the queue never filled");
        }
        assert_eq!(queued.len(), 201);
        drop(l);
    }
}
