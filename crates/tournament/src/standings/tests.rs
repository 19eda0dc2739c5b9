use super::*;

fn game(round: u32, first: Entrant, second: Entrant, outcome: Outcome) -> Played {
    Played {
        round,
        pairing: Pairing::Game { first, second },
        outcome: Some(outcome),
    }
}

fn bye(round: u32, entrant: Entrant) -> Played {
    Played {
        round,
        pairing: Pairing::Bye { entrant },
        outcome: None,
    }
}

/// Four entrants, A to D (0 to 3), one round robin: A beats B, C draws D; A draws C, B beats
/// D; A beats D, B draws C. Points A 2.5, B 1.5, C 1.5, D 0.5.
fn four() -> Vec<Played> {
    vec![
        game(0, 0, 1, Outcome::FirstWon),
        game(0, 2, 3, Outcome::Draw),
        game(1, 0, 2, Outcome::Draw),
        game(1, 1, 3, Outcome::FirstWon),
        game(2, 3, 0, Outcome::SecondWon),
        game(2, 1, 2, Outcome::Draw),
    ]
}

#[test]
fn tie_breaks_are_buchholz_then_sonneborn_berger() {
    // By hand: Buchholz A = B + C + D = 1.5 + 1.5 + 0.5 = 3.5; B = 2.5 + 0.5 + 1.5 = 4.5;
    // C = 0.5 + 2.5 + 1.5 = 4.5; D = 1.5 + 1.5 + 2.5 = 5.5. Sonneborn–Berger A = B + C/2 + D
    // = 1.5 + 0.75 + 0.5 = 2.75; B = D + C/2 = 0.5 + 0.75 = 1.25; C = (D + A + B)/2 = 2.25;
    // D = C/2 = 0.75. B and C tie on points and Buchholz; C's Sonneborn–Berger ranks it
    // second.
    // (entrant, rank, points, Buchholz, Sonneborn–Berger, (wins, draws, losses))
    type Line = (Entrant, usize, f64, f64, f64, (u32, u32, u32));
    let table: [Line; 4] = [
        (0, 1, 2.5, 3.5, 2.75, (2, 1, 0)),
        (2, 2, 1.5, 4.5, 2.25, (0, 3, 0)),
        (1, 3, 1.5, 4.5, 1.25, (1, 1, 1)),
        (3, 4, 0.5, 5.5, 0.75, (0, 1, 2)),
    ];
    let standings = standings(4, &four());
    for (line, (entrant, rank, points, buchholz, sb, (w, d, l))) in standings.iter().zip(table) {
        assert_eq!(line.entrant, entrant, "{standings:?}");
        assert_eq!(line.rank, rank);
        assert_eq!(
            (line.points, line.buchholz, line.sonneborn_berger),
            (points, buchholz, sb),
            "entrant {entrant}"
        );
        assert_eq!((line.wins, line.draws, line.losses), (w, d, l));
        assert_eq!(line.games, 3);
    }
}

#[test]
fn a_bye_scores_a_point_and_adds_nothing_to_the_tie_breaks() {
    // Three entrants: 0 beats 1 while 2 sits out; 2 beats 0 while 1 sits out.
    let played = [
        game(0, 0, 1, Outcome::FirstWon),
        bye(0, 2),
        game(1, 2, 0, Outcome::FirstWon),
        bye(1, 1),
    ];
    let standings = standings(3, &played);
    let line = |entrant: Entrant| {
        standings
            .iter()
            .find(|s| s.entrant == entrant)
            .expect("listed")
            .clone()
    };
    assert_eq!((line(2).points, line(2).byes, line(2).games), (2.0, 1, 1));
    // 2 met only 0 (1 point): its Buchholz is 1, its Sonneborn–Berger 1.
    assert_eq!((line(2).buchholz, line(2).sonneborn_berger), (1.0, 1.0));
    assert_eq!((line(1).points, line(1).buchholz), (1.0, 1.0));
    assert_eq!(standings[0].entrant, 2);
}

#[test]
fn entrants_equal_on_everything_share_their_place() {
    let played = [game(0, 0, 1, Outcome::Draw), game(0, 2, 3, Outcome::Draw)];
    let ranks: Vec<usize> = standings(4, &played).iter().map(|s| s.rank).collect();
    assert_eq!(ranks, [1, 1, 1, 1]);
    let ranks: Vec<(Entrant, usize)> = standings(4, &[game(0, 3, 1, Outcome::FirstWon)])
        .iter()
        .map(|s| (s.entrant, s.rank))
        .collect();
    // 1 lost, but to the leader: its Buchholz (1) puts it above 0 and 2, who did not play.
    assert_eq!(ranks, [(3, 1), (1, 2), (0, 3), (2, 3)]);
}

#[test]
fn the_crosstable_shows_each_games_points_for_each_side() {
    let mut played = four();
    // A second cycle's first game: B beats A.
    played.push(game(3, 1, 0, Outcome::FirstWon));
    let table = crosstable(4, &played);
    assert_eq!(table[0][1], [2, 0]);
    assert_eq!(table[1][0], [0, 2]);
    assert_eq!(table[2][3], [1]);
    assert!(table[0][0].is_empty());
    assert!(have_met(&played, 3, 0) && have_met(&played, 0, 3));
    assert!(!have_met(&[bye(0, 1)], 1, 1));
}
