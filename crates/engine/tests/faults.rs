//! Injected I/O failures surface as errors, never panics, and lose nothing
//! that was already done: a failing device (EIO) on reads and writes. A
//! full disk (ENOSPC) has its own tests in `disk_full.rs`.

use std::path::Path;
use std::sync::Arc;

use quire_engine::row::Value;
use quire_engine::{Engine, Error};
use quire_io::{FaultKind, FaultVfs, OpKind};

mod common;

use common::{payload_row as row, payload_schema as schema};

fn open(fault: &Arc<FaultVfs>) -> Arc<Engine> {
    common::open_on_faults(fault, 256)
}

fn is_os_error(e: &Error, code: i32) -> bool {
    matches!(e, Error::Io { source, .. } if source.raw_os_error() == Some(code))
}

#[test]
fn read_errors_are_reported_and_the_next_read_succeeds() {
    let fault = FaultVfs::new();
    common::payload_table_on_faults(&fault, 256, 3000);
    let e = open(&fault);
    let t = e.table("t").unwrap();
    fault.fail_nth(OpKind::Read, 1, FaultKind::Io, false);
    let mut errors = 0;
    for i in (0..3000).step_by(7) {
        match t.get(&[Value::Int(i)]) {
            Ok(r) => assert_eq!(r.unwrap(), row(i)),
            Err(err) => {
                assert!(is_os_error(&err, libc::EIO), "{err}");
                errors += 1;
            }
        }
    }
    assert_eq!(errors, 1, "exactly the one failed read is reported");
    for i in 0..3000 {
        assert_eq!(t.get(&[Value::Int(i)]).unwrap().unwrap(), row(i));
    }
}

#[test]
fn a_failing_write_at_shutdown_is_reported_and_a_retry_completes_it() {
    let fault = FaultVfs::new();
    let e = open(&fault);
    let t = e.create_table("t", schema()).unwrap();
    for i in 0..100 {
        t.insert(row(i)).unwrap();
    }
    // Purge writes to the log too: let it finish, so that the failing
    // write is a page write.
    while e.txn().history_len() > 0 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    e.log().flush_up_to(e.log().current_lsn()).unwrap();
    fault.fail_nth(OpKind::Write, 1, FaultKind::Io, false);
    let err = e.pool().flush_all().unwrap_err();
    assert!(is_os_error(&err, libc::EIO), "{err}");
    assert!(e.pool().dirty_pages() > 0, "pages whose write failed stay dirty");
    e.shutdown().unwrap();
    let e = open(&fault);
    assert_eq!(e.table("t").unwrap().get(&[Value::Int(99)]).unwrap().unwrap(), row(99));
}

#[test]
fn a_corrupt_leaf_fails_only_the_reads_that_need_it() {
    let fault = FaultVfs::new();
    common::payload_table_on_faults(&fault, 256, 2000);
    // Page 40 of the table's space is some leaf in the middle of the tree.
    fault.corrupt_byte(Path::new("/data/t.qbd"), 40 * 4096 + 1234).unwrap();
    let e = open(&fault);
    let t = e.table("t").unwrap();
    let (mut ok, mut corrupt) = (0, 0);
    for i in 0..2000 {
        match t.get(&[Value::Int(i)]) {
            Ok(Some(r)) => {
                assert_eq!(r, row(i), "wrong data served");
                ok += 1
            }
            Ok(None) => panic!("row {i} silently missing"),
            Err(err) => {
                assert!(err.is_corruption() && err.to_string().contains("page 40"), "{err}");
                corrupt += 1
            }
        }
    }
    assert!(corrupt > 0 && ok > 1500, "ok {ok}, corrupt {corrupt}");
}
