use super::*;
use crate::Outcome;

#[test]
fn two_wins_in_a_row_double_the_points_until_a_game_is_not_won() {
    // (points of the game in halves, the game's arena points, the streak after it)
    let table = [
        (2, 2, 1),
        (2, 2, 2),
        (2, 4, 3),
        (1, 2, 0),
        (2, 2, 1),
        (0, 0, 0),
        (2, 2, 1),
        (2, 2, 2),
        (2, 4, 3),
        (2, 4, 4),
        (0, 0, 0),
        (1, 1, 0),
    ];
    let mut score = ArenaScore::default();
    for (i, (halves, points, streak)) in table.into_iter().enumerate() {
        let before = score.points;
        score = score.after(halves);
        assert_eq!(
            (score.points - before, score.streak),
            (points, streak),
            "game {i}"
        );
    }
    assert_eq!((score.points, score.games, score.wins), (25, 12, 8));
}

fn game(first: Entrant, second: Entrant, outcome: Outcome) -> Played {
    Played {
        round: 0,
        pairing: Pairing::Game { first, second },
        outcome: Some(outcome),
    }
}

#[test]
fn scores_follow_each_entrants_games_in_order() {
    let played = [
        game(0, 1, Outcome::FirstWon),
        game(2, 0, Outcome::SecondWon),
        game(0, 3, Outcome::FirstWon),
        game(1, 2, Outcome::Draw),
    ];
    let scores = scores(4, &played);
    // 0 won three: 2 + 2 + 4 on its streak.
    assert_eq!((scores[0].points, scores[0].streak), (8, 3));
    assert_eq!(
        (scores[1].points, scores[2].points, scores[3].points),
        (1, 1, 0)
    );
    assert_eq!(ranking(&scores), [0, 1, 2, 3]);
}

#[test]
fn free_entrants_are_paired_only_inside_the_window() {
    let window = Window {
        starts_ms: 1_000,
        ends_ms: 61_000,
    };
    let free = [0, 1, 2, 3, 4];
    // (now, pairings made)
    let table = [(999, 0), (1_000, 2), (30_000, 2), (60_999, 2), (61_000, 0)];
    for (now, count) in table {
        assert_eq!(window.pair(now, 5, &free, &[]).len(), count, "at {now}");
    }
}

#[test]
fn the_best_free_entrants_meet_but_not_twice_running() {
    let window = Window {
        starts_ms: 0,
        ends_ms: 60_000,
    };
    let played = [
        game(0, 1, Outcome::FirstWon),
        game(2, 3, Outcome::FirstWon),
        game(4, 5, Outcome::Draw),
    ];
    let pairs = |pairings: Vec<Pairing>| -> Vec<(Entrant, Entrant)> {
        pairings
            .into_iter()
            .filter_map(|p| match p {
                Pairing::Game { first, second } => Some((first.min(second), first.max(second))),
                Pairing::Bye { .. } => None,
            })
            .collect()
    };
    // Ranked 0, 2 (two points), 4, 5 (one), 1, 3: the leaders meet, then 4 and 5 would meet
    // again, so 4 meets 1 and 5 meets 3.
    let all = window.pair(10_000, 6, &[0, 1, 2, 3, 4, 5], &played);
    assert_eq!(pairs(all), [(0, 2), (1, 4), (3, 5)]);
    // Only 0 and 1 are free, and just met: with no one else, they meet again.
    assert_eq!(pairs(window.pair(10_000, 6, &[0, 1], &played)), [(0, 1)]);
    // An odd one out waits.
    assert_eq!(window.pair(10_000, 6, &[3], &played), []);
}
