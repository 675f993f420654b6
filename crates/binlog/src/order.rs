//! Commit order: the engine commits logged transactions in the order the
//! log holds them (MySQL's ordered commit, `binlog_order_commits`), so
//! that the binary log position the engine records with each commit
//! (`quire-engine`'s rollback segment pages) always names a prefix of the
//! log: every transaction before it is committed in the engine, none
//! after it is.
//!
//! Each transaction appended to the log gets a turn number under the
//! log's mutex (append order = file order). After its group is written
//! (and synced), a committer waits for its turn, runs its engine commit
//! (the in-memory part and the mini-transaction that records the
//! position; not the redo flush, which each committer then waits for
//! outside the order, so redo group commit still carries many), and
//! passes the turn to the next. A committer whose log write failed still
//! takes and passes its turn.
//!
//! Invariants:
//! 1. `next` only grows, by one per pass, and only the holder of turn
//!    `next` passes it (a [`Turn`] passes on drop, so a panic in the
//!    engine commit does not stop every later commit).
//! 2. A waiter parks only after registering itself; `pass` unparks the
//!    registered holder of the next turn, if it is already waiting.

use std::thread::Thread;

use parking_lot::Mutex;

#[derive(Default)]
pub(crate) struct Order {
    state: Mutex<OrderState>,
}

#[derive(Default)]
struct OrderState {
    /// The turn that may run now (turns start at 1).
    next: u64,
    /// Committers waiting for a later turn.
    waiting: Vec<(u64, Thread)>,
}

/// The holder of a turn: dropping it passes the turn on.
pub(crate) struct Turn<'a> {
    order: &'a Order,
    turn: u64,
}

impl Order {
    pub(crate) fn new() -> Order {
        Order { state: Mutex::new(OrderState { next: 1, waiting: Vec::new() }) }
    }

    /// Waits until `turn` may run.
    pub(crate) fn wait(&self, turn: u64) -> Turn<'_> {
        let mut registered = false;
        loop {
            {
                let mut st = self.state.lock();
                if st.next == turn {
                    if registered {
                        st.waiting.retain(|w| w.0 != turn);
                    }
                    return Turn { order: self, turn };
                }
                if !registered {
                    st.waiting.push((turn, std::thread::current()));
                    registered = true;
                }
            }
            std::thread::park();
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut st = self.order.state.lock();
        debug_assert_eq!(st.next, self.turn, "a turn passed out of order");
        st.next = self.turn + 1;
        let next = st.next;
        if let Some(w) = st.waiting.iter().find(|w| w.0 == next) {
            w.1.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Order;
    use std::sync::{Arc, Mutex};

    #[test]
    fn turns_run_in_number_order_whatever_order_threads_arrive_in() {
        let order = Arc::new(Order::new());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let mut threads = Vec::new();
        for t in (1..=40u64).rev() {
            let (order, ran) = (order.clone(), ran.clone());
            threads.push(std::thread::spawn(move || {
                let _turn = order.wait(t);
                ran.lock().unwrap().push(t);
            }));
        }
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*ran.lock().unwrap(), (1..=40).collect::<Vec<_>>());
    }
}
