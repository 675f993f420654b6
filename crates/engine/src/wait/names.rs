//! The catalogue of wait instruments: every latch, mutex, condition and
//! file a thread can wait on, under the name performance_schema shows.
//!
//! Names follow MySQL 8.0's where MySQL instruments the same object
//! (`wait/synch/mutex/innodb/flush_list_mutex`, `wait/io/file/innodb/
//! innodb_data_file`, `wait/synch/cond/sql/Item_func_sleep::cond`, ...);
//! objects only quire has (its hybrid page latches, its admission queue)
//! take names of the same form.

/// A wait instrument: an index into [`ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Instrument {
    // Mutexes (counted on every acquisition, timed when it had to wait).
    BufPoolLruList,
    FlushList,
    Dblwr,
    LogWriter,
    LockSys,
    LockWaitGraph,
    TrxSys,
    PurgeSys,
    TrxUndo,
    DictSys,
    RowIdCounter,
    ThreadConcurrency,
    ThreadPoolGroup,
    // Reader-writer locks.
    DictTables,
    TableState,
    FilSpaces,
    PageLatchShared,
    PageLatchExclusive,
    PageLatchOptimistic,
    // Conditions: waits for another thread to do something.
    RowLock,
    LogFlush,
    LogWrite,
    FreeFrame,
    PurgeLag,
    DblwrSlot,
    ThreadConcurrencyQueue,
    GroupCommit,
    MetadataLock,
    UserLock,
    Sleep,
    // I/O.
    DataFile,
    LogFile,
    DblwrFile,
    BinlogFile,
    ClientSocket,
}

/// What kind of object an instrument watches (performance_schema's class,
/// the second part of the name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Mutex,
    RwLock,
    SxLock,
    Cond,
    Lock,
    File,
    Socket,
}

/// One row of the catalogue.
#[derive(Debug)]
pub struct Info {
    pub instrument: Instrument,
    pub name: &'static str,
    pub class: Class,
    /// What the instrument measures (setup_instruments.DOCUMENTATION).
    pub doc: &'static str,
}

const fn i(instrument: Instrument, name: &'static str, class: Class, doc: &'static str) -> Info {
    Info { instrument, name, class, doc }
}

use Class::*;
use Instrument as I;

/// Every instrument, in `Instrument` order.
pub const ALL: [Info; 35] = [
    i(
        I::BufPoolLruList,
        "wait/synch/mutex/innodb/buf_pool_LRU_list_mutex",
        Mutex,
        "A buffer pool instance's LRU and free lists.",
    ),
    i(
        I::FlushList,
        "wait/synch/mutex/innodb/flush_list_mutex",
        Mutex,
        "A buffer pool instance's flush list (dirty pages by oldest change).",
    ),
    i(I::Dblwr, "wait/synch/mutex/innodb/dblwr_mutex", Mutex, "The doublewrite buffer's free segments."),
    i(
        I::LogWriter,
        "wait/synch/mutex/innodb/log_writer_mutex",
        Mutex,
        "The redo log's writer and flusher events, where a waiting commit and the thread that wakes it meet.",
    ),
    i(I::LockSys, "wait/synch/mutex/innodb/lock_mutex", Mutex, "A shard of the row lock table."),
    i(
        I::LockWaitGraph,
        "wait/synch/mutex/innodb/lock_wait_mutex",
        Mutex,
        "The waits-for graph of row lock waits (deadlock detection).",
    ),
    i(
        I::TrxSys,
        "wait/synch/mutex/innodb/trx_sys_mutex",
        Mutex,
        "The transaction system: active transactions and read views.",
    ),
    i(
        I::PurgeSys,
        "wait/synch/mutex/innodb/purge_sys_pq_mutex",
        Mutex,
        "The history list of committed undo logs waiting for purge.",
    ),
    i(
        I::TrxUndo,
        "wait/synch/mutex/innodb/trx_undo_mutex",
        Mutex,
        "The cache of reusable undo logs of a rollback segment.",
    ),
    i(I::DictSys, "wait/synch/mutex/innodb/dict_sys_mutex", Mutex, "Serialises DDL on the engine's table dictionary."),
    i(
        I::RowIdCounter,
        "wait/synch/mutex/innodb/row_id_mutex",
        Mutex,
        "The hidden row id counter of tables without a primary key.",
    ),
    i(
        I::ThreadConcurrency,
        "wait/synch/mutex/innodb/srv_conc_mutex",
        Mutex,
        "innodb_thread_concurrency's seats and queue.",
    ),
    i(
        I::ThreadPoolGroup,
        "wait/synch/mutex/threadpool/group_mutex",
        Mutex,
        "A thread pool group's queue, idle workers and parked connections (thread_handling=pool-of-threads).",
    ),
    i(I::DictTables, "wait/synch/rwlock/innodb/dict_table_map_rw_lock", RwLock, "The engine's map of open tables."),
    i(
        I::TableState,
        "wait/synch/rwlock/innodb/dict_table_stats_rw_lock",
        RwLock,
        "A table's index roots and statistics.",
    ),
    i(I::FilSpaces, "wait/synch/rwlock/innodb/fil_space_latch", RwLock, "The map of open tablespace files."),
    i(
        I::PageLatchShared,
        "wait/synch/sxlock/innodb/page_latch_shared",
        SxLock,
        "A shared page latch, waiting for a writer.",
    ),
    i(
        I::PageLatchExclusive,
        "wait/synch/sxlock/innodb/page_latch_exclusive",
        SxLock,
        "An exclusive page latch, waiting for readers or a writer.",
    ),
    i(
        I::PageLatchOptimistic,
        "wait/synch/sxlock/innodb/page_latch_optimistic",
        SxLock,
        "An optimistic page read blocked behind a writer.",
    ),
    i(I::RowLock, "wait/lock/innodb/row_lock", Lock, "A row lock wait (innodb_lock_wait_timeout bounds it)."),
    i(
        I::LogFlush,
        "wait/synch/cond/innodb/log_flush_up_to",
        Cond,
        "A commit waiting for the redo log to be synced to its LSN.",
    ),
    i(
        I::LogWrite,
        "wait/synch/cond/innodb/log_write_up_to",
        Cond,
        "A commit waiting for the redo log to be written to its LSN.",
    ),
    i(
        I::FreeFrame,
        "wait/synch/cond/innodb/buf_pool_free_frame",
        Cond,
        "A page read waiting for the LRU flushers to free a frame.",
    ),
    i(I::PurgeLag, "wait/synch/cond/innodb/purge_lag", Cond, "A DML statement delayed by innodb_max_purge_lag."),
    i(
        I::DblwrSlot,
        "wait/synch/cond/innodb/dblwr_segment",
        Cond,
        "A page write waiting for a free doublewrite segment.",
    ),
    i(
        I::ThreadConcurrencyQueue,
        "wait/synch/cond/innodb/srv_conc_queue",
        Cond,
        "A thread queued for a seat (innodb_thread_concurrency).",
    ),
    i(
        I::GroupCommit,
        "wait/synch/cond/sql/MYSQL_BIN_LOG::COND_done",
        Cond,
        "A commit waiting for its binary log group to be written and synced.",
    ),
    i(
        I::MetadataLock,
        "wait/lock/metadata/sql/mdl",
        Lock,
        "A table lock wait (LOCK TABLES, FLUSH TABLES WITH READ LOCK).",
    ),
    i(I::UserLock, "wait/synch/cond/sql/Item_func_get_lock::cond", Cond, "GET_LOCK() waiting for a user lock."),
    i(I::Sleep, "wait/synch/cond/sql/Item_func_sleep::cond", Cond, "SLEEP()."),
    i(I::DataFile, "wait/io/file/innodb/innodb_data_file", File, "Tablespace reads, writes and syncs."),
    i(I::LogFile, "wait/io/file/innodb/innodb_log_file", File, "Redo log writes and syncs."),
    i(I::DblwrFile, "wait/io/file/innodb/innodb_dblwr_file", File, "Doublewrite file writes and syncs."),
    i(I::BinlogFile, "wait/io/file/sql/binlog", File, "Binary log writes and syncs."),
    i(
        I::ClientSocket,
        "wait/io/socket/sql/client_connection",
        Socket,
        "Sending results to a client that does not read them fast enough.",
    ),
];

/// How many instruments there are.
pub const COUNT: usize = ALL.len();

/// The file instruments, whose operations are also summed by kind
/// (`file_summary_by_event_name`): their index among files.
pub fn file_index(i: Instrument) -> Option<usize> {
    match i {
        I::DataFile => Some(0),
        I::LogFile => Some(1),
        I::DblwrFile => Some(2),
        I::BinlogFile => Some(3),
        _ => None,
    }
}

/// How many file instruments there are.
pub const FILES: usize = 4;

impl Instrument {
    pub fn info(self) -> &'static Info {
        &ALL[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_in_enum_order_with_unique_names() {
        for (n, info) in ALL.iter().enumerate() {
            assert_eq!(info.instrument as usize, n, "{}", info.name);
        }
        let mut names: Vec<_> = ALL.iter().map(|i| i.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COUNT);
        let files = ALL.iter().filter(|i| file_index(i.instrument).is_some()).count();
        assert_eq!(files, FILES);
        assert!(ALL.iter().all(|i| (i.class == Class::File) == file_index(i.instrument).is_some()));
    }
}
