//! `--egaroucid`: Egaroucid for Console, driven by its own commands.
//!
//! Egaroucid has no NBoard mode. Each decision sets the board (`setboard`), the mover's clock
//! (`settime`) and asks for a move (`go`); in quiet mode the move is printed alone on a line.
//! When it overruns the per-move cap it is stopped, the lowest-numbered legal square is played
//! instead (so one slow search does not lose the leg), and a spare process takes the next move.
//! Its console has no command that stops a search, and a fresh process spends about 1.4 s
//! loading its weights, more than a short cap allows; so a spare is started beside the process
//! in use and left loading, ready to take over at once, and another spare is started whenever
//! one takes over.
//!
//! `settime` takes whole seconds: Egaroucid reads the number as an integer (`std::stoi`), so a
//! fraction would be cut off anyway. The clock is rounded down, but never below one second.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbiter_engine_protocol::EngineRequest;
use arbiter_othello::Color;

use super::{
    Answered, Failure, checked_move, engine_clock, ensure_started, practice_move, read_before,
};
use crate::process::{EngineProcess, Program, parent_dir};

pub(crate) struct EgaroucidEngine {
    program: Program,
    pub(super) process: Option<EngineProcess>,
    /// The process that takes over when `process` has to be stopped, already loaded.
    pub(super) spare: Option<EngineProcess>,
    keep_spare: bool,
}

impl EgaroucidEngine {
    /// Egaroucid at `path`; with `keep_spare`, a spare process is kept loaded beside the one in
    /// use.
    pub(super) fn new(path: &Path, keep_spare: bool) -> EgaroucidEngine {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        // It finds its `resources` folder relative to where it runs: beside the executable.
        let dir: Option<PathBuf> = parent_dir(&path);
        EgaroucidEngine {
            program: Program::Exec {
                path,
                args: vec!["-quiet".to_owned(), "-noautopass".to_owned()],
                dir,
            },
            process: None,
            spare: None,
            keep_spare,
        }
    }

    /// The process to ask: the running one, else the spare, else a new one; and a new spare
    /// whenever there is none, so that one is loading before it is needed.
    fn ready(&mut self) -> Result<&mut EngineProcess, Failure> {
        let running = self.process.as_mut().is_some_and(|p| !p.exited());
        if !running
            && let Some(mut spare) = self.spare.take()
            && !spare.exited()
        {
            self.process = Some(spare);
        }
        if self.keep_spare && self.spare.as_mut().is_none_or(|s| s.exited()) {
            // A spare that cannot start is no failure of this decision: the next one tries again.
            self.spare = EngineProcess::start(&self.program).ok();
        }
        Ok(ensure_started(&mut self.process, &self.program)?.0)
    }

    pub(super) async fn decide(
        &mut self,
        request: &EngineRequest,
        budget: Option<Duration>,
    ) -> Result<Answered, Failure> {
        let deadline = budget.map(|b| Instant::now() + b);
        let process = self.ready()?;
        let side = match request.color {
            Color::Black => 'X',
            Color::White => 'O',
        };
        let seconds = engine_clock(request, budget).as_secs().max(1);
        process
            .send(&format!("setboard {}{side}", board_text(request)))
            .await
            .map_err(Failure::write)?;
        process
            .send(&format!("settime {side} {seconds}"))
            .await
            .map_err(Failure::write)?;
        process.send("go").await.map_err(Failure::write)?;
        loop {
            let line = match read_before(&mut self.process, deadline, budget).await {
                Ok(line) => line,
                Err(Failure::Timeout(ms)) => {
                    let mut answered = Answered::now(practice_move(request));
                    answered.substitute = Some(format!(
                        "Egaroucid reached the per-move cap of {ms} ms and was stopped; the lowest-numbered legal square was played, and the spare Egaroucid, already loaded, takes the next move"
                    ));
                    return Ok(answered);
                }
                Err(failure) => return Err(failure),
            };
            // `e6`, or `e6 0` with -showvalue; anything else (a banner, a board) is skipped.
            let Some(word) = line.split_whitespace().next() else {
                continue;
            };
            if is_move_word(word) {
                let at = Instant::now();
                let mv = checked_move(word, request)?;
                return Ok(Answered {
                    mv,
                    at,
                    substitute: None,
                });
            }
        }
    }
}

/// The board as `setboard` reads it: a1..h8, `X` black, `O` white, `-` empty.
fn board_text(request: &EngineRequest) -> String {
    request
        .board
        .iter()
        .map(|&cell| match cell {
            1 => 'X',
            2 => 'O',
            _ => '-',
        })
        .collect()
}

/// Whether a word is a move as Egaroucid prints it: a coordinate `a1`..`h8` or a pass.
fn is_move_word(word: &str) -> bool {
    let bytes = word.as_bytes();
    let coordinate = bytes.len() == 2
        && (b'a'..=b'h').contains(&bytes[0].to_ascii_lowercase())
        && (b'1'..=b'8').contains(&bytes[1]);
    coordinate || word.eq_ignore_ascii_case("ps") || word.eq_ignore_ascii_case("pa")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_told_from_other_output() {
        for word in ["e6", "F5", "ps", "PA", "a1", "h8"] {
            assert!(is_move_word(word), "{word}");
        }
        for word in ["i1", "a9", "e", "e66", ">", "Egaroucid", "0"] {
            assert!(!is_move_word(word), "{word}");
        }
    }

    #[test]
    fn the_board_is_written_for_setboard() {
        let request: EngineRequest =
            serde_json::from_str(super::super::tests::START).expect("request");
        assert_eq!(
            board_text(&request),
            "---------------------------OX------XO---------------------------"
        );
    }
}
