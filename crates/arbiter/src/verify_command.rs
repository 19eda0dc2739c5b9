//! `arbiter verify`: checks an exported match — the revealed seed against its commitment,
//! every draw, every action and the result — with the rules of the games this binary runs;
//! or a tournament, round by round: each ended round's seed against its commitment, and each
//! of its games as playing from that seed and verified.

use std::io::Read;

use anyhow::Context;
use arbiter_arena::{MatchExport, Tournament, Verdict};
use arbiter_fair::{Commitment, ServerSeed};
use clap::Args;
use serde_json::Value;

/// Options of `arbiter verify`.
#[derive(Args)]
pub(crate) struct VerifyArgs {
    /// The export: a file, `-` for standard input, or an `http://` or `https://` address
    /// (`…/api/v1/matches/ID/export`); or a tournament's address
    /// (`…/api/v1/tournaments/ID`), whose games' exports are read from the same server.
    source: String,
}

/// Prints the verdict, one check a line; returns the exit code: 0 when the match (or every
/// game of the tournament's ended rounds) is verified, 1 when an item fails or cannot be
/// verified.
pub(crate) async fn run(args: VerifyArgs) -> anyhow::Result<i32> {
    let text = read(&args.source).await?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", args.source))?;
    if value.get("rounds").is_some() && value.get("entrants").is_some() {
        let tournament: Tournament = serde_json::from_value(value)
            .with_context(|| format!("{} is not a tournament", args.source))?;
        return verify_tournament(&args.source, &tournament).await;
    }
    let export: MatchExport = serde_json::from_value(value)
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

/// Checks every ended round of a tournament read from `source`: the round's seed against its
/// commitment, and each game's export (read from the same server) as playing from that seed
/// and verified. Rounds under way are listed as sealed.
async fn verify_tournament(source: &str, tournament: &Tournament) -> anyhow::Result<i32> {
    let Some((base, _)) = source.split_once("/api/v1/tournaments/") else {
        anyhow::bail!(
            "a tournament is verified from its address (…/api/v1/tournaments/ID), where its games' exports are found"
        );
    };
    let games = crate::games::games();
    let mut failures = 0usize;
    let mut verified = 0usize;
    for round in &tournament.rounds {
        let number = round.number + 1;
        let commitment = Commitment::from_hex(&round.commitment);
        let Some(seed) = round.seed.as_deref().filter(|_| round.ended) else {
            println!(
                "--  round {number}: under way; its seed stays sealed (commitment {commitment})"
            );
            continue;
        };
        if let Err(error) = commitment.verify(&ServerSeed::from_revealed(seed)) {
            println!("FAILED at round {number}: {error}");
            failures += 1;
            continue;
        }
        println!("ok  round {number}: its seed hashes to its commitment {commitment}");
        for game in &round.games {
            let id = game.match_id;
            let address = format!("{base}/api/v1/matches/{id}/export");
            let export: MatchExport = serde_json::from_str(&read(&address).await?)
                .with_context(|| format!("{address} is not a match export"))?;
            if export.commitment != round.commitment || export.seed.as_deref() != Some(seed) {
                println!(
                    "FAILED at round {number}, match {id}: it does not play from the round's seed"
                );
                failures += 1;
                continue;
            }
            match arbiter_arena::verify::verify(&games, &export) {
                Verdict::Verified { checked } => {
                    println!(
                        "ok  round {number}, match {id}: plays from the round's seed, verified ({} checks)",
                        checked.len()
                    );
                    verified += 1;
                }
                verdict => {
                    println!(
                        "FAILED at round {number}, match {id}: {}",
                        verdict.summary()
                    );
                    failures += 1;
                }
            }
        }
    }
    if failures == 0 {
        println!("verified: {verified} games of {}", tournament.name);
        Ok(0)
    } else {
        println!("FAILED: {failures} of the tournament's items do not check out");
        Ok(1)
    }
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
