use clap::Parser;

use super::*;

/// `arbiter train othello`'s flags alone, as a test parses them; a flag given again replaces
/// the tiny run's value.
#[derive(Parser)]
#[command(args_override_self = true)]
struct Flags {
    #[command(flatten)]
    args: OthelloArgs,
}

/// The options of a tiny run: few games, few nodes, few empties solved, a short fit.
fn tiny(extra: &[&str]) -> OthelloArgs {
    let base = [
        "train",
        "--games",
        "6",
        "--seed",
        "7",
        "--nodes",
        "200",
        "--solve-empties",
        "8",
        "--random-plies",
        "8..12",
        "--random-move-rate",
        "0.1",
        "--stages",
        "2",
        "--iterations",
        "2",
        "--out",
        "unused.bin",
    ];
    let flags = Flags::try_parse_from(base.iter().chain(extra)).expect("valid flags");
    flags.args
}

/// The weights' bytes and the samples of a run.
fn bytes_and_samples(args: &OthelloArgs) -> (Vec<u8>, Vec<Sample>) {
    let trained = train(args, false).expect("a training run");
    (trained.weights.to_bytes(), trained.samples)
}

#[test]
fn the_same_seed_writes_the_same_bytes_on_any_number_of_threads() {
    let (one, one_samples) = bytes_and_samples(&tiny(&["--threads", "1"]));
    let (two, two_samples) = bytes_and_samples(&tiny(&["--threads", "2"]));
    let (again, _) = bytes_and_samples(&tiny(&["--threads", "2"]));
    assert!(one_samples.len() > 6 * 20, "{} samples", one_samples.len());
    assert_eq!(one_samples, two_samples);
    assert!(one == two, "1 and 2 threads wrote different weights");
    assert!(two == again, "two runs wrote different weights");
    let (other, other_samples) = bytes_and_samples(&tiny(&["--threads", "2", "--seed", "8"]));
    assert_ne!(one_samples, other_samples);
    assert!(one != other, "another seed wrote the same weights");
}

/// The mover's best final goal by exhaustive search, written independently of the solver:
/// discs minus the opponent's, or the opponent's minus the mover's in anti-Othello.
fn brute_force(position: &Position) -> i32 {
    if position.is_over() {
        let me = position.to_move();
        let mine = position.discs_of(me).count_ones() as i32;
        let theirs = position.discs_of(me.other()).count_ones() as i32;
        return if position.variant() == Variant::Anti {
            theirs - mine
        } else {
            mine - theirs
        };
    }
    position
        .legal_move_list()
        .into_iter()
        .map(|mv| {
            let mut child = *position;
            child.play(mv).expect("a legal move");
            -brute_force(&child)
        })
        .max()
        .expect("a legal move or a pass")
}

/// The position of a sample, its mover as Black (colours do not matter outside Reversi).
fn position_of(variant: Variant, sample: &Sample) -> Position {
    Position::from_parts(
        variant,
        u128::from(sample.p),
        u128::from(sample.o),
        Color::Black,
        [0, 0],
    )
    .expect("a valid position")
}

#[test]
fn labels_are_exact_within_the_solve_and_the_line_value_before_it() {
    for (variant, name) in [(Variant::Std, "std"), (Variant::Anti, "anti")] {
        let args = tiny(&["--variant", name, "--solve-empties", "7"]);
        let plan = plan(&args).expect("a plan");
        for index in 0..3 {
            let game = play_game(&plan, args.seed, index).expect("a game");
            let empties_of = |s: &Sample| 64 - (s.p | s.o).count_ones();
            let (before, within): (Vec<Sample>, Vec<Sample>) =
                game.samples.iter().partition(|s| empties_of(s) > 7);
            assert!(
                !before.is_empty() && !within.is_empty(),
                "{name} game {index}"
            );
            // Positions within the solve: each label is its position's exact value.
            for sample in &within {
                let exact = brute_force(&position_of(variant, sample));
                assert_eq!(sample.margin, exact as f32, "{name} game {index}");
            }
            // Positions before it: the line's value, from each mover's side, which the
            // mover could at best have matched by perfect play from the last of them.
            let value = within[0].margin.abs();
            assert!(before.iter().all(|s| s.margin.abs() == value), "{name}");
            let last = before.last().expect("a searched position");
            let exact = brute_force(&position_of(variant, last)) as f32;
            assert!(last.margin <= exact, "{name}: {} > {exact}", last.margin);
        }
    }
}

#[test]
fn anti_labels_are_the_goal_fewer_discs() {
    // A finished anti-Othello board: the mover (Black) holds 10 discs, White 54.
    let black = (1u128 << 10) - 1;
    let white = ((1u128 << 64) - 1) & !black;
    let over = Position::from_parts(Variant::Anti, black, white, Color::Black, [0, 0])
        .expect("a valid position");
    assert!(over.is_over());
    assert_eq!(final_goal(&over, Color::Black), 44);
    assert_eq!(final_goal(&over, Color::White), -44);
    // The solver's last samples of an anti game agree with the goal counted by hand.
    let args = tiny(&["--variant", "anti"]);
    let plan = plan(&args).expect("a plan");
    let game = play_game(&plan, 1, 0).expect("a game");
    let last = game.samples.last().expect("samples");
    let mut position = position_of(Variant::Anti, last);
    let mover = position.to_move();
    while !position.is_over() {
        let mv = solve(&position, &Limits::default()).expect("a solve").mv;
        position.play(mv).expect("a legal move");
    }
    let mine = position.discs_of(mover).count_ones() as f32;
    let theirs = position.discs_of(mover.other()).count_ones() as f32;
    assert_eq!(last.margin, theirs - mine);
}

#[test]
fn reversi_games_start_with_random_placements() {
    let args = tiny(&["--variant", "reversi", "--games", "2"]);
    let plan = plan(&args).expect("a plan");
    let game = play_game(&plan, args.seed, 0).expect("a game");
    let first = game.samples.first().expect("samples");
    // Four placements and at least eight plies: twelve discs or more.
    assert!((first.p | first.o).count_ones() >= 12);
}

#[test]
fn games_are_played_over_a_weights_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("w.bin");
    std::fs::write(&path, Weights::zero_with_stages(1).to_bytes()).expect("written");
    let path_text = path.to_str().expect("a UTF-8 path");
    let args = tiny(&["--games", "2", "--weights", path_text]);
    let plan = plan(&args).expect("a plan");
    assert!(matches!(plan.player, Player::Weights { .. }));
    let game = play_game(&plan, 1, 0).expect("a game");
    assert!(!game.samples.is_empty());

    std::fs::write(&path, b"not weights").expect("written");
    let error = plan_error(&tiny(&["--weights", path_text]));
    assert!(error.contains("holds no usable weights"), "{error}");
}

/// The message of a plan that cannot be made.
fn plan_error(args: &OthelloArgs) -> String {
    match plan(args) {
        Ok(_) => panic!("the plan was accepted"),
        Err(error) => format!("{error:#}"),
    }
}

#[test]
fn flags_are_checked() {
    assert_eq!(parse_plies("8..20"), Ok(8..=20));
    assert_eq!(parse_plies("8..=20"), Ok(8..=20));
    assert_eq!(parse_plies("12"), Ok(12..=12));
    assert!(parse_plies("20..8").is_err());
    assert!(parse_plies("8..61").is_err());
    assert!(parse_plies("eight").is_err());
    assert_eq!(parse_variant("anti"), Ok(Variant::Anti));
    assert!(parse_variant("grand").is_err());
    assert!(parse_variant("chess").is_err());
    let error = plan_error(&tiny(&["--random-move-rate", "1.5"]));
    assert!(error.contains("--random-move-rate"), "{error}");
    let error = plan_error(&tiny(&["--solve-empties", "31"]));
    assert!(error.contains("--solve-empties"), "{error}");
    assert!(fit_options(&tiny(&["--stages", "0"])).is_err());
    assert!(fit_options(&tiny(&["--l2=-1"])).is_err());
}
