//! The sandbox's WASI preview 1: standard input carries the requests, standard output the
//! answers, standard error a short diagnostic tail; the clocks count instructions, randomness
//! comes from a seed, and there is nothing else (no files, no environment, no arguments).
//! Imports of the other WASI functions answer "not supported" (see `compile`).

use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::runtime::RuntimeMetrics;
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::{mpsc, oneshot};
use wasmtime::{
    AsContextMut, Caller, Error, Linker, Memory, ResourceLimiter, Trap, UpdateDeadline,
};

use crate::{DecideError, EndedFlag, Limits, StartError, WASI_MODULE};

/// WASI error numbers.
const ERRNO_SUCCESS: i32 = 0;
const ERRNO_BADF: i32 = 8;
const ERRNO_FAULT: i32 = 21;
const ERRNO_INVAL: i32 = 28;
pub(crate) const ERRNO_NOSYS: i32 = 52;
const ERRNO_SPIPE: i32 = 70;

/// A character device: what standard streams are.
const FILETYPE_CHARACTER_DEVICE: u8 = 2;
/// The rights of the standard streams: reading for input, writing for the outputs.
const RIGHT_FD_READ: u64 = 1 << 1;
const RIGHT_FD_WRITE: u64 = 1 << 6;

/// How much of standard error is kept.
const STDERR_TAIL: usize = 4 << 10;
/// How long a module has to end once its input is closed.
const END_GRACE: Duration = Duration::from_secs(1);
/// How long a worker keeps looking for an instance's next request after its answer, before it
/// parks. Waking a parked thread costs tens of microseconds on a virtual machine whose idle
/// processors halt (more than the whole decision of a quick engine), and a caller that asks
/// decision after decision sends its next request within about that time of the answer: the
/// time it takes to be woken itself. See [`Guest::next_soon`].
const LINGER: Duration = Duration::from_micros(100);

/// The WASI functions the sandbox implements; the others answer "not supported".
pub(crate) const IMPLEMENTED: &[&str] = &[
    "fd_read",
    "fd_write",
    "fd_close",
    "fd_seek",
    "fd_fdstat_get",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "proc_exit",
    "clock_time_get",
    "clock_res_get",
    "random_get",
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "sched_yield",
];

/// One request for a running module.
pub(crate) struct Ask {
    /// The request line, newline included.
    pub(crate) line: Vec<u8>,
    /// When the answer must have been written.
    pub(crate) deadline: Instant,
    /// When it was sent.
    pub(crate) sent: Instant,
    /// Where the answer goes.
    pub(crate) answer: oneshot::Sender<Result<String, DecideError>>,
}

/// Why the host stopped a module: carried through wasmtime as the trap's error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Stop(DecideError);

/// A running module's state.
pub(crate) struct Guest {
    asks: mpsc::Receiver<Ask>,
    limits: Limits,
    ended: EndedFlag,
    pub(crate) memory: Option<Memory>,
    /// Told once the module first waits for input.
    pub(crate) started: Option<oneshot::Sender<Result<(), StartError>>>,
    stdin: Vec<u8>,
    stdin_at: usize,
    /// The answer of the request being decided.
    pending: Option<oneshot::Sender<Result<String, DecideError>>>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    deadline: Option<Instant>,
    /// Instructions executed before the current decision's fuel was given.
    fuel_spent: u64,
    /// The fuel given for the current decision.
    fuel_given: u64,
    seed: [u8; 32],
    draws: u64,
    /// The worker pool's, to see whether other tasks wait for a thread.
    pool: RuntimeMetrics,
    /// When the module last answered.
    answered_at: Option<Instant>,
    /// Whether the last request came within [`LINGER`] of the answer before it.
    quick: bool,
}

impl Guest {
    pub(crate) fn new(
        asks: mpsc::Receiver<Ask>,
        seed: [u8; 32],
        limits: Limits,
        ended: EndedFlag,
        pool: RuntimeMetrics,
    ) -> Guest {
        Guest {
            asks,
            limits,
            ended,
            memory: None,
            started: None,
            stdin: Vec::new(),
            stdin_at: 0,
            pending: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            deadline: None,
            fuel_spent: 0,
            fuel_given: 0,
            seed,
            draws: 0,
            pool,
            answered_at: None,
            quick: false,
        }
    }

    /// Sets the deadline for the module's start-up and returns its fuel.
    pub(crate) fn begin_startup(&mut self) -> u64 {
        self.deadline = Some(Instant::now() + self.limits.max_decision);
        self.fuel_given = self.limits.fuel_per_decision;
        self.fuel_given
    }

    /// Records why the module ended and tells whoever waits.
    pub(crate) fn finish(&mut self, reason: DecideError) {
        if let Some(ended) = self.ended.upgrade() {
            *ended.lock().unwrap_or_else(|e| e.into_inner()) = Some(reason.clone());
        }
        if !self.stderr.is_empty() {
            tracing::debug!(
                stderr = %String::from_utf8_lossy(&self.stderr),
                "a module ended: {reason}"
            );
        }
        if let Some(pending) = self.pending.take() {
            let _ = pending.send(Err(reason.clone()));
        }
        if let Some(started) = self.started.take() {
            let _ = started.send(Err(StartError::Instantiate(reason.to_string())));
        }
        self.asks.close();
        while let Ok(ask) = self.asks.try_recv() {
            let _ = ask.answer.send(Err(reason.clone()));
        }
    }

    /// The instructions executed so far, given the fuel left now.
    fn instructions(&self, fuel_left: u64) -> u64 {
        self.fuel_spent + self.fuel_given.saturating_sub(fuel_left)
    }

    /// Hands a complete output line to the request waiting for it; a line nobody asked for
    /// (or a blank one) is dropped.
    fn answer_line(&mut self, line: &[u8]) -> Result<(), Error> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        match std::str::from_utf8(line) {
            Ok(text) => {
                let _ = pending.send(Ok(text.to_owned()));
                self.answered_at = Some(Instant::now());
                Ok(())
            }
            Err(_) => {
                self.pending = Some(pending);
                Err(Error::new(Stop(DecideError::NotUtf8)))
            }
        }
    }

    /// The next request, if it arrives very soon: while the previous request came within
    /// [`LINGER`] of the answer before it, and no other task waits for a thread of the pool,
    /// the worker looks for it for up to [`LINGER`] instead of parking, yielding its processor
    /// to any other thread that wants it meanwhile. A caller that asks rarely, or an instance
    /// that waits, costs no processor time: only a request that came quickly after an answer
    /// makes the worker linger after the next one.
    fn next_soon(&mut self) -> Option<Ask> {
        if !self.quick {
            return None;
        }
        let until = Instant::now() + LINGER;
        loop {
            match self.asks.try_recv() {
                Ok(ask) => return Some(ask),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => {}
            }
            // Other instances' requests and newly started instances arrive in the pool's
            // global queue: the worker leaves them to no one while it lingers.
            if self.pool.global_queue_depth() > 0 || Instant::now() >= until {
                return None;
            }
            std::thread::yield_now();
        }
    }

    /// Takes a request for the module to read, noting whether it came quickly.
    fn take(&mut self, ask: Ask) {
        self.quick = self
            .answered_at
            .is_some_and(|at| ask.sent.saturating_duration_since(at) < LINGER);
        self.stdin = ask.line;
        self.stdin_at = 0;
        self.pending = Some(ask.answer);
        self.deadline = Some(ask.deadline);
    }

    /// The next block of the seeded random stream.
    fn draw(&mut self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.seed);
        hasher.update(self.draws.to_le_bytes());
        self.draws += 1;
        hasher.finalize().into()
    }
}

impl ResourceLimiter for Guest {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, Error> {
        if desired > self.limits.memory_bytes {
            return Err(Error::new(Stop(DecideError::OutOfMemory(
                self.limits.memory_bytes,
            ))));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> Result<bool, Error> {
        // Tables hold function references: a module needs a few thousand at most.
        Ok(desired <= 1 << 16)
    }
}

/// At each epoch tick while a module runs: past its deadline it stops; otherwise it yields
/// its thread to the other modules and goes on.
pub(crate) fn on_epoch(guest: &Guest) -> Result<UpdateDeadline, Error> {
    match guest.deadline {
        Some(deadline) if Instant::now() >= deadline => {
            Err(Error::new(Stop(DecideError::TimedOut)))
        }
        _ => Ok(UpdateDeadline::Yield(1)),
    }
}

/// Why a module's run ended, from the error it ended with.
pub(crate) fn reason(error: &Error, guest: &Guest) -> DecideError {
    if let Some(Stop(reason)) = error.downcast_ref::<Stop>() {
        return reason.clone();
    }
    match error.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => DecideError::OutOfFuel,
        Some(Trap::Interrupt) => DecideError::TimedOut,
        Some(trap) => DecideError::Trapped(trap.to_string()),
        None => {
            let _ = guest;
            DecideError::Trapped(error.to_string())
        }
    }
}

/// The module's memory and state together.
fn parts<'a>(caller: &'a mut Caller<'_, Guest>) -> Option<(&'a mut [u8], &'a mut Guest)> {
    let memory = caller.data().memory?;
    Some(memory.data_and_store_mut(caller))
}

fn range(memory: &[u8], at: u32, len: usize) -> Option<std::ops::Range<usize>> {
    let start = usize::try_from(at).ok()?;
    let end = start.checked_add(len)?;
    (end <= memory.len()).then_some(start..end)
}

fn read_u32(memory: &[u8], at: u32) -> Option<u32> {
    let bytes = memory.get(range(memory, at, 4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

fn write_bytes(memory: &mut [u8], at: u32, bytes: &[u8]) -> Option<()> {
    let span = range(memory, at, bytes.len())?;
    memory.get_mut(span)?.copy_from_slice(bytes);
    Some(())
}

/// The (address, length) pairs of an iovec list.
fn iovecs(memory: &[u8], at: u32, count: u32) -> Option<Vec<(u32, u32)>> {
    (0..count)
        .map(|i| {
            let entry = at.checked_add(i.checked_mul(8)?)?;
            Some((
                read_u32(memory, entry)?,
                read_u32(memory, entry.checked_add(4)?)?,
            ))
        })
        .collect()
}

/// Turns a handler's outcome into an error number, a missing piece of memory being a fault.
fn errno(done: Option<i32>) -> i32 {
    done.unwrap_or(ERRNO_FAULT)
}

/// Defines the implemented WASI functions.
pub(crate) fn add_to_linker(linker: &mut Linker<Guest>) -> Result<(), Error> {
    linker.func_wrap_async(
        WASI_MODULE,
        "fd_read",
        |mut caller: Caller<'_, Guest>, (fd, iovs, count, read_at): (i32, u32, u32, u32)| {
            Box::new(async move { fd_read(&mut caller, fd, iovs, count, read_at).await })
        },
    )?;
    linker.func_wrap(
        WASI_MODULE,
        "fd_write",
        |mut caller: Caller<'_, Guest>,
         fd: i32,
         iovs: u32,
         count: u32,
         written_at: u32|
         -> Result<i32, Error> { fd_write(&mut caller, fd, iovs, count, written_at) },
    )?;
    linker.func_wrap(WASI_MODULE, "fd_close", |fd: i32| -> i32 {
        if (0..=2).contains(&fd) {
            ERRNO_SUCCESS
        } else {
            ERRNO_BADF
        }
    })?;
    linker.func_wrap(
        WASI_MODULE,
        "fd_seek",
        |fd: i32, _offset: i64, _whence: i32, _at: u32| -> i32 {
            if (0..=2).contains(&fd) {
                ERRNO_SPIPE
            } else {
                ERRNO_BADF
            }
        },
    )?;
    linker.func_wrap(
        WASI_MODULE,
        "fd_fdstat_get",
        |mut caller: Caller<'_, Guest>, fd: i32, at: u32| -> i32 {
            let rights = match fd {
                0 => RIGHT_FD_READ,
                1 | 2 => RIGHT_FD_WRITE,
                _ => return ERRNO_BADF,
            };
            let mut stat = [0u8; 24];
            stat[0] = FILETYPE_CHARACTER_DEVICE;
            stat[8..16].copy_from_slice(&rights.to_le_bytes());
            errno(parts(&mut caller).and_then(|(memory, _)| {
                write_bytes(memory, at, &stat)?;
                Some(ERRNO_SUCCESS)
            }))
        },
    )?;
    // No directory is opened to the module: it has no files.
    linker.func_wrap(WASI_MODULE, "fd_prestat_get", |_fd: i32, _at: u32| {
        ERRNO_BADF
    })?;
    linker.func_wrap(
        WASI_MODULE,
        "fd_prestat_dir_name",
        |_fd: i32, _at: u32, _len: u32| ERRNO_BADF,
    )?;
    linker.func_wrap(WASI_MODULE, "proc_exit", |code: i32| -> Result<(), Error> {
        Err(Error::new(Stop(DecideError::Exited(code))))
    })?;
    linker.func_wrap(
        WASI_MODULE,
        "clock_time_get",
        |mut caller: Caller<'_, Guest>, _clock: i32, _precision: i64, at: u32| -> i32 {
            let fuel_left = caller.get_fuel().unwrap_or(0);
            let now = caller.data().instructions(fuel_left);
            errno(parts(&mut caller).and_then(|(memory, _)| {
                write_bytes(memory, at, &now.to_le_bytes())?;
                Some(ERRNO_SUCCESS)
            }))
        },
    )?;
    linker.func_wrap(
        WASI_MODULE,
        "clock_res_get",
        |mut caller: Caller<'_, Guest>, _clock: i32, at: u32| -> i32 {
            errno(parts(&mut caller).and_then(|(memory, _)| {
                write_bytes(memory, at, &1u64.to_le_bytes())?;
                Some(ERRNO_SUCCESS)
            }))
        },
    )?;
    linker.func_wrap(
        WASI_MODULE,
        "random_get",
        |mut caller: Caller<'_, Guest>, at: u32, len: u32| -> i32 {
            errno(parts(&mut caller).and_then(|(memory, guest)| {
                let span = range(memory, at, usize::try_from(len).ok()?)?;
                for chunk in memory.get_mut(span)?.chunks_mut(32) {
                    let block = guest.draw();
                    chunk.copy_from_slice(&block[..chunk.len()]);
                }
                Some(ERRNO_SUCCESS)
            }))
        },
    )?;
    // No arguments and no environment: two counts of zero.
    for (list, sizes) in [
        ("args_get", "args_sizes_get"),
        ("environ_get", "environ_sizes_get"),
    ] {
        linker.func_wrap(WASI_MODULE, list, |_items: u32, _buffer: u32| ERRNO_SUCCESS)?;
        linker.func_wrap(
            WASI_MODULE,
            sizes,
            |mut caller: Caller<'_, Guest>, count_at: u32, size_at: u32| -> i32 {
                errno(parts(&mut caller).and_then(|(memory, _)| {
                    write_bytes(memory, count_at, &0u32.to_le_bytes())?;
                    write_bytes(memory, size_at, &0u32.to_le_bytes())?;
                    Some(ERRNO_SUCCESS)
                }))
            },
        )?;
    }
    linker.func_wrap(WASI_MODULE, "sched_yield", || ERRNO_SUCCESS)?;
    Ok(())
}

/// Standard input: what is left of the current request, or, once it is all read, the next
/// request (waiting for it), or the end of input once the instance is dropped.
async fn fd_read(
    caller: &mut Caller<'_, Guest>,
    fd: i32,
    iovs: u32,
    count: u32,
    read_at: u32,
) -> Result<i32, Error> {
    if fd != 0 {
        return Ok(ERRNO_BADF);
    }
    if caller.data().stdin_at >= caller.data().stdin.len() {
        if caller.data().pending.is_some() {
            return Err(Error::new(Stop(DecideError::NoAnswer)));
        }
        let fuel_left = caller.get_fuel()?;
        let guest = caller.data_mut();
        guest.fuel_spent = guest.instructions(fuel_left);
        guest.fuel_given = 0;
        guest.deadline = None;
        if let Some(started) = guest.started.take() {
            let _ = started.send(Ok(()));
        }
        let next = match guest.next_soon() {
            Some(ask) => Some(ask),
            None => guest.asks.recv().await,
        };
        let fuel = guest.limits.fuel_per_decision;
        guest.fuel_given = fuel;
        match next {
            Some(ask) => guest.take(ask),
            None => {
                guest.stdin.clear();
                guest.stdin_at = 0;
                guest.deadline = Some(Instant::now() + END_GRACE);
            }
        }
        caller.set_fuel(fuel)?;
        caller.as_context_mut().set_epoch_deadline(1);
    }
    let done = parts(caller).and_then(|(memory, guest)| {
        let mut read = 0usize;
        for (at, len) in iovecs(memory, iovs, count)? {
            let left = &guest.stdin[guest.stdin_at..];
            if left.is_empty() {
                break;
            }
            let take = left.len().min(usize::try_from(len).ok()?);
            let span = range(memory, at, take)?;
            memory.get_mut(span)?.copy_from_slice(&left[..take]);
            guest.stdin_at += take;
            read += take;
        }
        write_bytes(memory, read_at, &u32::try_from(read).ok()?.to_le_bytes())?;
        Some(ERRNO_SUCCESS)
    });
    Ok(errno(done))
}

/// Standard output collects answer lines; standard error keeps its last few kilobytes.
fn fd_write(
    caller: &mut Caller<'_, Guest>,
    fd: i32,
    iovs: u32,
    count: u32,
    written_at: u32,
) -> Result<i32, Error> {
    if !(1..=2).contains(&fd) {
        return Ok(ERRNO_BADF);
    }
    let Some((memory, guest)) = parts(caller) else {
        return Ok(ERRNO_FAULT);
    };
    let Some(vectors) = iovecs(memory, iovs, count) else {
        return Ok(ERRNO_FAULT);
    };
    let mut written = 0usize;
    for (at, len) in vectors {
        let Some(span) = usize::try_from(len)
            .ok()
            .and_then(|len| range(memory, at, len))
        else {
            return Ok(ERRNO_FAULT);
        };
        let bytes = &memory[span];
        written += bytes.len();
        if fd == 2 {
            guest.stderr.extend_from_slice(bytes);
            let excess = guest.stderr.len().saturating_sub(STDERR_TAIL);
            guest.stderr.drain(..excess);
            continue;
        }
        guest.stdout.extend_from_slice(bytes);
        while let Some(end) = guest.stdout.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = guest.stdout.drain(..=end).collect();
            guest.answer_line(&line[..end])?;
        }
        if guest.stdout.len() > guest.limits.max_line_bytes {
            return Err(Error::new(Stop(DecideError::LineTooLong(
                guest.limits.max_line_bytes,
            ))));
        }
    }
    let Ok(written) = u32::try_from(written) else {
        return Ok(ERRNO_INVAL);
    };
    Ok(errno(
        write_bytes(memory, written_at, &written.to_le_bytes()).map(|()| ERRNO_SUCCESS),
    ))
}
