//! The memory pool of a DataFusion session: the budget for the operators that can spill,
//! with the repartitions' queues left out of it.
//!
//! DataFusion 55.2's `RepartitionExec` writes a queued batch to a spill file when its
//! reservation cannot grow, and under a [`FairSpillPool`] its per-partition share is small
//! (the pool divides among every registered spillable consumer). When two input tasks of
//! one repartition spill at once, its reader waits on the older file for a batch that is in
//! the newer one, and every worker parks for good (apache/datafusion#24883, fixed after
//! 55.2). A chain `t(X) %*% (X %*% v)` over a 2e7-non-zero file stalled that way at
//! `--memory 300M` and ran in 4.7 s at 400M.
//!
//! So [`BudgetPool`] grants repartition queues without limit and counts them in
//! [`MemoryPool::reserved`], but not against the share of the consumers that spill by
//! themselves (hash aggregates, sorts, joins' build sides). A queue is bounded anyway:
//! the repartition stops reading its input while every output partition has a batch
//! waiting.

use std::sync::atomic::{AtomicUsize, Ordering};

use datafusion::common::Result;
use datafusion::execution::memory_pool::{
    FairSpillPool, MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
};

/// The name DataFusion gives a repartition's reservations (`RepartitionExec[p]`).
const REPARTITION: &str = "RepartitionExec[";

/// A [`FairSpillPool`] of the budget, with repartition queues granted outside it.
#[derive(Debug)]
pub struct BudgetPool {
    spilling: FairSpillPool,
    queued: AtomicUsize,
}

impl BudgetPool {
    pub fn new(bytes: usize) -> Self {
        BudgetPool {
            spilling: FairSpillPool::new(bytes),
            queued: AtomicUsize::new(0),
        }
    }
}

impl std::fmt::Display for BudgetPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BudgetPool({}, repartition queues {} bytes)",
            self.spilling,
            self.queued.load(Ordering::Relaxed)
        )
    }
}

fn is_queue(consumer: &MemoryConsumer) -> bool {
    consumer.name().starts_with(REPARTITION)
}

impl MemoryPool for BudgetPool {
    fn name(&self) -> &str {
        "BudgetPool"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        if !is_queue(consumer) {
            self.spilling.register(consumer);
        }
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        if !is_queue(consumer) {
            self.spilling.unregister(consumer);
        }
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        if is_queue(reservation.consumer()) {
            self.queued.fetch_add(additional, Ordering::Relaxed);
        } else {
            self.spilling.grow(reservation, additional);
        }
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        if is_queue(reservation.consumer()) {
            self.queued.fetch_sub(shrink, Ordering::Relaxed);
        } else {
            self.spilling.shrink(reservation, shrink);
        }
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        if is_queue(reservation.consumer()) {
            self.queued.fetch_add(additional, Ordering::Relaxed);
            Ok(())
        } else {
            self.spilling.try_grow(reservation, additional)
        }
    }

    fn reserved(&self) -> usize {
        self.spilling.reserved() + self.queued.load(Ordering::Relaxed)
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.spilling.memory_limit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn queues_grow_past_the_budget_and_spillers_do_not() {
        let pool: Arc<dyn MemoryPool> = Arc::new(BudgetPool::new(1000));
        let queue = MemoryConsumer::new("RepartitionExec[0]")
            .with_can_spill(true)
            .register(&pool);
        let sort = MemoryConsumer::new("ExternalSorter[0]")
            .with_can_spill(true)
            .register(&pool);
        queue.try_grow(5000).unwrap();
        assert_eq!(pool.reserved(), 5000);
        // The sort's share is the whole budget: the queue is not a spillable consumer.
        sort.try_grow(1000).unwrap();
        assert!(sort.try_grow(1).is_err());
        assert_eq!(pool.reserved(), 6000);
        queue.shrink(5000);
        sort.free();
        assert_eq!(pool.reserved(), 0);
    }
}
