//! Fresh databases for tests and benchmarks that run against a real PostgreSQL server.
//!
//! Tests find the server through the environment variable [`URL_VARIABLE`]; without it they
//! print a notice and skip, so that `cargo test` passes on a machine with no PostgreSQL. Each
//! test gets a schema of its own in that database, named after the test, the time and the
//! process, and reaches it through the address [`TestDatabase::url`] gives, whose
//! `search_path` names the schema: tests running at once never see each other's tables.

use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::postgres::{PgConnectOptions, PgConnection};
// Schema names are made here from letters, digits and underscores only, hence safe to
// splice into statements.
use sqlx::{AssertSqlSafe, ConnectOptions, Executor};

/// The environment variable that holds the test server's address
/// (`postgres://postgres@127.0.0.1:5432/test`).
pub const URL_VARIABLE: &str = "ARBITER_TEST_POSTGRES_URL";

/// Test schemas older than this are dropped when a new one is made: what a test that failed
/// before cleaning up left behind.
const STALE_AFTER_SECS: u64 = 6 * 3600;

/// A schema of its own for one test.
pub struct TestDatabase {
    server_url: String,
    schema: String,
    url: String,
}

impl TestDatabase {
    /// Makes a fresh schema for the test `name` (letters, digits and underscores), or prints
    /// why not and returns `None` when [`URL_VARIABLE`] is not set. Panics when it is set but
    /// the server cannot be used: a test asked to run against PostgreSQL must not pass without.
    pub async fn create(name: &str) -> Option<TestDatabase> {
        let Ok(server_url) = std::env::var(URL_VARIABLE) else {
            eprintln!("skipped: set {URL_VARIABLE} to run this test against PostgreSQL");
            return None;
        };
        Some(TestDatabase::create_at(&server_url, name).await)
    }

    /// Makes a fresh schema for `name` in the database at `server_url` (for a benchmark).
    /// Panics when the server cannot be used.
    pub async fn create_at(server_url: &str, name: &str) -> TestDatabase {
        let server_url = server_url.to_owned();
        static MADE: AtomicU32 = AtomicU32::new(0);
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let name: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(24)
            .collect::<String>()
            .to_ascii_lowercase();
        let schema = format!(
            "arbiter_test_{now}_{}_{}_{name}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = connect(&server_url).await;
        drop_stale_schemas(&mut admin, now).await;
        admin
            .execute(AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
            .await
            .unwrap_or_else(|e| panic!("creating the schema {schema}: {e}"));
        let separator = if server_url.contains('?') { '&' } else { '?' };
        let url = format!("{server_url}{separator}options=-c%20search_path%3D{schema}");
        TestDatabase {
            server_url,
            schema,
            url,
        }
    }

    /// The address of the database with the schema as its search path.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The schema's name.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// Drops the schema and everything in it (a test calls it once done; one that failed
    /// before leaves it for a later test to drop once stale).
    pub async fn drop_schema(self) {
        let mut admin = connect(&self.server_url).await;
        admin
            .execute(AssertSqlSafe(format!(
                "DROP SCHEMA {} CASCADE",
                self.schema
            )))
            .await
            .unwrap_or_else(|e| panic!("dropping the schema {}: {e}", self.schema));
    }
}

async fn connect(url: &str) -> PgConnection {
    let options = PgConnectOptions::from_str(url)
        .unwrap_or_else(|e| panic!("{URL_VARIABLE} is not a PostgreSQL address: {e}"))
        .disable_statement_logging();
    options
        .connect()
        .await
        .unwrap_or_else(|e| panic!("connecting to {URL_VARIABLE}: {e}"))
}

/// Drops the test schemas made more than [`STALE_AFTER_SECS`] ago.
async fn drop_stale_schemas(admin: &mut PgConnection, now: u64) {
    let schemas: Vec<String> = sqlx::query_scalar(
        "SELECT nspname::TEXT FROM pg_namespace WHERE nspname LIKE 'arbiter\\_test\\_%'",
    )
    .fetch_all(&mut *admin)
    .await
    .unwrap_or_default();
    for schema in schemas {
        let made: Option<u64> = schema
            .strip_prefix("arbiter_test_")
            .and_then(|rest| rest.split('_').next())
            .and_then(|secs| secs.parse().ok());
        if made.is_some_and(|made| made + STALE_AFTER_SECS < now) {
            // Another test may be dropping it at the same moment; either way it goes.
            let _ = admin
                .execute(AssertSqlSafe(format!(
                    "DROP SCHEMA IF EXISTS {schema} CASCADE"
                )))
                .await;
        }
    }
}
