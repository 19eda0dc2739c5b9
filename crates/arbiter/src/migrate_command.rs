//! `arbiter migrate`: copies a stopped server's database into another (SQLite into
//! PostgreSQL, say), then checks the copy by counts and checksums.

use anyhow::bail;
use arbiter_arena::{Clock, SystemClock};
use arbiter_store::copy::{CopyError, copy};
use clap::Args;

use crate::database::Database;

/// Options of `arbiter migrate`.
#[derive(Args)]
pub(crate) struct MigrateArgs {
    /// The database to copy: an SQLite file (`sqlite://FILE` or a file name) or
    /// `postgres://…`. Its server must be stopped.
    #[arg(long)]
    from: Database,
    /// The database to copy into, which must be empty (a new SQLite file, or a PostgreSQL
    /// database Arbiter has not used).
    #[arg(long)]
    to: Database,
}

/// A server that recorded a heartbeat this recently is taken to be running.
const ALIVE_MS: i64 = 5_000;

pub(crate) async fn run(args: MigrateArgs) -> anyhow::Result<()> {
    if args.from == args.to {
        bail!("--from and --to name the same database");
    }
    let from = args.from.open().await?;
    let now = SystemClock.now_ms();
    if let Some(beat) = from.last_heartbeat().await?
        && now - beat < ALIVE_MS
    {
        bail!(
            "a server is running on {}; stop it first, so that nothing changes during the copy",
            args.from
        );
    }
    let to = args.to.open().await?;
    eprintln!("Copying {} into {}…", args.from, args.to);
    let mut written = 0_usize;
    let mut reported = 0_usize;
    let summary = copy(from.as_ref(), to.as_ref(), now, |n| {
        written += n;
        if written - reported >= 100_000 {
            reported = written;
            eprintln!("  {written} records");
        }
    })
    .await
    .map_err(|error| match error {
        CopyError::Differs { .. } => {
            anyhow::anyhow!("{error}; the target is incomplete: empty it before trying again")
        }
        other => other.into(),
    })?;
    println!("Copied and verified {written} records:");
    for (kind, kind_summary) in &summary.kinds {
        println!(
            "  {kind:<10} {:>10}  sha256 {}",
            kind_summary.count, kind_summary.checksum
        );
    }
    println!("Start the server with --database {}", args.to);
    Ok(())
}
