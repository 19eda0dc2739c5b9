//! The Python webhook bot of `examples/` against a real server process: it checks the
//! signature of every request the server sends, refuses a forged one, and plays a match to
//! its end without holding a stream.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::{ADMIN, call};

const BOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/webhook_bot.py");

fn client() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(arbiter_http_client::client)
}

/// Kills the bot's process when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_webhook_bot_verifies_the_server_and_plays() {
    let Ok(mut python) = Command::new("python3")
        .args([BOT, "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        eprintln!("skipped: python3 is not installed");
        return;
    };
    let mut stdin = python.stdin.take().expect("stdin");
    let mut lines = BufReader::new(python.stdout.take().expect("stdout")).lines();
    let bot = Killed(python);
    let port: u16 = lines
        .next()
        .expect("a line")
        .expect("text")
        .rsplit(' ')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("the bot prints its port");

    let dir = tempfile::tempdir().expect("temp dir");
    let database = dir.path().join("arbiter.db");
    let server = support::start_with(&[
        "--database".as_ref(),
        database.as_os_str(),
        "--webhook-allow-http".as_ref(),
        "--webhook-allow".as_ref(),
        "127.0.0.1".as_ref(),
    ]);
    let base = server.base.clone();
    let api = async |method: reqwest::Method, path: &str, token: &str, body: Value| {
        call(client(), method, format!("{base}{path}"), token, body).await
    };
    let (status, registered) = api(
        reqwest::Method::POST,
        "/admin/bots",
        ADMIN,
        json!({"name": "Hook", "supported_variants": ["othello"]}),
    )
    .await;
    assert_eq!(status, 201, "{registered}");
    let token = registered["token"].as_str().expect("token").to_owned();
    let (status, set) = api(
        reqwest::Method::PUT,
        "/bots/me/webhook",
        &token,
        json!({ "url": format!("http://127.0.0.1:{port}/decide") }),
    )
    .await;
    assert_eq!(status, 200, "{set}");
    let secret = set["secret"].as_str().expect("the secret, once");
    writeln!(stdin, "{secret}").expect("the bot reads its secret");

    // A request the server did not sign is refused.
    let forged = client()
        .post(format!("http://127.0.0.1:{port}/decide"))
        .header("X-Arbiter-Timestamp", "1")
        .header("X-Arbiter-Signature", format!("v1={}", "0".repeat(64)))
        .body("{}")
        .send()
        .await
        .expect("sent");
    assert_eq!(forged.status(), 401);

    // The server picks the bot up within a second or two; then it plays a house bot.
    for _ in 0..100 {
        let (_, view) = api(reqwest::Method::GET, "/bots/Hook", "", Value::Null).await;
        if view["online"] == true {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (status, created) = api(
        reqwest::Method::POST,
        "/challenges",
        &token,
        json!({"opponent": "house-random"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_i64().expect("id");
    let mut snapshot = Value::Null;
    for _ in 0..600 {
        (_, snapshot) = api(
            reqwest::Method::GET,
            &format!("/matches/{id}"),
            "",
            Value::Null,
        )
        .await;
        if snapshot["status"] != "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(snapshot["status"], "finished", "{snapshot}");
    assert!(
        !snapshot["result"]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("timeout"),
        "{snapshot}"
    );
    drop(bot);
    let answered = lines
        .map_while(Result::ok)
        .filter(|line| line.starts_with("answered"))
        .count();
    assert!(answered >= 10, "the bot answered {answered} decisions");
}
