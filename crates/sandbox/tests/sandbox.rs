//! The sandbox against small modules written in the WebAssembly text format: engines that
//! answer, and modules that misbehave in every way the limits are for.

use std::time::Duration;

use arbiter_sandbox::{DecideError, Instance, Limits, ModuleError, Sandbox, StartError};

/// The module header every test module shares: WASI's read, write and exit, one page of
/// memory, and the iovec reading uses (into 1024..); `extra` holds more imports.
fn module(body: &str, extra: &str) -> Vec<u8> {
    let text = format!(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  {extra}
  (memory (export "memory") 1)
  (data (i32.const 0) "\00\04\00\00\00\0c\00\00")
  ;; Reads one request into 1024.. and returns its length (0 at the end of input).
  (func $line (result i32)
    (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.load (i32.const 8)))
  ;; Writes `len` bytes from `at` to standard output.
  (func $out (param $at i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $at))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))
  (func (export "_start") {body}))"#
    );
    wat::parse_str(&text).expect("the test module is valid text")
}

/// Answers each request with the request itself.
fn echo() -> Vec<u8> {
    module(
        "(local $n i32)
         (loop $next
           (local.set $n (call $line))
           (if (i32.eqz (local.get $n)) (then (return)))
           (call $out (i32.const 1024) (local.get $n))
           (br $next))",
        "",
    )
}

/// Reads one request, then does `then`.
fn after_one_request(then: &str) -> Vec<u8> {
    module(&format!("(drop (call $line)) {then}"), "")
}

fn limits() -> Limits {
    Limits {
        instances: 4,
        workers: 1,
        max_decision: Duration::from_secs(30),
        ..Limits::default()
    }
}

async fn started(sandbox: &Sandbox, bytes: Vec<u8>) -> Instance {
    let program = sandbox.load(bytes).await.expect("the module loads");
    sandbox
        .start(&program, [7; 32])
        .await
        .expect("the module starts")
}

const WALL: Duration = Duration::from_secs(20);

#[tokio::test]
async fn an_engine_answers_each_request_in_turn() {
    let sandbox = Sandbox::new(limits()).expect("a sandbox");
    let engine = started(&sandbox, echo()).await;
    for i in 0..20 {
        let request = format!(r#"{{"request":{i}}}"#);
        assert_eq!(engine.decide(&request, WALL).await, Ok(request));
    }
    assert_eq!(engine.ended(), None);
}

#[tokio::test]
async fn a_misbehaving_module_is_stopped_within_its_limits_and_stays_stopped() {
    struct Case {
        name: &'static str,
        then: &'static str,
        limits: Limits,
        expected: DecideError,
    }
    let loop_forever = "(loop $spin (br $spin))";
    let cases = [
        Case {
            name: "a loop, by fuel",
            then: loop_forever,
            limits: Limits {
                fuel_per_decision: 2_000_000,
                ..limits()
            },
            expected: DecideError::OutOfFuel,
        },
        Case {
            name: "a loop, by the deadline",
            then: loop_forever,
            limits: Limits {
                max_decision: Duration::from_millis(50),
                fuel_per_decision: u64::MAX,
                ..limits()
            },
            expected: DecideError::TimedOut,
        },
        Case {
            name: "unbounded allocation",
            then: "(loop $grow (drop (memory.grow (i32.const 16))) (br $grow))",
            limits: Limits {
                memory_bytes: 8 << 20,
                ..limits()
            },
            expected: DecideError::OutOfMemory(8 << 20),
        },
        Case {
            name: "a trap",
            then: "(unreachable)",
            limits: limits(),
            expected: DecideError::Trapped(
                "wasm trap: wasm `unreachable` instruction executed".to_owned(),
            ),
        },
        Case {
            name: "an exit",
            then: "(call $exit (i32.const 3))",
            limits: limits(),
            expected: DecideError::Exited(3),
        },
        Case {
            name: "a return from _start",
            then: "",
            limits: limits(),
            expected: DecideError::Exited(0),
        },
        Case {
            name: "a second read without an answer",
            then: "(drop (call $line))",
            limits: limits(),
            expected: DecideError::NoAnswer,
        },
        Case {
            name: "an endless answer line",
            then: "(loop $more (call $out (i32.const 3000) (i32.const 1000)) (br $more))",
            limits: Limits {
                max_line_bytes: 4096,
                ..limits()
            },
            expected: DecideError::LineTooLong(4096),
        },
    ];
    for case in cases {
        let sandbox = Sandbox::new(case.limits).expect("a sandbox");
        let module = started(&sandbox, after_one_request(case.then)).await;
        let first = module.decide("{}", WALL).await;
        assert_eq!(first, Err(case.expected.clone()), "{}", case.name);
        assert_eq!(module.ended(), Some(case.expected.clone()), "{}", case.name);
        assert_eq!(
            module.decide("{}", WALL).await,
            Err(case.expected),
            "{}: later decisions fail at once",
            case.name
        );
    }
}

#[tokio::test]
async fn a_module_computing_for_its_whole_deadline_does_not_block_another() {
    // One worker thread for both: the looping module must yield it.
    let sandbox = Sandbox::new(Limits {
        fuel_per_decision: u64::MAX,
        ..limits()
    })
    .expect("a sandbox");
    let spinner = started(&sandbox, after_one_request("(loop $spin (br $spin))")).await;
    let spinning = tokio::spawn(async move { spinner.decide("{}", WALL).await });
    let engine = started(&sandbox, echo()).await;
    for i in 0..50 {
        let request = format!("[{i}]");
        assert_eq!(engine.decide(&request, WALL).await, Ok(request));
    }
    assert!(
        !spinning.is_finished(),
        "the other module answered 50 requests while the loop was still inside its first deadline"
    );
    spinning.abort();
}

#[tokio::test]
async fn instances_sharing_one_worker_take_turns() {
    // One worker thread for both: after an answer the worker may look for the same instance's
    // next request for a moment, but must leave off once the other instance's request waits.
    let sandbox = Sandbox::new(limits()).expect("a sandbox");
    let first = started(&sandbox, echo()).await;
    let second = started(&sandbox, echo()).await;
    for i in 0..100 {
        for (name, engine) in [("first", &first), ("second", &second)] {
            let request = format!(r#"{{"{name}":{i}}}"#);
            assert_eq!(engine.decide(&request, WALL).await, Ok(request));
        }
    }
    let asking = |name: &'static str, engine: Instance| async move {
        for i in 0..100 {
            let request = format!(r#"{{"{name}":{i}}}"#);
            assert_eq!(engine.decide(&request, WALL).await, Ok(request));
        }
    };
    tokio::join!(asking("first", first), asking("second", second));
}

#[tokio::test]
async fn modules_are_checked_before_they_run() {
    let small = Sandbox::new(Limits {
        max_module_bytes: 64,
        ..limits()
    })
    .expect("a sandbox");
    let refused = small.load(echo()).await.expect_err("too large");
    assert!(
        matches!(refused, ModuleError::TooLarge { max: 64, .. }),
        "{refused}"
    );

    let sandbox = Sandbox::new(limits()).expect("a sandbox");
    type Expected = fn(&ModuleError) -> bool;
    let cases: [(&str, &str, Expected); 5] = [
        ("not WebAssembly", "", |e| {
            matches!(e, ModuleError::Invalid(_))
        }),
        (
            "a foreign import",
            r#"(module (import "env" "now" (func)) (memory (export "memory") 1) (func (export "_start")))"#,
            |e| matches!(e, ModuleError::ForeignImport { module, name } if module == "env" && name == "now"),
        ),
        (
            "an imported memory",
            r#"(module (import "wasi_snapshot_preview1" "memory" (memory 1)) (func (export "_start")))"#,
            |e| matches!(e, ModuleError::BadImport(_)),
        ),
        (
            "no _start",
            r#"(module (memory (export "memory") 1))"#,
            |e| *e == ModuleError::NoStart,
        ),
        ("no memory", r#"(module (func (export "_start")))"#, |e| {
            *e == ModuleError::NoMemory
        }),
    ];
    for (name, text, expected) in cases {
        let bytes = if text.is_empty() {
            b"\0asm-not-really".to_vec()
        } else {
            wat::parse_str(text).expect("valid text")
        };
        let refused = sandbox.load(bytes).await.expect_err(name);
        assert!(expected(&refused), "{name}: {refused}");
    }
}

#[tokio::test]
async fn wasi_functions_the_sandbox_lacks_answer_not_supported() {
    // `path_open` returns an error number; the module answers with it as one byte.
    let bytes = module(
        r#"(drop (call $line))
           (i32.store8 (i32.const 2000)
             (i32.add (i32.const 48)
               (call $open (i32.const 3) (i32.const 0) (i32.const 0) (i32.const 0)
                           (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 0))))
           (i32.store8 (i32.const 2001) (i32.const 10))
           (call $out (i32.const 2000) (i32.const 2))
           (drop (call $line))"#,
        r#"(import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))"#,
    );
    let sandbox = Sandbox::new(limits()).expect("a sandbox");
    let engine = started(&sandbox, bytes).await;
    // 52 (not supported) + 48 is 'd'.
    assert_eq!(engine.decide("{}", WALL).await, Ok("d".to_owned()));
}

#[tokio::test]
async fn a_module_that_fails_to_start_frees_its_slot() {
    let sandbox = Sandbox::new(Limits {
        memory_bytes: 1 << 20,
        instances: 1,
        ..limits()
    })
    .expect("a sandbox");
    let huge = wat::parse_str(r#"(module (memory (export "memory") 64) (func (export "_start")))"#)
        .expect("valid text");
    let refused = sandbox.load(huge).await.expect_err("too much memory");
    assert!(
        refused.to_string().contains("minimum byte size"),
        "{refused}"
    );

    let trapping = wat::parse_str(
        r#"(module (memory (export "memory") 1) (func $init unreachable) (start $init) (func (export "_start")))"#,
    )
    .expect("valid text");
    let program = sandbox.load(trapping).await.expect("loads");
    for _ in 0..3 {
        let refused = sandbox.start(&program, [0; 32]).await.expect_err("traps");
        assert!(matches!(refused, StartError::Instantiate(_)), "{refused}");
    }
    // The only slot is free again, and freed again when an engine's input closes.
    for _ in 0..3 {
        let engine = started(&sandbox, echo()).await;
        assert_eq!(engine.decide("x", WALL).await, Ok("x".to_owned()));
    }
}
