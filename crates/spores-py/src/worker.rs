//! Running work with the GIL released: on a worker thread in the kernels' thread pool,
//! while the calling thread watches for Ctrl-C.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

/// The kernels' thread pool once `set_threads` was called; rayon's global pool before.
static POOL: Mutex<Option<Arc<rayon::ThreadPool>>> = Mutex::new(None);

/// How often the calling thread looks for a pending Ctrl-C while the work runs.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

pub fn set_threads(n: usize) -> Result<(), String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| format!("cannot set up {n} threads: {e}"))?;
    *POOL.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(pool));
    Ok(())
}

pub fn threads() -> usize {
    match &*POOL.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(pool) => pool.current_num_threads(),
        None => rayon::current_num_threads(),
    }
}

/// Runs `work` without the GIL on a worker thread. When Python reports a signal (Ctrl-C
/// raises KeyboardInterrupt), `cancel` is set, the work is awaited (it stops before its
/// next block) and the signal's exception is returned.
pub fn run_interruptible<T, F>(py: Python<'_>, cancel: Arc<AtomicBool>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let pool = POOL.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let (result, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            scope.spawn(move || {
                let value = match &pool {
                    Some(pool) => pool.install(work),
                    None => work(),
                };
                let _ = tx.send(value);
            });
            let mut signal = None;
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Ok(value) => return (Some(value), signal),
                    Err(mpsc::RecvTimeoutError::Disconnected) => return (None, signal),
                    Err(mpsc::RecvTimeoutError::Timeout) if signal.is_none() => {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            cancel.store(true, Ordering::Relaxed);
                            signal = Some(e);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
            }
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    result.ok_or_else(|| {
        crate::errors::SporesError::new_err("the computation panicked (please report this)")
    })
}
