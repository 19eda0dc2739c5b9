//! A real `arbiter serve` process on port 0, for the binary's end-to-end tests.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// The administrator token of test servers.
pub(crate) const ADMIN: &str = "crash-test-admin";

/// A running server.
pub(crate) struct Server {
    /// Its process.
    pub(crate) child: Child,
    /// Its API's base URL (`…/api/v1`).
    pub(crate) base: String,
}

/// Starts a server on `database`, listening on a free port.
#[allow(dead_code, reason = "not every test binary starts servers this way")]
pub(crate) fn start(database: &std::path::Path) -> Server {
    start_with(&[std::ffi::OsStr::new("--database"), database.as_os_str()])
}

/// Starts a server with the options `options`, listening on a free port.
pub(crate) fn start_with(options: &[&std::ffi::OsStr]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(options)
        .env("ARBITER_ADMIN_TOKEN", ADMIN)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server prints its address");
    let address = line
        .trim()
        .rsplit(' ')
        .next()
        .expect("an address")
        .to_owned();
    assert!(address.starts_with("http://127.0.0.1:"), "{line}");
    Server {
        child,
        base: format!("{address}/api/v1"),
    }
}

/// One API call: the status (0 when the server cannot be reached) and the JSON body.
pub(crate) async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    token: &str,
    body: Value,
) -> (u16, Value) {
    let response = client
        .request(method, url)
        .bearer_auth(token)
        .body(body.to_string())
        .send()
        .await;
    match response {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.json().await.unwrap_or(Value::Null))
        }
        Err(_) => (0, Value::Null),
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A test that fails half-way must not leave a server running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
