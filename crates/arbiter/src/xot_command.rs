//! `arbiter xot-openings`: makes the list of balanced 8-move openings that people's XOT games
//! start from (`crates/othello/data/xot-openings.txt`).
//!
//! It draws random 8-move sequences from the start position with a seeded generator, has the
//! house bot play each resulting position out against itself at a fixed search depth and node
//! limit (so the result depends only on the position), and keeps the openings whose game ends
//! within `--margin` discs. The same options always give the same list.

use std::collections::HashSet;
use std::io::Write;

use arbiter_house::{Level, Limits, choose};
use arbiter_othello::{Color, Move, Position, Variant};
use arbiter_rules::random::below;
use rand::SeedableRng;

/// Options of `arbiter xot-openings`.
#[derive(clap::Args)]
pub(crate) struct XotArgs {
    /// How many random 8-move sequences to try.
    #[arg(long, default_value_t = 1_500)]
    candidates: usize,
    /// Keep an opening when the house bot's game from it ends within this many discs.
    #[arg(long, default_value_t = 2)]
    margin: i64,
    /// The house bot's search depth while playing the openings out.
    #[arg(long, default_value_t = 4)]
    depth: u32,
    /// The generator's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// A random 8-move opening, or `None` when a side would have to pass within it.
fn draw(rng: &mut rand::rngs::ChaCha8Rng) -> Option<(Vec<Move>, Position)> {
    let mut position = Position::start(Variant::Std);
    let mut moves = Vec::with_capacity(8);
    for _ in 0..8 {
        let legal = position.legal_move_list();
        if legal == [Move::Pass] {
            return None;
        }
        let count = u32::try_from(legal.len()).unwrap_or(1);
        let mv = legal[usize::try_from(below(rng, count)).unwrap_or(0)];
        position.play(mv).ok()?;
        moves.push(mv);
    }
    Some((moves, position))
}

/// Black's discs minus White's after the house bot plays `position` out against itself.
fn play_out(mut position: Position, depth: u32, rng: &mut rand::rngs::ChaCha8Rng) -> i64 {
    let limits = Limits {
        deadline: None,
        max_nodes: Some(20_000),
        selective: false,
    };
    while !position.is_over() {
        let choice = choose(&position, Level::Search { max_depth: depth }, &limits, rng);
        if position.play(choice.mv).is_err() {
            break;
        }
    }
    let discs = position.disc_counts();
    let black = i64::from(discs[Color::Black as usize]);
    let white = i64::from(discs[Color::White as usize]);
    black - white
}

pub(crate) fn run(args: &XotArgs) -> anyhow::Result<()> {
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(args.seed);
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for _ in 0..args.candidates {
        let Some((moves, position)) = draw(&mut rng) else {
            continue;
        };
        let text: String = moves.iter().map(|m| m.name(8)).collect();
        if !seen.insert(text.clone()) {
            continue;
        }
        if play_out(position, args.depth, &mut rng).abs() <= args.margin {
            kept.push(text);
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "# Balanced 8-move openings for XOT games, made by `arbiter xot-openings --candidates {} --margin {} --depth {} --seed {}`:",
        args.candidates, args.margin, args.depth, args.seed
    )?;
    writeln!(
        out,
        "# random openings whose game, played out by the house bot against itself, ends within {} discs.",
        args.margin
    )?;
    for line in &kept {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
