//! Which store a command opens: an SQLite file by default, PostgreSQL when the address says so.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use anyhow::Context;
use arbiter_store::Store;
use arbiter_store_postgres::PostgresStore;
use arbiter_store_sqlite::SqliteStore;

/// A database, as `--database` names it: `postgres://…` (or `postgresql://…`), `sqlite://FILE`,
/// or a plain file name, which is an SQLite file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Database {
    /// An SQLite file, created on first start.
    Sqlite(PathBuf),
    /// A PostgreSQL server's database, by its address.
    Postgres(String),
}

impl FromStr for Database {
    type Err = String;

    fn from_str(s: &str) -> Result<Database, String> {
        let s = s.trim();
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Database::Postgres(s.to_owned()));
        }
        let path = s
            .strip_prefix("sqlite://")
            .or_else(|| s.strip_prefix("sqlite:"))
            .unwrap_or(s);
        if path.is_empty() {
            return Err("names no database: give a file, sqlite://FILE or postgres://…".into());
        }
        if let Some((scheme, _)) = path.split_once("://") {
            return Err(format!(
                "{scheme}:// is not a database Arbiter uses: give a file, sqlite://FILE or postgres://…"
            ));
        }
        Ok(Database::Sqlite(PathBuf::from(path)))
    }
}

/// The address without its password, for logs and messages.
impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "{}", path.display()),
            Database::Postgres(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                // A password may also come as a parameter: then no parameter shows.
                let rest = match rest.split_once('?') {
                    Some((address, query)) if query.contains("password") => address,
                    _ => rest,
                };
                match rest.split_once('@') {
                    Some((credentials, host)) => {
                        let user = credentials.split(':').next().unwrap_or_default();
                        write!(f, "{scheme}://{user}@{host}")
                    }
                    None => write!(f, "{scheme}://{rest}"),
                }
            }
        }
    }
}

impl Database {
    /// Opens the store, creating the SQLite file or migrating the database as needed.
    pub(crate) async fn open(&self) -> anyhow::Result<Arc<dyn Store>> {
        Ok(match self {
            Database::Sqlite(path) => Arc::new(
                SqliteStore::open(path)
                    .await
                    .with_context(|| format!("opening the database {self}"))?,
            ),
            Database::Postgres(url) => Arc::new(
                PostgresStore::connect(url)
                    .await
                    .with_context(|| format!("opening the database {self}"))?,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_name_their_store() {
        let cases = [
            ("arbiter.db", Ok(Database::Sqlite("arbiter.db".into()))),
            (
                "sqlite://data/a.db",
                Ok(Database::Sqlite("data/a.db".into())),
            ),
            ("sqlite:/var/a.db", Ok(Database::Sqlite("/var/a.db".into()))),
            (
                "postgres://u@h/db",
                Ok(Database::Postgres("postgres://u@h/db".into())),
            ),
            (
                "postgresql://h/db",
                Ok(Database::Postgres("postgresql://h/db".into())),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<Database>(), expected, "{text}");
        }
        for wrong in ["", "sqlite://", "mysql://h/db"] {
            assert!(wrong.parse::<Database>().is_err(), "{wrong:?}");
        }
    }

    #[test]
    fn a_password_never_shows() {
        let shown = Database::Postgres("postgres://arbiter:s3cret@db:5432/arena".into());
        assert_eq!(shown.to_string(), "postgres://arbiter@db:5432/arena");
        let plain = Database::Postgres("postgres://db/arena".into());
        assert_eq!(plain.to_string(), "postgres://db/arena");
        let parameter = Database::Postgres("postgres://db/arena?user=a&password=s3cret".into());
        assert_eq!(parameter.to_string(), "postgres://db/arena");
    }
}
