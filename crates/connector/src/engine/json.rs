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
        let deadline = budget.map(|b| Instant::now() + b);
        let line = request.to_line();
        // A one-shot engine answers and exits; it may not have finished exiting when the next
        // request is written, so a process that was already running and closes its output
        // without answering is given one fresh start before it counts as a failure.
        let mut retried = false;
        loop {
            let (process, fresh) = ensure_started(&mut self.process, &self.program)?;
            let written = process.send(&line).await;
            let answer = match written {
                Ok(()) => read_before(&mut self.process, deadline, budget).await,
                Err(error) if fresh => {
                    self.process = None;
                    return Err(Failure::Write(error.to_string()));
                }
                Err(_) => Err(Failure::Exited(String::new())),
            };
            match answer {
                Ok(text) => {
                    let at = Instant::now();
                    let mv = parse_answer(&text, request.game_mode)?;
                    let mv = request.check(mv)?;
                    return Ok(Answered {
                        mv,
                        at,
                        substitute: None,
                    });
                }
                Err(Failure::Exited(_)) if !fresh && !retried => {
                    retried = true;
                    if let Some(process) = self.process.take() {
                        process.stop().await;
                    }
                }
                Err(failure) => return Err(failure),
            }
        }
    }
}
