//! Where computations run, with the GIL released, and where compiled scripts are kept
//! between calls.
//!
//! Scripts run on the engine thread: one long-lived thread that is worker 0 of the
//! kernels' thread pool (so `set_threads` applies to everything it runs) and owns a cache
//! of interpreters, one per script text and options. An interpreter caches each block's
//! DAG, its optimized plan per input signature and its physical plans, so calling the
//! same lazy expression again on inputs of the same shapes and sparsity skips parsing,
//! lowering and equality saturation. The calling thread waits without the GIL and turns
//! Ctrl-C into a cancellation, which stops a script before its next block.
//!
//! Lazy expressions (one block each, so nothing to cancel between blocks) from the thread
//! that computes the first one run on that thread itself ([`submit_inline`]), which is
//! worker 0 of a pool of its own: a call then wakes no other thread unless a kernel
//! splits its work, where handing the call to a sleeping engine thread and waking the
//! caller again cost more than a small expression's whole run.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;
use spores_dml::runtime::{Interpreter, RunOptions};
use spores_dml::{ScriptError, Value};
use spores_lang::ast::Program;

/// How often a waiting caller looks for a pending Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// How long each side of a hand-off polls before it sleeps: waking a sleeping thread
/// costs tens of microseconds on an idle machine, more than a small expression's whole run,
/// and calls in a loop arrive within this window.
const HANDOFF_SPIN: Duration = Duration::from_micros(100);

/// The next message, polled for up to [`HANDOFF_SPIN`] before blocking (at most `timeout`
/// when given); an error once the sender is gone or the timeout passed.
fn receive<T>(
    rx: &mpsc::Receiver<T>,
    timeout: Option<Duration>,
) -> Result<T, mpsc::RecvTimeoutError> {
    let started = std::time::Instant::now();
    while started.elapsed() < HANDOFF_SPIN {
        match rx.try_recv() {
            Ok(value) => return Ok(value),
            Err(mpsc::TryRecvError::Disconnected) => {
                return Err(mpsc::RecvTimeoutError::Disconnected)
            }
            Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
        }
    }
    match timeout {
        Some(timeout) => rx.recv_timeout(timeout),
        None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
    }
}

/// Compiled scripts kept at most; past this the cache starts over.
const MAX_CACHED_SCRIPTS: usize = 64;

/// What a caller hands the engine thread.
type Job = Box<dyn FnOnce(&mut EngineState) + Send>;

struct Engine {
    jobs: mpsc::Sender<(u64, Job)>,
    threads: usize,
}

static ENGINE: Mutex<Option<Engine>> = Mutex::new(None);
static NEXT_JOB: AtomicU64 = AtomicU64::new(1);
/// The job the engine thread is running (0: none).
static RUNNING: AtomicU64 = AtomicU64::new(0);

/// Starts an engine thread whose pool has `threads` threads (the engine thread is one of
/// them) and replaces the current one, which finishes its queued jobs and exits.
pub fn set_threads(threads: usize) -> Result<(), String> {
    let engine = start(threads)?;
    *ENGINE.lock().unwrap_or_else(|p| p.into_inner()) = Some(engine);
    Ok(())
}

pub fn threads() -> usize {
    let mut guard = ENGINE.lock().unwrap_or_else(|p| p.into_inner());
    match &*guard {
        Some(e) => e.threads,
        None => {
            let n = default_threads();
            if let Ok(e) = start(n) {
                *guard = Some(e);
            }
            n
        }
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn start(threads: usize) -> Result<Engine, String> {
    let (tx, rx) = mpsc::channel::<(u64, Job)>();
    let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
    std::thread::Builder::new()
        .name("spores-engine".into())
        // Scripts recurse as deep as `spores run` lets them (10,000 nested calls).
        .stack_size(spores_dml::STACK_BYTES)
        .spawn(move || {
            // The engine thread is worker 0 of its pool: kernels it calls run in this pool.
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .use_current_thread()
                .thread_name(|i| format!("spores-worker-{i}"))
                .build();
            let pool = match pool {
                Ok(p) => p,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("cannot set up {threads} threads: {e}")));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            let mut state = EngineState::default();
            while let Ok((id, job)) = receive(&rx, None) {
                RUNNING.store(id, Ordering::SeqCst);
                state.cancel.store(false, Ordering::SeqCst);
                // A panicking job reports through its dropped channel; the engine lives on.
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(&mut state)));
                RUNNING.store(0, Ordering::SeqCst);
            }
            drop(state);
            drop(pool);
        })
        .map_err(|e| format!("cannot start the engine thread: {e}"))?;
    ready_rx
        .recv()
        .map_err(|_| "the engine thread did not start".to_string())??;
    Ok(Engine { jobs: tx, threads })
}

/// Runs `work` on the engine thread and waits for it without the GIL. When Python reports
/// a signal (Ctrl-C raises KeyboardInterrupt) the running script is cancelled (it stops
/// before its next block), awaited, and the signal's exception returned.
pub fn submit<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut EngineState) -> T + Send + 'static,
{
    threads(); // starts the engine on first use
    let (tx, rx) = mpsc::channel();
    let id = NEXT_JOB.fetch_add(1, Ordering::SeqCst);
    let job: Job = Box::new(move |state| {
        let _ = tx.send(work(state));
    });
    let cancel = {
        let guard = ENGINE.lock().unwrap_or_else(|p| p.into_inner());
        let engine = guard.as_ref().ok_or_else(|| {
            crate::errors::SporesError::new_err("the engine thread is not running")
        })?;
        engine
            .jobs
            .send((id, job))
            .map_err(|_| crate::errors::SporesError::new_err("the engine thread stopped"))?;
        CANCEL.clone()
    };
    let (result, signal) = py.detach(move || {
        let mut signal = None;
        loop {
            match receive(&rx, Some(SIGNAL_POLL)) {
                Ok(value) => return (Some(value), signal),
                Err(mpsc::RecvTimeoutError::Disconnected) => return (None, signal),
                Err(mpsc::RecvTimeoutError::Timeout) if signal.is_none() => {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        signal = Some(e);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if signal.is_some() && RUNNING.load(Ordering::SeqCst) == id {
                cancel.store(true, Ordering::SeqCst);
            }
        }
    });
    if let Some(e) = signal {
        return Err(e);
    }
    result.ok_or_else(|| {
        crate::errors::SporesError::new_err("the computation panicked (please report this)")
    })
}

/// The pool and interpreters of the thread that runs lazy expressions itself.
struct InlineEngine {
    /// This thread is its worker 0 (a thread joins one such pool in its lifetime); kept
    /// for its other workers.
    _pool: rayon::ThreadPool,
    threads: usize,
    state: EngineState,
}

/// The thread allowed to run lazy expressions itself: the first to compute one. Other
/// threads hand theirs to the engine thread (one extra pool, not one per thread).
static INLINE_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

thread_local! {
    static INLINE: RefCell<Option<InlineEngine>> = const { RefCell::new(None) };
}

/// Runs `work` (a single-block lazy expression) on the calling thread without the GIL,
/// when this is the inline thread and its pool has the configured number of threads;
/// otherwise as [`submit`]. A Ctrl-C during the run raises its exception afterwards, as
/// [`submit`] does for a block it cannot stop.
pub fn submit_inline<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&mut EngineState) -> T + Send + 'static,
{
    let threads = threads();
    let me = std::thread::current().id();
    if *INLINE_THREAD.get_or_init(|| me) != me || !inline_ready(threads) {
        return submit(py, work);
    }
    let result = py.detach(move || {
        INLINE.with(|cell| {
            let mut guard = cell.borrow_mut();
            let engine = guard.as_mut().expect("made ready above");
            engine.state.cancel.store(false, Ordering::SeqCst);
            // This thread is worker 0 of the engine's pool: the kernels' parallel loops run
            // there without an `install`.
            std::panic::catch_unwind(AssertUnwindSafe(|| work(&mut engine.state))).ok()
        })
    });
    py.check_signals()?;
    result.ok_or_else(|| {
        crate::errors::SporesError::new_err("the computation panicked (please report this)")
    })
}

/// Whether this thread's inline pool exists (built on first use) with `threads` threads.
/// A thread joins one pool in its lifetime, so after `set_threads` changes the count its
/// expressions go to the engine thread.
fn inline_ready(threads: usize) -> bool {
    INLINE.with(|cell| {
        let mut engine = cell.borrow_mut();
        if engine.is_none() {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .use_current_thread()
                .thread_name(|i| format!("spores-inline-worker-{i}"))
                .build();
            let Ok(pool) = pool else {
                return false;
            };
            *engine = Some(InlineEngine {
                _pool: pool,
                threads,
                state: EngineState::with_cancel(Arc::new(AtomicBool::new(false))),
            });
        }
        engine.as_ref().is_some_and(|e| e.threads == threads)
    })
}

/// The flag every interpreter of the engine checks between blocks.
static CANCEL: std::sync::LazyLock<Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// What identifies a compiled script: its text and everything in [`RunOptions`] that
/// lowering or optimization reads.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ScriptKey {
    pub source: String,
    pub args: Vec<(String, String)>,
    pub optimize: bool,
    /// Search every block fully instead of within the budget `spores run` uses: a lazy
    /// expression is built to be optimized, and usually runs once.
    pub full_search: bool,
    pub script_dir: Option<PathBuf>,
    pub builtins: Option<PathBuf>,
}

/// What the engine thread keeps between jobs.
pub struct EngineState {
    cancel: Arc<AtomicBool>,
    scripts: HashMap<ScriptKey, CachedScript>,
}

impl Default for EngineState {
    fn default() -> Self {
        EngineState::with_cancel(CANCEL.clone())
    }
}

impl EngineState {
    fn with_cancel(cancel: Arc<AtomicBool>) -> Self {
        EngineState {
            cancel,
            scripts: HashMap::new(),
        }
    }
}

/// The printed output of a script, shared between its interpreter and the engine.
#[derive(Clone, Default)]
struct SharedOut(Rc<RefCell<Vec<u8>>>);

impl Write for SharedOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An interpreter kept with the program and output it borrows.
struct CachedScript {
    // Dropped first (see `Drop`): it borrows `program` and `writer`.
    interp: ManuallyDrop<Interpreter<'static>>,
    program: *mut Program,
    writer: *mut SharedOut,
    printed: SharedOut,
}

impl CachedScript {
    fn new(program: Program, options: RunOptions) -> Self {
        let program = Box::into_raw(Box::new(program));
        let printed = SharedOut::default();
        let writer = Box::into_raw(Box::new(printed.clone()));
        // SAFETY: both boxes are freed only in `Drop`, after the interpreter.
        let interp = unsafe { Interpreter::new(&*program, options, &mut *writer) };
        CachedScript {
            interp: ManuallyDrop::new(interp),
            program,
            writer,
            printed,
        }
    }

    fn run(
        &mut self,
        inputs: HashMap<String, Value>,
    ) -> (Result<HashMap<String, Value>, ScriptError>, String) {
        self.printed.0.borrow_mut().clear();
        // SAFETY: the program lives as long as `self` (see `Drop`).
        let program = unsafe { &*self.program };
        let result = self
            .interp
            .run_with(program, inputs)
            .map_err(ScriptError::Runtime);
        let printed = String::from_utf8_lossy(&self.printed.0.borrow()).into_owned();
        (result, printed)
    }
}

impl Drop for CachedScript {
    fn drop(&mut self) {
        // SAFETY: the interpreter goes first; nothing else points into the boxes.
        unsafe {
            ManuallyDrop::drop(&mut self.interp);
            drop(Box::from_raw(self.program));
            drop(Box::from_raw(self.writer));
        }
    }
}

/// The run options for a script (the optimizer `spores run` uses unless `optimize` is off).
/// `explain`: `None` for no explanation, `Some(dot)` for text or Graphviz.
fn run_options(key: &ScriptKey, explain: Option<bool>, cancel: Arc<AtomicBool>) -> RunOptions {
    let optimizer: Box<dyn spores_dml::opt::DagOptimizer> = if key.optimize {
        let mut spores = spores_dml::opt::SporesOptimizer::new(Default::default());
        if key.full_search {
            spores.min_cost(0.0).full_search();
        }
        Box::new(spores)
    } else {
        Box::new(spores_dml::opt::NoOptimizer)
    };
    RunOptions {
        args: key.args.iter().cloned().collect(),
        explain: explain.is_some(),
        explain_dot: explain == Some(true),
        optimizer,
        builtins: key.builtins.clone().or_else(|| {
            std::env::var_os("SYSTEMDS_ROOT")
                .map(|root| PathBuf::from(root).join("scripts").join("builtin"))
        }),
        script_dir: key.script_dir.clone(),
        cancel: Some(cancel),
        ..RunOptions::default()
    }
}

/// The variables a script run leaves, and what it printed.
pub type ScriptResult = Result<(HashMap<String, Value>, String), ScriptError>;

impl EngineState {
    /// Runs a script with `inputs` bound. Without `explain` the compiled script is kept
    /// for the next call with the same key; with it (`Some(dot)`: as Graphviz or text) a
    /// fresh interpreter prints every block's plan.
    pub fn run_script(
        &mut self,
        key: ScriptKey,
        inputs: HashMap<String, Value>,
        explain: Option<bool>,
    ) -> ScriptResult {
        if explain.is_some() {
            let program = spores_lang::parse(&key.source).map_err(ScriptError::Parse)?;
            let mut printed = Vec::new();
            let options = run_options(&key, explain, self.cancel.clone());
            let mut interp = Interpreter::new(&program, options, &mut printed);
            let env = interp.run_with(&program, inputs);
            drop(interp);
            let env = env.map_err(ScriptError::Runtime)?;
            return Ok((env, String::from_utf8_lossy(&printed).into_owned()));
        }
        if !self.scripts.contains_key(&key) {
            let program = spores_lang::parse(&key.source).map_err(ScriptError::Parse)?;
            if self.scripts.len() >= MAX_CACHED_SCRIPTS {
                self.scripts.clear();
            }
            let options = run_options(&key, None, self.cancel.clone());
            self.scripts
                .insert(key.clone(), CachedScript::new(program, options));
        }
        let cached = self.scripts.get_mut(&key).expect("inserted above");
        let (result, printed) = cached.run(inputs);
        if result.is_err() {
            // A run that stopped half-way may leave state behind: start afresh next time.
            self.scripts.remove(&key);
        }
        result.map(|env| (env, printed))
    }
}
