//! An engine as a child process: lines to its standard input, lines from its standard output.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Buf, BytesMut};
use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};

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

/// Which bytes end a line the engine writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineEndings {
    /// LF, or CR LF (the CR is dropped): what every JSON, NBoard and console engine writes.
    Lf,
    /// LF, CR LF or a lone CR, as the Gomocup protocol allows a brain to write.
    Any,
}

/// Lines from an engine's standard output, ended as [`LineEndings`] says.
pub(crate) struct EngineLines {
    endings: LineEndings,
    lf: LinesCodec,
    /// A CR ended the last line: an LF right after it (even in the next read) is the same end.
    after_cr: bool,
}

impl EngineLines {
    fn new(endings: LineEndings) -> EngineLines {
        EngineLines {
            endings,
            lf: LinesCodec::new_with_max_length(MAX_LINE),
            after_cr: false,
        }
    }

    /// The next line ended by LF, CR LF or CR, if the buffer holds a whole one.
    fn decode_any(&mut self, buffer: &mut BytesMut) -> Result<Option<String>, LinesCodecError> {
        if self.after_cr && buffer.first() == Some(&b'\n') {
            buffer.advance(1);
        }
        if !buffer.is_empty() {
            self.after_cr = false;
        }
        let Some(end) = buffer.iter().position(|&b| b == b'\n' || b == b'\r') else {
            if buffer.len() > MAX_LINE {
                return Err(LinesCodecError::MaxLineLengthExceeded);
            }
            return Ok(None);
        };
        if end > MAX_LINE {
            return Err(LinesCodecError::MaxLineLengthExceeded);
        }
        let line = buffer.split_to(end);
        let ending = buffer[0];
        buffer.advance(1);
        if ending == b'\r' {
            if buffer.first() == Some(&b'\n') {
                buffer.advance(1);
            } else {
                self.after_cr = buffer.is_empty();
            }
        }
        String::from_utf8(line.to_vec()).map(Some).map_err(|e| {
            LinesCodecError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        })
    }
}

impl Decoder for EngineLines {
    type Item = String;
    type Error = LinesCodecError;

    fn decode(&mut self, buffer: &mut BytesMut) -> Result<Option<String>, LinesCodecError> {
        match self.endings {
            LineEndings::Lf => self.lf.decode(buffer),
            LineEndings::Any => self.decode_any(buffer),
        }
    }

    fn decode_eof(&mut self, buffer: &mut BytesMut) -> Result<Option<String>, LinesCodecError> {
        match self.endings {
            LineEndings::Lf => self.lf.decode_eof(buffer),
            LineEndings::Any => match self.decode_any(buffer)? {
                Some(line) => Ok(Some(line)),
                None if buffer.is_empty() => Ok(None),
                // The last line, unended, as the LF codec gives it too.
                None => {
                    let line = buffer.split_to(buffer.len());
                    String::from_utf8(line.to_vec()).map(Some).map_err(|e| {
                        LinesCodecError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
                    })
                }
            },
        }
    }
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
    stdout: FramedRead<ChildStdout, EngineLines>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The task draining standard error; it ends when the pipe closes.
    drain: tokio::task::JoinHandle<()>,
}

impl EngineProcess {
    /// Starts `program`, whose lines end with LF (or CR LF).
    pub(crate) fn start(program: &Program) -> std::io::Result<EngineProcess> {
        EngineProcess::start_with(program, LineEndings::Lf)
    }

    /// Starts `program`, whose lines end as `endings` says.
    pub(crate) fn start_with(
        program: &Program,
        endings: LineEndings,
    ) -> std::io::Result<EngineProcess> {
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
            stdout: FramedRead::new(stdout, EngineLines::new(endings)),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks` one read at a time, as a pipe may deliver them, then the end of output.
    fn lines(endings: LineEndings, chunks: &[&str]) -> Vec<String> {
        let mut codec = EngineLines::new(endings);
        let mut buffer = BytesMut::new();
        let mut out = Vec::new();
        for chunk in chunks {
            buffer.extend_from_slice(chunk.as_bytes());
            while let Some(line) = codec.decode(&mut buffer).expect("text") {
                out.push(line);
            }
        }
        while let Some(line) = codec.decode_eof(&mut buffer).expect("text") {
            out.push(line);
        }
        out
    }

    #[test]
    fn lines_end_as_the_protocol_allows() {
        let table: [(LineEndings, &[&str], &[&str]); 8] = [
            (LineEndings::Lf, &["OK\n7,7\n"], &["OK", "7,7"]),
            (LineEndings::Lf, &["OK\r\n7,7\r\n"], &["OK", "7,7"]),
            // Othello's engines keep the behaviour they always had: a lone CR is no end.
            (LineEndings::Lf, &["a\rb\n"], &["a\rb"]),
            (LineEndings::Any, &["OK\r\n7,7\r\n"], &["OK", "7,7"]),
            (LineEndings::Any, &["OK\r7,7\r"], &["OK", "7,7"]),
            (LineEndings::Any, &["OK\n7,7"], &["OK", "7,7"]),
            // A CR LF split between two reads is one end, not an empty line.
            (LineEndings::Any, &["OK\r", "\n7,7\r", "\n"], &["OK", "7,7"]),
            (LineEndings::Any, &["\r\n\n", "x\r\r"], &["", "", "x", ""]),
        ];
        for (endings, chunks, expected) in table {
            assert_eq!(lines(endings, chunks), expected, "{endings:?} {chunks:?}");
        }
    }

    #[test]
    fn an_endless_line_is_refused() {
        let mut codec = EngineLines::new(LineEndings::Any);
        let mut buffer = BytesMut::from(vec![b'7'; MAX_LINE + 1].as_slice());
        assert!(codec.decode(&mut buffer).is_err());
    }
}
