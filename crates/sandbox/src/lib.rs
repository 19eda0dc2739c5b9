//! Bots submitted as WebAssembly modules, run in wasmtime.
//!
//! A module is a WASI preview 1 command that speaks the engine protocol: it reads one
//! decision request per line on standard input and writes one answer line on standard output,
//! exactly as an engine behind `arbiter bot` does. [`Sandbox::load`] checks an upload (its
//! size, that it imports nothing but WASI functions, that it exports `_start` and its memory)
//! and compiles it once; [`Sandbox::start`] runs one copy of it for one leg of one match, and
//! [`Instance::decide`] hands it a request and waits for its answer.
//!
//! What a module may do is bounded:
//!
//! - **Fuel.** Each decision gets the same number of instructions ([`Limits::fuel_per_decision`]);
//!   a module that runs out traps. Fuel is deterministic: the same module given the same
//!   requests does the same work and reaches the same answers.
//! - **Wall time.** Each decision has a deadline given by the caller (at most
//!   [`Limits::max_decision`]), checked at every epoch tick; a module past it traps.
//! - **Memory.** A module whose memory would grow past [`Limits::memory_bytes`] traps.
//! - **No world.** There is no file system, no network, no environment and no arguments.
//!   The clocks are virtual: they count the instructions the module has executed (one
//!   nanosecond each), so time read inside a module is deterministic; randomness is drawn
//!   from a seed given at start. The only information a module receives is the requests.
//! - **Threads.** Modules run on the sandbox's own small pool of threads
//!   ([`Limits::workers`]), never on the caller's runtime, and yield at every epoch tick, so a
//!   module that computes for its whole deadline neither starves the server nor other modules.
//!   At most [`Limits::instances`] run at once; [`Sandbox::start`] waits for a free slot.
//!   Waking a parked thread can cost more than a quick engine's whole decision, so after an
//!   answer a worker looks for the same instance's next request for a fraction of a
//!   millisecond before it parks, but only while that instance's requests have been coming
//!   that quickly and no other task waits for a thread; an idle instance costs no processor.
//!
//! A module that traps, runs out of fuel or memory, exits or answers nothing is finished for
//! good: every later decision of its instance fails at once with the same reason.

mod wasi;

use std::fmt;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use wasmtime::{
    Config, Engine, ExternType, InstancePre, Linker, Module, PoolingAllocationConfig, Store,
    TypedFunc, ValType,
};

use wasi::{Ask, Guest};

/// The one import module a submitted module may use.
pub const WASI_MODULE: &str = "wasi_snapshot_preview1";

/// How often the epoch advances: the granularity of wall-time deadlines, and the slice after
/// which a running module yields its thread.
const EPOCH_TICK: Duration = Duration::from_millis(2);

/// The sandbox's limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest module accepted, in bytes.
    pub max_module_bytes: usize,
    /// The most linear memory a module may grow to, in bytes.
    pub memory_bytes: usize,
    /// The instructions a module may execute per decision (and before its first read).
    pub fuel_per_decision: u64,
    /// The longest wall time a decision may take, whatever the caller allows.
    pub max_decision: Duration,
    /// How many instances may run at once.
    pub instances: u32,
    /// How many threads run modules.
    pub workers: usize,
    /// The longest answer line, in bytes.
    pub max_line_bytes: usize,
}

impl Default for Limits {
    /// 16 MiB modules, 256 MiB of memory, five billion instructions and ten seconds a
    /// decision, 32 instances at once on half the machine's cores.
    fn default() -> Limits {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Limits {
            max_module_bytes: 16 << 20,
            memory_bytes: 256 << 20,
            fuel_per_decision: 5_000_000_000,
            max_decision: Duration::from_secs(10),
            instances: 32,
            workers: (cores / 2).max(1),
            max_line_bytes: 64 << 10,
        }
    }
}

/// Why the sandbox could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// Wasmtime refused the configuration (no virtual memory for the pool, say).
    #[error("the WebAssembly engine could not be set up: {0}")]
    Engine(String),
    /// The worker threads could not be started.
    #[error("the sandbox's threads could not be started: {0}")]
    Threads(#[from] std::io::Error),
}

/// Why a module is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// Larger than [`Limits::max_module_bytes`].
    #[error("the module has {size} bytes; at most {max} are accepted")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// Not a valid WebAssembly module, or one using a feature the sandbox leaves off
    /// (threads, shared memory).
    #[error("the module is not valid WebAssembly for this sandbox: {0}")]
    Invalid(String),
    /// An import from anywhere but WASI preview 1.
    #[error(
        "the module imports {module}::{name}; only WASI preview 1 functions ({WASI_MODULE}) may be imported"
    )]
    ForeignImport {
        /// The import's module.
        module: String,
        /// The import's name.
        name: String,
    },
    /// A WASI import that is not a function, or has a signature WASI does not give it.
    #[error("the module imports {0} with a type WASI preview 1 does not have")]
    BadImport(String),
    /// No `_start` function taking and returning nothing.
    #[error(
        "the module exports no `_start` function: build it as a WASI command (a `main`), for wasm32-wasip1"
    )]
    NoStart,
    /// No exported memory.
    #[error("the module exports no memory named `memory`")]
    NoMemory,
}

/// Why a decision got no answer. After any of these the instance is finished.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecideError {
    /// The wall-time deadline passed.
    #[error("the module ran past its deadline")]
    TimedOut,
    /// The decision's fuel ran out.
    #[error("the module ran out of fuel (its instructions for one decision)")]
    OutOfFuel,
    /// The module's memory would have grown past the limit.
    #[error("the module tried to grow its memory past {0} bytes")]
    OutOfMemory(usize),
    /// The module trapped.
    #[error("the module trapped: {0}")]
    Trapped(String),
    /// The module exited (`proc_exit`, or returned from `_start`).
    #[error("the module exited with code {0}")]
    Exited(i32),
    /// The module read its next request without answering this one.
    #[error("the module read more input without answering")]
    NoAnswer,
    /// The answer line is longer than [`Limits::max_line_bytes`].
    #[error("the module's answer is longer than {0} bytes")]
    LineTooLong(usize),
    /// The answer is not UTF-8.
    #[error("the module's answer is not UTF-8")]
    NotUtf8,
    /// The sandbox stopped.
    #[error("the sandbox stopped")]
    Stopped,
}

/// Why an instance could not be started.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The module's start-up failed (a trap in its initialisers, memory past the limit).
    #[error("the module could not be instantiated: {0}")]
    Instantiate(String),
    /// The sandbox stopped.
    #[error("the sandbox stopped")]
    Stopped,
}

/// The sandbox: an engine, its worker pool and its slots.
#[derive(Clone)]
pub struct Sandbox {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Engine,
    linker: Linker<Guest>,
    limits: Limits,
    slots: Arc<Semaphore>,
    /// The worker pool; taken and shut down in the background on drop, since a runtime may
    /// not be dropped inside another one.
    workers: Mutex<Option<tokio::runtime::Runtime>>,
    handle: tokio::runtime::Handle,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(workers) = self
            .workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            workers.shutdown_background();
        }
    }
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox")
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// A sandbox with these limits: the engine, its pool of instance slots, its worker
    /// threads and the thread that advances its epoch.
    pub fn new(limits: Limits) -> Result<Sandbox, SetupError> {
        let mut config = Config::new();
        config
            .consume_fuel(true)
            .epoch_interruption(true)
            // Deterministic execution: floating-point NaNs and relaxed SIMD come out the same on
            // every machine (threads are not compiled in at all).
            .cranelift_nan_canonicalization(true)
            .relaxed_simd_deterministic(true);
        let mut pool = PoolingAllocationConfig::new();
        pool.total_core_instances(limits.instances)
            .total_memories(limits.instances)
            .total_tables(limits.instances)
            .total_stacks(limits.instances)
            .total_component_instances(0)
            .max_memory_size(limits.memory_bytes);
        config.allocation_strategy(pool);
        let engine = Engine::new(&config).map_err(|e| SetupError::Engine(e.to_string()))?;
        let mut linker = Linker::new(&engine);
        wasi::add_to_linker(&mut linker).map_err(|e| SetupError::Engine(e.to_string()))?;
        let workers = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(limits.workers.max(1))
            .thread_name("arbiter-sandbox")
            .build()?;
        let handle = workers.handle().clone();
        start_ticker(engine.weak())?;
        Ok(Sandbox {
            inner: Arc::new(Inner {
                engine,
                linker,
                slots: Arc::new(Semaphore::new(limits.instances as usize)),
                limits,
                workers: Mutex::new(Some(workers)),
                handle,
            }),
        })
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// Checks and compiles a module, on the sandbox's threads (compiling a large module takes
    /// a while).
    pub async fn load(&self, bytes: Vec<u8>) -> Result<Program, ModuleError> {
        let inner = self.inner.clone();
        let compiled = self
            .inner
            .handle
            .spawn_blocking(move || compile(&inner, &bytes))
            .await;
        compiled.unwrap_or_else(|e| Err(ModuleError::Invalid(format!("compiling failed: {e}"))))
    }

    /// Starts one copy of `program`, with its randomness drawn from `seed`, once a slot is
    /// free. The module runs until its first read of standard input before this returns.
    pub async fn start(&self, program: &Program, seed: [u8; 32]) -> Result<Instance, StartError> {
        let slot = self
            .inner
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| StartError::Stopped)?;
        let (asks, receiver) = mpsc::channel(1);
        let (started, ready) = oneshot::channel();
        let ended: Arc<Mutex<Option<DecideError>>> = Arc::default();
        let guest = Guest::new(
            receiver,
            seed,
            self.inner.limits.clone(),
            Arc::downgrade(&ended),
            self.inner.handle.metrics(),
        );
        let run = run(
            self.inner.engine.clone(),
            program.pre.clone(),
            guest,
            started,
            slot,
        );
        self.inner.handle.spawn(run);
        match ready.await {
            Ok(Ok(())) => Ok(Instance {
                asks,
                ended,
                max_decision: self.inner.limits.max_decision,
            }),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(StartError::Stopped),
        }
    }
}

/// Advances the engine's epoch every tick for as long as the engine lives.
fn start_ticker(engine: wasmtime::EngineWeak) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("arbiter-sandbox-epoch".to_owned())
        .spawn(move || {
            loop {
                std::thread::sleep(EPOCH_TICK);
                match engine.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => break,
                }
            }
        })
        .map(drop)
}

/// Checks a module's size, imports and exports, and compiles it.
fn compile(inner: &Inner, bytes: &[u8]) -> Result<Program, ModuleError> {
    let max = inner.limits.max_module_bytes;
    if bytes.len() > max {
        return Err(ModuleError::TooLarge {
            size: bytes.len(),
            max,
        });
    }
    let module =
        Module::new(&inner.engine, bytes).map_err(|e| ModuleError::Invalid(format!("{e:#}")))?;
    let mut linker = inner.linker.clone();
    for import in module.imports() {
        let (from, name) = (import.module(), import.name());
        if from != WASI_MODULE {
            return Err(ModuleError::ForeignImport {
                module: from.to_owned(),
                name: name.to_owned(),
            });
        }
        let ExternType::Func(ty) = import.ty() else {
            return Err(ModuleError::BadImport(name.to_owned()));
        };
        if wasi::IMPLEMENTED.contains(&name) {
            continue;
        }
        // WASI functions the sandbox has no use for (files, sockets, …) answer "not
        // supported", as a system without them would; each returns an error number.
        let results: Vec<ValType> = ty.results().collect();
        if !matches!(results.as_slice(), [ValType::I32]) {
            return Err(ModuleError::BadImport(name.to_owned()));
        }
        linker
            .func_new(WASI_MODULE, name, ty, |_, _, results| {
                results[0] = wasmtime::Val::I32(wasi::ERRNO_NOSYS);
                Ok(())
            })
            .map_err(|e| ModuleError::BadImport(format!("{name}: {e}")))?;
    }
    match module.get_export("_start") {
        Some(ExternType::Func(ty)) if ty.params().len() == 0 && ty.results().len() == 0 => {}
        _ => return Err(ModuleError::NoStart),
    }
    if !matches!(module.get_export("memory"), Some(ExternType::Memory(_))) {
        return Err(ModuleError::NoMemory);
    }
    let pre = linker
        .instantiate_pre(&module)
        .map_err(|e| ModuleError::BadImport(format!("{e:#}")))?;
    Ok(Program {
        pre,
        digest: Sha256::digest(bytes).into(),
        size: bytes.len(),
    })
}

/// Runs one instance to its end: instantiates it, reports that it started, and calls
/// `_start`, whose reads of standard input wait for the instance's requests.
async fn run(
    engine: Engine,
    pre: InstancePre<Guest>,
    guest: Guest,
    started: oneshot::Sender<Result<(), StartError>>,
    slot: OwnedSemaphorePermit,
) {
    let mut store = Store::new(&engine, guest);
    store.limiter(|guest| guest);
    store.epoch_deadline_callback(|context| wasi::on_epoch(context.data()));
    store.set_epoch_deadline(1);
    let start = store.data_mut().begin_startup();
    if let Err(error) = store.set_fuel(start) {
        let _ = started.send(Err(StartError::Instantiate(error.to_string())));
        return;
    }
    let instantiated = pre.instantiate_async(&mut store).await;
    let entry: Result<TypedFunc<(), ()>, _> = instantiated.and_then(|instance| {
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| wasmtime::Error::msg("no memory"))?;
        store.data_mut().memory = Some(memory);
        instance.get_typed_func::<(), ()>(&mut store, "_start")
    });
    let entry = match entry {
        Ok(entry) => entry,
        Err(error) => {
            let reason = wasi::reason(&error, store.data());
            let _ = started.send(Err(StartError::Instantiate(reason.to_string())));
            return;
        }
    };
    store.data_mut().started = Some(started);
    let ended = match entry.call_async(&mut store, ()).await {
        Ok(()) => DecideError::Exited(0),
        Err(error) => wasi::reason(&error, store.data()),
    };
    store.data_mut().finish(ended);
    drop(store);
    drop(slot);
}

/// A checked, compiled module, ready to be started any number of times.
#[derive(Clone)]
pub struct Program {
    pre: InstancePre<Guest>,
    digest: [u8; 32],
    size: usize,
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("sha256", &self.sha256())
            .field("size", &self.size)
            .finish()
    }
}

impl Program {
    /// The module's SHA-256, in lowercase hex: what names it.
    pub fn sha256(&self) -> String {
        hex(&self.digest)
    }

    /// The module's size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// One running copy of a module: one leg of one match. Dropping it closes the module's
/// standard input, which ends a module that reads to the end.
pub struct Instance {
    asks: mpsc::Sender<Ask>,
    ended: Arc<Mutex<Option<DecideError>>>,
    max_decision: Duration,
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instance")
            .field("ended", &self.ended())
            .finish()
    }
}

impl Instance {
    /// Hands the module one request line (without its newline) and waits for its answer
    /// line, within `wall` (at most [`Limits::max_decision`]).
    pub async fn decide(&self, line: &str, wall: Duration) -> Result<String, DecideError> {
        if let Some(ended) = self.ended() {
            return Err(ended);
        }
        let (answer, answered) = oneshot::channel();
        let now = Instant::now();
        let ask = Ask {
            line: format!("{line}\n").into_bytes(),
            deadline: now + wall.min(self.max_decision),
            sent: now,
            answer,
        };
        if self.asks.send(ask).await.is_err() {
            return Err(self.ended().unwrap_or(DecideError::Stopped));
        }
        match answered.await {
            Ok(answer) => answer,
            Err(_) => Err(self.ended().unwrap_or(DecideError::Stopped)),
        }
    }

    /// Why the instance ended, once it has.
    pub fn ended(&self) -> Option<DecideError> {
        self.ended.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Lets [`Guest`] reach the ended flag without keeping the instance alive.
pub(crate) type EndedFlag = Weak<Mutex<Option<DecideError>>>;
