//! An engine as a child process: lines to its standard input, lines from its standard output.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::codec::{FramedRead, LinesCodec};

/// The longest line read from an engine; anything longer is garbage, not an answer.
const MAX_LINE: usize = 64 * 1024;
/// Standard-error lines kept to explain a failure.
const STDERR_TAIL: usize = 5;

/// What to start.
#[derive(Clone, Debug)]
pub(crate) enum Program {
    /// A command line for the system shell.
    Shell(String),
    /// An executable with arguments, started directly in a working directory.
    Exec {
        path: PathBuf,
        args: Vec<String>,
        dir: Option<PathBuf>,
    },
}

impl Program {
    fn command(&self) -> Command {
        let mut command = match self {
            Program::Shell(line) => shell(line),
            Program::Exec { path, args, dir } => {
                let mut command = Command::new(path);
                command.args(args);
                if let Some(dir) = dir {
                    command.current_dir(dir);
                }
                command
            }
        };
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group, so that stopping it also stops whatever it started (a shell
        // running a pipeline, an adapter running the real engine), and so that Ctrl-C in the
        // terminal reaches the connector alone, which then stops its engines in order.
        #[cfg(unix)]
        command.process_group(0);
        command
    }
}

#[cfg(unix)]
fn shell(line: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(line);
    command
}

#[cfg(windows)]
fn shell(line: &str) -> Command {
    let mut command = Command::new("cmd");
    command.arg("/C").arg(line);
    command
}

/// How reading a line failed.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Nothing within the time allowed.
    Timeout,
    /// The engine closed its output (it exited).
    Closed,
    /// The engine wrote something that is not a line of text.
    Garbage(String),
}

/// A running engine.
pub(crate) struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: FramedRead<ChildStdout, LinesCodec>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The task draining standard error; it ends when the pipe closes.
    drain: tokio::task::JoinHandle<()>,
}

impl EngineProcess {
    /// Starts `program`.
    pub(crate) fn start(program: &Program) -> std::io::Result<EngineProcess> {
        let mut child = program.command().spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("the engine's pipes are missing"));
        };
        // Standard error is drained all the time (an engine blocked on a full pipe would look
        // hung) and its last lines are kept to explain a failure.
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let kept = tail.clone();
        let drain = tokio::spawn(async move {
            let mut lines = FramedRead::new(stderr, LinesCodec::new_with_max_length(MAX_LINE));
            while let Some(line) = lines.next().await {
                let Ok(line) = line else { continue };
                tracing::debug!(target: "arbiter_connector::engine", "engine stderr: {line}");
                let mut tail = kept
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            stdout: FramedRead::new(stdout, LinesCodec::new_with_max_length(MAX_LINE)),
            stderr: tail,
            drain,
        })
    }

    /// Whether the process has exited.
    pub(crate) fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Writes one line.
    pub(crate) async fn send(&mut self, line: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.stdin.write_all(&bytes).await?;
        self.stdin.flush().await
    }

    /// Reads the next line, waiting at most `within` (`None`: as long as it takes).
    pub(crate) async fn read_line(
        &mut self,
        within: Option<Duration>,
    ) -> Result<String, ReadError> {
        let next = self.stdout.next();
        let line = match within {
            Some(limit) => tokio::time::timeout(limit, next)
                .await
                .map_err(|_| ReadError::Timeout)?,
            None => next.await,
        };
        match line {
            Some(Ok(line)) => Ok(line),
            Some(Err(error)) => Err(ReadError::Garbage(error.to_string())),
            None => Err(ReadError::Closed),
        }
    }

    /// The last line the engine wrote on standard error, to explain a failure.
    pub(crate) fn last_stderr(&self) -> Option<String> {
        self.stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .back()
            .cloned()
    }

    /// Waits a moment for the exit status of a process that closed its output, and for the
    /// last of what it wrote on standard error to be read, so that its last words are never
    /// lost to a race with the reader.
    pub(crate) async fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait())
            .await
            .ok()?
            .ok();
        // The pipe closes when the process has gone, unless something it started holds it.
        if !self.drain.is_finished() {
            let _ = tokio::time::timeout(Duration::from_millis(500), &mut self.drain).await;
        }
        status
    }

    /// Asks the process to end with `command` and waits up to `patience` for it to exit, then
    /// stops whatever is left. Edax saves the opening book it built only when it ends this way.
    pub(crate) async fn quit(mut self, command: &str, patience: Duration) {
        if self.send(command).await.is_ok() {
            let _ = tokio::time::timeout(patience, self.child.wait()).await;
        }
        self.stop().await;
    }

    /// Stops the process and everything it started.
    pub(crate) async fn stop(mut self) {
        self.kill_group();
        let _ = self.child.kill().await;
    }

    fn kill_group(&self) {
        #[cfg(unix)]
        if let Some(pid) = self
            .child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        // `kill_on_drop` stops the direct child; this stops the rest of its group.
        self.kill_group();
    }
}

/// The directory holding `path`, for engines that find their data relative to where they run.
pub(crate) fn parent_dir(path: &Path) -> Option<PathBuf> {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
}
