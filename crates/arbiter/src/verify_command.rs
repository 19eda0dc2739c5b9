//! `arbiter verify`: checks an exported match — the revealed seed against its commitment,
//! every draw, every action and the result — with the rules of the games this binary runs.

use std::io::Read;

use anyhow::Context;
use arbiter_arena::{MatchExport, Verdict};
use clap::Args;

/// Options of `arbiter verify`.
#[derive(Args)]
pub(crate) struct VerifyArgs {
    /// The export: a file, `-` for standard input, or an `http://` or `https://` address
    /// (`…/api/v1/matches/ID/export`).
    source: String,
}

/// Prints the verdict, one check a line; returns the exit code: 0 when the match is
/// verified, 1 when an item fails or the match cannot be verified.
pub(crate) async fn run(args: VerifyArgs) -> anyhow::Result<i32> {
    let text = read(&args.source).await?;
    let export: MatchExport = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a match export", args.source))?;
    let verdict = arbiter_arena::verify::verify(&crate::games::games(), &export);
    let (checked, code) = match &verdict {
        Verdict::Verified { checked } => (checked.as_slice(), 0),
        Verdict::Failed { checked, .. } => (checked.as_slice(), 1),
        Verdict::Unverifiable(_) => (&[][..], 1),
    };
    for line in checked {
        println!("ok  {line}");
    }
    println!("{}", verdict.summary());
    Ok(code)
}

async fn read(source: &str) -> anyhow::Result<String> {
    if source.starts_with("http://") || source.starts_with("https://") {
        let response = arbiter_http_client::client()
            .get(source)
            .send()
            .await
            .with_context(|| format!("cannot fetch {source}"))?;
        let status = response.status();
        let body = response.text().await.context("cannot read the export")?;
        anyhow::ensure!(status.is_success(), "{source} answered {status}: {body}");
        return Ok(body);
    }
    if source == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read standard input")?;
        return Ok(text);
    }
    std::fs::read_to_string(source).with_context(|| format!("cannot read {source}"))
}
