//! `--engine`: FlipSight's JSON lines, one request line out and one answer line back.

use std::time::{Duration, Instant};

use arbiter_engine_protocol::{EngineRequest, parse_answer};

use super::{Answered, Failure, ensure_started, read_before};
use crate::process::{EngineProcess, Program};

pub(crate) struct JsonEngine {
    program: Program,
    pub(super) process: Option<EngineProcess>,
}

impl JsonEngine {
    pub(super) fn new(program: Program) -> JsonEngine {
        JsonEngine {
            program,
            process: None,
        }
    }

    pub(super) async fn decide(
        &mut self,
        request: &EngineRequest,
        budget: Option<Duration>,
    ) -> Result<Answered, Failure> {
        let (text, at) = ask(&mut self.process, &self.program, &request.to_line(), budget).await?;
        let mv = parse_answer(&text, request.game_mode)?;
        let mv = request.check(mv)?;
        Ok(Answered {
            mv,
            at,
            substitute: None,
        })
    }
}

/// Writes one request line to the engine (started if it is not running) and reads its answer
/// line within `budget`; returns the line and when it was read. The generic protocol's adapter
/// exchanges its lines the same way.
pub(super) async fn ask(
    process: &mut Option<EngineProcess>,
    program: &Program,
    line: &str,
    budget: Option<Duration>,
) -> Result<(String, Instant), Failure> {
    let deadline = budget.map(|b| Instant::now() + b);
    // A one-shot engine answers and exits; it may not have finished exiting when the next
    // request is written, so a process that was already running and closes its output
    // without answering is given one fresh start before it counts as a failure.
    let mut retried = false;
    loop {
        let (running, fresh) = ensure_started(process, program)?;
        let written = running.send(line).await;
        let answer = match written {
            Ok(()) => read_before(process, deadline, budget).await,
            Err(error) if fresh => {
                *process = None;
                return Err(Failure::Write(error.to_string()));
            }
            Err(_) => Err(Failure::Exited(String::new())),
        };
        match answer {
            Ok(text) => return Ok((text, Instant::now())),
            Err(Failure::Exited(_)) if !fresh && !retried => {
                retried = true;
                if let Some(running) = process.take() {
                    running.stop().await;
                }
            }
            Err(failure) => return Err(failure),
        }
    }
}
