//! `arbiter bots`: managing bots on the server machine, directly in the database.

use anyhow::bail;
use arbiter_arena::names::{check_bot_name, name_key};
use arbiter_arena::{BotProfile, Clock, SystemClock, token};
use arbiter_store::{BotKind, BotRecord, IdKind, Write};
use clap::{Args, Subcommand};

use crate::database::Database;

/// Options of `arbiter bots`.
#[derive(Args)]
pub(crate) struct BotsArgs {
    /// The database: an SQLite file (a file name or `sqlite://FILE`) or a PostgreSQL
    /// database (`postgres://…`).
    #[arg(
        long,
        env = "ARBITER_DATABASE",
        default_value = "arbiter.db",
        global = true
    )]
    database: Database,
    #[command(subcommand)]
    command: BotsCommand,
}

#[derive(Subcommand)]
enum BotsCommand {
    /// Register a bot and print its token (shown this once).
    Create {
        /// 2 to 24 letters, digits, '_', '-' or '.', neither only digits nor only dots, and not
        /// too like a taken name (regardless of case and of letters that look alike).
        name: String,
        /// Othello variants it plays (comma-separated; default std).
        #[arg(long, value_delimiter = ',')]
        variants: Vec<String>,
    },
    /// Replace a bot's token and print the new one; the old one stops working.
    RotateToken {
        /// The bot's name.
        name: String,
    },
    /// List the bots.
    List,
}

/// A server that recorded a heartbeat this recently is taken to be running.
const ALIVE_MS: i64 = 5_000;

pub(crate) async fn run(args: BotsArgs) -> anyhow::Result<()> {
    let store = args.database.open().await?;
    let now = SystemClock.now_ms();
    if let Some(beat) = store.last_heartbeat().await?
        && now - beat < ALIVE_MS
    {
        bail!(
            "a server is running on {}; manage bots through its admin API instead \
             (POST /api/v1/admin/bots with Authorization: Bearer $ARBITER_ADMIN_TOKEN), or stop it first",
            args.database
        );
    }
    let bots = store.bots().await?;
    match args.command {
        BotsCommand::Create { name, variants } => {
            // The server's own rule (which keeps the house bots' names even where no server
            // has started on this database yet), against every name it has given.
            let name = check_bot_name(&name)?;
            let key = name_key(&name);
            if let Some(taken) = bots
                .iter()
                .find(|b| name_key(&b.name) == key)
                .map(|b| &b.name)
            {
                bail!("the name {name:?} is too like {taken:?}, which is taken");
            }
            let variants = if variants.is_empty() {
                vec!["std".to_owned()]
            } else {
                variants
            };
            let profile = BotProfile {
                supported_variants: variants,
                ..BotProfile::default()
            }
            .checked(&crate::games::games().keys())?;
            let token = token::generate(token::REGISTERED_PREFIX)?;
            let record = BotRecord {
                id: store.reserve_ids(IdKind::Bot, 1).await?,
                name,
                kind: BotKind::Registered,
                token_hash: Some(token.hash),
                token_prefix: Some(token.display),
                created_ms: now,
                last_seen_ms: now,
                disabled: false,
                deleted: false,
                profile: serde_json::to_value(&profile)?,
            };
            store.write_batch(&[Write::PutBot(record.clone())]).await?;
            println!("Registered bot {} (id {}).", record.name, record.id);
            println!("Its token is shown this once; store it like a password:");
            println!("{}", token.secret);
        }
        BotsCommand::RotateToken { name } => {
            let Some(mut record) = bots
                .into_iter()
                .find(|b| b.name.to_lowercase() == name.to_lowercase() && !b.deleted)
            else {
                bail!("no bot named {name:?}");
            };
            if record.kind == BotKind::House {
                bail!("house bots have no token");
            }
            let prefix = if record.kind == BotKind::Anonymous {
                token::ANONYMOUS_PREFIX
            } else {
                token::REGISTERED_PREFIX
            };
            let token = token::generate(prefix)?;
            record.token_hash = Some(token.hash);
            record.token_prefix = Some(token.display);
            store.write_batch(&[Write::PutBot(record.clone())]).await?;
            println!(
                "New token for {} (the old one no longer works):",
                record.name
            );
            println!("{}", token.secret);
        }
        BotsCommand::List => {
            for bot in bots.iter().filter(|b| !b.deleted) {
                println!(
                    "{:>6}  {:<10}  {}{}",
                    bot.id,
                    bot.kind.as_str(),
                    bot.name,
                    if bot.disabled { "  (disabled)" } else { "" }
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use arbiter_store::Store;

    use super::*;

    async fn create(
        database: &std::path::Path,
        name: &str,
        variants: &[&str],
    ) -> Result<(), String> {
        let args = BotsArgs {
            database: Database::Sqlite(database.to_owned()),
            command: BotsCommand::Create {
                name: name.to_owned(),
                variants: variants.iter().map(|v| (*v).to_owned()).collect(),
            },
        };
        run(args).await.map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn create_follows_the_servers_rules() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = dir.path().join("arbiter.db");
        create(&database, "alpha", &[]).await.expect("created");
        let table: [(&str, &[&str], &str); 7] = [
            ("аlpha", &[], "too like \"alpha\""),
            ("ALPHA", &[], "too like \"alpha\""),
            ("hоuse-easy", &[], "already taken"),
            ("12345", &[], "only digits"),
            ("..", &[], "only dots"),
            ("beta", &["bogus"], "unknown variant \"bogus\""),
            ("beta", &["std", "<b>"], "unknown variant \"<b>\""),
        ];
        for (name, variants, says) in table {
            let error = create(&database, name, variants).await.expect_err(name);
            assert!(error.contains(says), "{name}: {error}");
        }
        create(&database, "beta", &["grand", "std"])
            .await
            .expect("created");
        let store = arbiter_store_sqlite::SqliteStore::open(&database)
            .await
            .expect("store");
        let names: Vec<String> = store
            .bots()
            .await
            .expect("bots")
            .into_iter()
            .map(|b| b.name)
            .collect();
        assert_eq!(names, ["alpha", "beta"]);
    }
}
