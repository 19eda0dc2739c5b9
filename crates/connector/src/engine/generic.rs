//! The generic engine protocol, for every game but Othello (`docs/engine-protocol.md`): one
//! request line out, `{"action": …}` back.
//!
//! The request is the server's JSON, passed on with every field it has, unknown ones included,
//! since the protocol may grow; only `remaining_ms` and `budget_ms` are set by the connector,
//! as they are in FlipSight's request, to the time left and the time it waits now. The answer's
//! action goes back to the server as the engine wrote it, once it is found among
//! `legal_actions` (by JSON value equality) when the server listed them.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::Failure;
use super::json::ask;
use crate::EngineSpec;
use crate::process::{EngineProcess, Program};

/// The longest spelling of an action shown in a message.
const ACTION_SHOWN: usize = 80;

/// A decision in the generic protocol.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GenericRequest {
    /// Every field of the server's request.
    fields: Map<String, Value>,
    /// `remaining_ms`, read once.
    remaining_ms: u64,
}

/// Why an answer is not a usable action.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ActionError {
    /// The engine wrote an empty line.
    #[error("the engine's answer is empty")]
    Empty,
    /// The line is not JSON.
    #[error("the engine's answer is not JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object with an `action`.
    #[error("the engine's answer is not a JSON object with an \"action\"")]
    NotAnObject,
    /// The object has no `action`.
    #[error("the engine's answer has no \"action\"")]
    MissingAction,
    /// The action is not among the legal actions listed.
    #[error("the engine chose {0}, which is not one of legal_actions")]
    Illegal(String),
}

impl GenericRequest {
    /// Whether a request is in the generic protocol: it has `protocol`, and a `game` other than
    /// Othello (whose decisions keep FlipSight's request, which has no `game`).
    pub(crate) fn is_generic(request: &Value) -> bool {
        request.get("protocol").is_some()
            && request["game"]
                .as_str()
                .is_some_and(|game| game != crate::OTHELLO)
    }

    /// Reads a generic request; `None` unless it is one, with a `remaining_ms` and
    /// `legal_actions` that is a list or `null`.
    pub(crate) fn from_json(request: &Value) -> Option<GenericRequest> {
        if !GenericRequest::is_generic(request) {
            return None;
        }
        let fields = request.as_object()?.clone();
        let remaining_ms = fields.get("remaining_ms")?.as_u64()?;
        match fields.get("legal_actions") {
            None | Some(Value::Null | Value::Array(_)) => {}
            Some(_) => return None,
        }
        Some(GenericRequest {
            fields,
            remaining_ms,
        })
    }

    /// The game.
    pub(crate) fn game(&self) -> &str {
        self.fields
            .get("game")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// A field of the request, such as `view` or `clocks_ms`.
    pub(crate) fn field(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }

    /// Which participant of the match the bot is in this decision.
    pub(crate) fn participant(&self) -> Option<u64> {
        self.fields.get("participant").and_then(Value::as_u64)
    }

    /// This seat's remaining clock, in milliseconds.
    pub(crate) fn remaining_ms(&self) -> u64 {
        self.remaining_ms
    }

    /// The same request with the clock as it stands now and the time the connector waits.
    pub(crate) fn with_clock(&self, remaining_ms: u64, budget_ms: u64) -> GenericRequest {
        let mut fields = self.fields.clone();
        fields.insert("remaining_ms".to_owned(), remaining_ms.into());
        fields.insert("budget_ms".to_owned(), budget_ms.into());
        GenericRequest {
            fields,
            remaining_ms,
        }
    }

    /// The actions the seat may send; `None` when the server described them by a grammar.
    pub(crate) fn legal_actions(&self) -> Option<&[Value]> {
        self.fields
            .get("legal_actions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
    }

    /// The request as one line of compact JSON.
    pub(crate) fn to_line(&self) -> String {
        Value::Object(self.fields.clone()).to_string()
    }

    /// The action in an answer line, checked against `legal_actions` when there is a list.
    pub(crate) fn check(&self, line: &str) -> Result<Value, ActionError> {
        let line = line.trim();
        if line.is_empty() {
            return Err(ActionError::Empty);
        }
        let answer: Value =
            serde_json::from_str(line).map_err(|e| ActionError::NotJson(e.to_string()))?;
        let Value::Object(mut answer) = answer else {
            return Err(ActionError::NotAnObject);
        };
        let action = answer.remove("action").ok_or(ActionError::MissingAction)?;
        match self.legal_actions() {
            Some(legal) if !legal.contains(&action) => {
                Err(ActionError::Illegal(action_name(&action)))
            }
            _ => Ok(action),
        }
    }
}

/// An action as shown in messages: its compact JSON, cut short when long.
pub(crate) fn action_name(action: &Value) -> String {
    let text = action.to_string();
    match text.char_indices().nth(ACTION_SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A command speaking the generic protocol, and its process while it runs.
pub(crate) struct CommandEngine {
    program: Program,
    process: Option<EngineProcess>,
}

/// The engine that answers generic decisions in a leg.
pub(crate) enum GenericEngine {
    /// The `--engine` command, kept running like a JSON engine (and started again when it
    /// exits after answering).
    Command(Box<CommandEngine>),
    /// The practice engine: the first legal action.
    Practice,
    /// An adapter whose protocol knows Othello only.
    OthelloOnly(&'static str),
}

impl GenericEngine {
    /// The generic engine `spec` gives; its process starts at the first decision.
    pub(crate) fn new(spec: &EngineSpec) -> GenericEngine {
        match spec {
            EngineSpec::Json { command } => GenericEngine::Command(Box::new(CommandEngine {
                program: Program::Shell(command.clone()),
                process: None,
            })),
            EngineSpec::Practice => GenericEngine::Practice,
            other => GenericEngine::OthelloOnly(other.adapter_name()),
        }
    }

    /// Asks for an action, waiting at most `budget`; returns it and when it was read.
    pub(crate) async fn decide(
        &mut self,
        request: &GenericRequest,
        budget: Option<Duration>,
    ) -> Result<(Value, Instant), Failure> {
        match self {
            GenericEngine::Command(engine) => {
                let CommandEngine { program, process } = engine.as_mut();
                let (text, at) = ask(process, program, &request.to_line(), budget).await?;
                Ok((request.check(&text)?, at))
            }
            GenericEngine::Practice => match request.legal_actions().and_then(<[Value]>::first) {
                Some(action) => Ok((action.clone(), Instant::now())),
                None => Err(Failure::Unsupported(format!(
                    "the practice engine plays the first of legal_actions, and this {} decision lists none",
                    request.game()
                ))),
            },
            GenericEngine::OthelloOnly(adapter) => Err(Failure::Unsupported(format!(
                "{adapter} engines play Othello only, and this match is {}; the connector does not guess an action",
                request.game()
            ))),
        }
    }

    /// Stops the engine's process; the next decision starts a fresh one.
    pub(crate) async fn restart(&mut self) {
        if let GenericEngine::Command(engine) = self
            && let Some(running) = engine.process.take()
        {
            running.stop().await;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use serde_json::json;

    use super::*;

    /// A Goofspiel decision as the server sends it, with a field this connector does not know.
    fn goofspiel() -> Value {
        json!({"protocol":1,"game":"goofspiel","variant":"standard","match_id":42,"leg":0,
            "seats":2,"seat":1,"participant":1,"phase":3,"revision":9,
            "view":{"round":3,"prize":7,"prizes_left":10,"scores":[5,0],"hands":[[1,2,4,5,6,7,8,9,10,11,13],[1,2,3,4,6,7,8,9,10,11,12]],
                "committed":[true,false],"own_bid":null,"deadline_ms":1_764_612_375_678_u64,"history":[]},
            "legal_actions":[{"round":3,"card":1},{"round":3,"card":12}],"action_grammar":null,
            "clocks_ms":[30000,29000],"remaining_ms":29000,"budget_ms":10000,
            "deadline_ms":1_764_612_345_678_u64,"future_field":{"kept":true}})
    }

    fn request() -> GenericRequest {
        GenericRequest::from_json(&goofspiel()).expect("a generic request")
    }

    fn command(script: &str) -> GenericEngine {
        GenericEngine::new(&EngineSpec::Json {
            command: script.to_owned(),
        })
    }

    #[test]
    fn requests_are_told_apart_by_their_game() {
        let flipsight: Value = serde_json::from_str(super::super::tests::START).expect("JSON");
        let mut othello = goofspiel();
        othello["game"] = json!("othello");
        let mut no_protocol = goofspiel();
        no_protocol.as_object_mut().map(|o| o.remove("protocol"));
        let mut grammar = goofspiel();
        grammar["legal_actions"] = Value::Null;
        let mut no_clock = goofspiel();
        no_clock["remaining_ms"] = Value::Null;
        let table = [
            (goofspiel(), true, "goofspiel"),
            (grammar, true, "a grammar instead of a list"),
            (flipsight, false, "FlipSight's request"),
            (othello, false, "othello keeps FlipSight's request"),
            (no_protocol, false, "no protocol field"),
            (no_clock, false, "no clock"),
        ];
        for (value, generic, what) in table {
            assert_eq!(
                GenericRequest::from_json(&value).is_some(),
                generic,
                "{what}"
            );
        }
    }

    #[test]
    fn the_request_is_passed_on_whole_with_the_clock_as_it_stands() {
        let sent: Value = serde_json::from_str(&request().with_clock(28_500, 9_000).to_line())
            .expect("one line of JSON");
        let mut expected = goofspiel();
        expected["remaining_ms"] = json!(28_500);
        expected["budget_ms"] = json!(9_000);
        assert_eq!(sent, expected);
        assert!(!request().to_line().contains('\n'));
    }

    #[test]
    fn answers_are_checked_against_the_legal_actions() {
        let request = request();
        let table: [(&str, Result<Value, ActionError>); 7] = [
            (
                r#"{"action":{"round":3,"card":12},"comment":"high"}"#,
                Ok(json!({"round":3,"card":12})),
            ),
            // Key order and spacing do not matter: values are compared.
            (
                r#" { "action" : { "card" : 1 , "round" : 3 } } "#,
                Ok(json!({"round":3,"card":1})),
            ),
            (
                r#"{"action":{"card":5,"round":3}}"#,
                Err(ActionError::Illegal(r#"{"card":5,"round":3}"#.to_owned())),
            ),
            (
                r#"{"action":{"card":1,"round":2}}"#,
                Err(ActionError::Illegal(r#"{"card":1,"round":2}"#.to_owned())),
            ),
            ("", Err(ActionError::Empty)),
            (r#"[{"round":3,"card":1}]"#, Err(ActionError::NotAnObject)),
            (r#"{"move":19}"#, Err(ActionError::MissingAction)),
        ];
        for (line, expected) in table {
            assert_eq!(request.check(line), expected, "{line}");
        }
        assert!(matches!(
            request.check("bid 12"),
            Err(ActionError::NotJson(_))
        ));
        let mut grammar = goofspiel();
        grammar["legal_actions"] = Value::Null;
        grammar["action_grammar"] = json!("{\"round\": R, \"card\": C}");
        let grammar = GenericRequest::from_json(&grammar).expect("a generic request");
        assert_eq!(
            grammar.check(r#"{"action":{"round":3,"card":5}}"#),
            Ok(json!({"round":3,"card":5})),
            "without a list, the server judges the action"
        );
    }

    #[tokio::test]
    async fn a_command_engine_receives_the_request_and_its_legal_answer_is_taken() {
        let dir = tempfile::tempdir().expect("temp dir");
        let seen = dir.path().join("seen");
        let mut engine = command(&format!(
            r#"while read -r line; do printf '%s\n' "$line" >> {}; echo '{{"action":{{"round":3,"card":12}}}}'; done"#,
            seen.display()
        ));
        for _ in 0..2 {
            let (action, _) = engine
                .decide(&request(), Some(Duration::from_secs(5)))
                .await
                .expect("an action");
            assert_eq!(action, json!({"round":3,"card":12}));
        }
        engine.restart().await;
        let lines = std::fs::read_to_string(&seen).expect("the engine wrote what it read");
        let lines: Vec<Value> = lines
            .lines()
            .map(|line| serde_json::from_str(line).expect("JSON"))
            .collect();
        assert_eq!(
            lines,
            [goofspiel(), goofspiel()],
            "one process, two requests"
        );
    }

    #[tokio::test]
    async fn broken_generic_engines_fail_with_the_reason_and_may_be_tried_again() {
        type Expected = fn(&Failure) -> bool;
        let table: [(&str, Expected, &str); 4] = [
            (
                r#"read -r line; echo '{"action":{"round":3,"card":5}}'"#,
                |f| matches!(f, Failure::Action(ActionError::Illegal(_))),
                "an illegal action",
            ),
            (
                r#"read -r line; echo 'card 12'"#,
                |f| matches!(f, Failure::Action(ActionError::NotJson(_))),
                "not JSON",
            ),
            (
                r#"read -r line; echo '12'"#,
                |f| matches!(f, Failure::Action(ActionError::NotAnObject)),
                "not an object",
            ),
            (
                // Its last words may or may not have been read by then: the status is there.
                r#"read -r line; echo 'gone' >&2; exit 4"#,
                |f| matches!(f, Failure::Exited(why) if why.contains("status: 4")),
                "a crash",
            ),
        ];
        for (script, expected, what) in table {
            let mut engine = command(script);
            let failure = engine
                .decide(&request(), Some(Duration::from_secs(5)))
                .await
                .expect_err(what);
            assert!(expected(&failure), "{what}: {failure}");
            assert!(
                !failure.is_permanent(),
                "{what}: a fresh engine may do better"
            );
            engine.restart().await;
        }
    }

    #[tokio::test]
    async fn a_hanging_generic_engine_is_stopped_at_the_budget() {
        let mut engine = command("read -r line; sleep 30");
        let failure = engine
            .decide(&request(), Some(Duration::from_millis(200)))
            .await
            .expect_err("no answer");
        assert!(matches!(failure, Failure::Timeout(200)), "{failure}");
    }

    #[tokio::test]
    async fn the_practice_engine_plays_the_first_legal_action_and_othello_adapters_none() {
        let mut practice = GenericEngine::new(&EngineSpec::Practice);
        let (action, _) = practice.decide(&request(), None).await.expect("an action");
        assert_eq!(action, json!({"round":3,"card":1}));
        let mut grammar = goofspiel();
        grammar["legal_actions"] = Value::Null;
        let grammar = GenericRequest::from_json(&grammar).expect("a generic request");
        let failure = practice.decide(&grammar, None).await.expect_err("no list");
        assert!(failure.is_permanent(), "{failure}");

        let mut nboard = GenericEngine::new(&EngineSpec::Nboard {
            command: "exit 1".to_owned(),
            depth: 0,
        });
        let failure = nboard
            .decide(&request(), None)
            .await
            .expect_err("Othello only");
        assert!(failure.is_permanent(), "{failure}");
        assert!(failure.to_string().contains("goofspiel"), "{failure}");
    }

    #[tokio::test]
    async fn the_example_goofspiel_engine_answers_through_the_adapter() {
        if !python_present() {
            return;
        }
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/goofspiel_engine.py"
        );
        let mut engine = command(&format!("python3 {script}"));
        let (action, _) = engine
            .decide(&request(), Some(Duration::from_secs(10)))
            .await
            .expect("a legal action");
        assert!(
            request()
                .legal_actions()
                .is_some_and(|l| l.contains(&action))
        );
        engine.restart().await;
    }

    fn python_present() -> bool {
        let present = std::process::Command::new("python3")
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success());
        if !present {
            eprintln!("python3 is not installed: skipping a test that runs a Python engine");
        }
        present
    }
}
