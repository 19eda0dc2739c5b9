//! `--nboard` and `--edax`: the NBoard protocol.
//!
//! Each decision sends `set game` with a GGF record of the position, `ping n` and `go`, then
//! reads lines until `pong n` (the only synchronisation point the protocol offers) and then the
//! `=== move` reply. Real engines differ from the specification in small ways, so replies are
//! read liberally: any case, `/` or spaces after the move, stray lines anywhere.
//!
//! Edax's NBoard mode ignores the clock in `set game` and searches to its `set depth`, so for
//! Edax the connector chooses the depth itself, move by move (`DepthControl`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use arbiter_engine_protocol::EngineRequest;

use super::depth::DepthControl;
use super::{Answered, Failure, checked_move, engine_clock, ensure_started, ggf, read_before};
use crate::process::{EngineProcess, Program, parent_dir};

/// How deep an NBoard engine searches.
pub(super) enum Depth {
    /// The engine's own setting: no `set depth` is sent.
    EngineDefault,
    /// `set depth N`, as the user asked.
    Fixed(u8),
    /// Chosen move by move from the clock, for an engine that ignores the clock.
    FromClock(DepthControl),
}

impl Depth {
    fn wanted(&self) -> Option<u8> {
        match self {
            Depth::EngineDefault => None,
            Depth::Fixed(depth) => Some(*depth),
            Depth::FromClock(control) => Some(control.depth()),
        }
    }
}

pub(crate) struct NboardEngine {
    program: Program,
    /// The protocol version announced (`nboard 2`; Edax insists on 1).
    version: u8,
    depth: Depth,
    /// The depth the running process was last told.
    told: Option<u8>,
    pub(super) process: Option<EngineProcess>,
    ping: u64,
}

impl NboardEngine {
    pub(super) fn new(program: Program, version: u8, depth: Depth) -> NboardEngine {
        NboardEngine {
            program,
            version,
            depth,
            told: None,
            process: None,
            ping: 0,
        }
    }

    pub(super) async fn decide(
        &mut self,
        request: &EngineRequest,
        budget: Option<Duration>,
    ) -> Result<Answered, Failure> {
        let share = DepthControl::share(request, budget);
        let result = self.search(request, budget).await;
        if let Depth::FromClock(control) = &mut self.depth {
            match &result {
                Ok((_, took)) => control.searched(*took, share),
                Err(Failure::Timeout(_)) => control.stopped(budget.unwrap_or(share), share),
                Err(_) => {}
            }
        }
        result.map(|(answered, _)| answered)
    }

    /// Asks for a move; returns it with the time the search took, from the `pong` that precedes
    /// it (so that an engine's start-up is not counted as searching).
    async fn search(
        &mut self,
        request: &EngineRequest,
        budget: Option<Duration>,
    ) -> Result<(Answered, Duration), Failure> {
        let deadline = budget.map(|b| Instant::now() + b);
        let (process, fresh) = ensure_started(&mut self.process, &self.program)?;
        if fresh {
            self.told = None;
            process
                .send(&format!("nboard {}", self.version))
                .await
                .map_err(Failure::write)?;
        }
        if let Some(depth) = self.depth.wanted()
            && self.told != Some(depth)
        {
            process
                .send(&format!("set depth {depth}"))
                .await
                .map_err(Failure::write)?;
            self.told = Some(depth);
        }
        self.ping += 1;
        let ping = self.ping;
        let record = ggf::record(request, engine_clock(request, budget));
        process
            .send(&format!("set game {record}"))
            .await
            .map_err(Failure::write)?;
        process
            .send(&format!("ping {ping}"))
            .await
            .map_err(Failure::write)?;
        process.send("go").await.map_err(Failure::write)?;
        let mut synchronised = None;
        loop {
            let line = read_before(&mut self.process, deadline, budget).await?;
            match Reply::parse(&line) {
                Reply::Pong(n) if n >= ping => synchronised = Some(Instant::now()),
                // A `===` before the pong answers an earlier `go`.
                Reply::Move(text) => {
                    if let Some(searching) = synchronised {
                        let at = Instant::now();
                        let mv = checked_move(text, request)?;
                        let answered = Answered {
                            mv,
                            at,
                            substitute: None,
                        };
                        return Ok((answered, at - searching));
                    }
                }
                _ => {}
            }
        }
    }
}

/// One line from an NBoard engine, as far as the connector cares.
#[derive(Debug, PartialEq, Eq)]
enum Reply<'a> {
    Pong(u64),
    Move(&'a str),
    Other,
}

impl<'a> Reply<'a> {
    fn parse(line: &'a str) -> Reply<'a> {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("===") {
            // `=== d6 -1.00 0.0` (Edax), `=== D6/-1.16/0.00` (NTest), `=== F5`.
            let rest = rest.trim_start();
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '/')
                .unwrap_or(rest.len());
            return Reply::Move(&rest[..end]);
        }
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("pong"), Some(n)) => n.parse().map_or(Reply::Other, Reply::Pong),
            _ => Reply::Other,
        }
    }
}

/// How Edax is started: `-nboard`, with its weights file, in the directory holding `data/` so
/// that its book and settings are found and saved where it expects them.
pub(super) fn edax_program(path: &Path, eval: Option<&Path>) -> (Program, Option<PathBuf>) {
    let eval = eval.map(Path::to_path_buf).or_else(|| find_edax_eval(path));
    let mut args = vec!["-nboard".to_owned()];
    if let Some(eval) = &eval {
        args.push("-eval-file".to_owned());
        args.push(eval.display().to_string());
    }
    let dir = eval
        .as_deref()
        .and_then(parent_dir)
        .and_then(|data| parent_dir(&data))
        .or_else(|| parent_dir(path));
    (
        Program::Exec {
            path: absolute(path),
            args,
            dir,
        },
        eval,
    )
}

/// Edax's weights, `data/eval.dat`, beside the executable or in its parent directory.
pub fn find_edax_eval(executable: &Path) -> Option<PathBuf> {
    let dir = parent_dir(&absolute(executable))?;
    [Some(dir.clone()), parent_dir(&dir)]
        .into_iter()
        .flatten()
        .map(|d| d.join("data").join("eval.dat"))
        .find(|candidate| candidate.is_file())
}

/// `path` made absolute, since the engine may be started in another directory.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_in_every_spelling_real_engines_use() {
        let table = [
            ("=== d6 -1.00 0.0", Reply::Move("d6")),
            ("=== D6/-1.16/0.00", Reply::Move("D6")),
            ("===F5", Reply::Move("F5")),
            ("  === pa", Reply::Move("pa")),
            ("=== PS/0", Reply::Move("PS")),
            ("pong 3", Reply::Pong(3)),
            ("pong x", Reply::Other),
            ("set myname Edax6", Reply::Other),
            ("status Edax is thinking", Reply::Other),
            ("search C4g6F3f8 0 0 6", Reply::Other),
            ("---- Heights ----", Reply::Other),
            ("", Reply::Other),
        ];
        for (line, expected) in table {
            assert_eq!(Reply::parse(line), expected, "{line:?}");
        }
    }

    #[test]
    fn edax_finds_its_weights_beside_it_or_one_level_up() {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(bin.join("data")).expect("dirs");
        std::fs::create_dir_all(dir.path().join("data")).expect("dirs");
        let executable = bin.join("lEdax-x86-64");
        assert_eq!(find_edax_eval(&executable), None, "no weights anywhere yet");
        std::fs::write(dir.path().join("data/eval.dat"), b"w").expect("write");
        assert_eq!(
            find_edax_eval(&executable),
            Some(dir.path().join("data/eval.dat"))
        );
        std::fs::write(bin.join("data/eval.dat"), b"w").expect("write");
        assert_eq!(
            find_edax_eval(&executable),
            Some(bin.join("data/eval.dat")),
            "beside it comes first"
        );
        let (program, eval) = edax_program(&executable, None);
        assert_eq!(eval, Some(bin.join("data/eval.dat")));
        let Program::Exec {
            args, dir: run_in, ..
        } = program
        else {
            panic!("Edax is started directly")
        };
        assert_eq!(args[0], "-nboard");
        assert_eq!(run_in, Some(bin), "Edax runs where its data/ folder is");
    }

    #[test]
    fn the_engine_sees_no_more_clock_than_the_budget_allows_per_move() {
        let mut request: EngineRequest =
            serde_json::from_str(super::super::tests::START).expect("request");
        request.remaining_ms = 60_000;
        // 60 empties: 31 moves left for the mover.
        assert_eq!(engine_clock(&request, None), Duration::from_millis(59_250));
        assert_eq!(
            engine_clock(&request, Some(Duration::from_secs(1))),
            Duration::from_secs(31)
        );
        assert_eq!(
            engine_clock(&request, Some(Duration::from_secs(10))),
            Duration::from_millis(59_250)
        );
    }
}
