//! The probability model fed from real views (`crate::odds`).

use super::*;
use crate::odds::{Evidence, History, Odds, public_graph};

fn gm(o: &Odds) -> u32 {
    o.great_misfortune
}

#[test]
fn views_feed_the_model_public_and_private() {
    // 8 players: a wrong pathfinder makes one GM a ghost, publicly a GM; the game goes on.
    let mut t = Table::new(8, 21);
    t.advance_to_night();
    t.awaken_all();
    let gms = t.seats_with(Role::GreatMisfortune);
    let named = t.seats_with(Role::CommonFortune)[0];
    let other_cf = t.seats_with(Role::CommonFortune)[1];
    t.night(
        gms[0],
        NightForm {
            fate: Some(Fate::Pathfinder(Seat(named))),
            ..NightForm::default()
        },
    )
    .expect("pathfinder");
    t.advance_to(PhaseKind::Discussion);
    assert!(t.state.finish.is_none(), "one GM still lives");
    assert_eq!(t.state.round, 2);

    // The public history is the same from every viewer's view.
    let public = History::public_from_view(&FateTokens::view(&t.state, Viewer::Spectator));
    for seat in 0..8 {
        let seen = History::public_from_view(&FateTokens::view(&t.state, Viewer::Seat(Seat(seat))));
        assert_eq!(seen, public, "seat {seat}");
    }
    assert_eq!((public.players, public.rounds), (8, 2));
    let revealed = public
        .observations
        .iter()
        .filter(|o| matches!(o.evidence, Evidence::Revealed(_)))
        .count();
    // Round 1: 8 players; round 2: the 7 living.
    assert_eq!(revealed, 8 + 7);

    let odds = public.odds().expect("consistent");
    assert!(
        odds.iter()
            .all(|o| o.common_fortune + o.great_fortune + o.great_misfortune == 1000)
    );
    assert_eq!(gm(&odds[usize::from(gms[0])]), 1000, "publicly a GM");
    assert_eq!(
        odds[usize::from(named)].great_fortune,
        0,
        "named, so not the GF"
    );
    let graph = public_graph(&public).expect("consistent");
    assert_eq!(graph.len(), 2);
    assert_eq!(graph[1], odds);

    // A CF's private odds: itself 1000 CF; the second GM is among the other 6.
    let cf_view = FateTokens::view(&t.state, Viewer::Seat(Seat(other_cf)));
    let private = History::private_from_view(&cf_view)
        .odds()
        .expect("consistent");
    assert_eq!(private[usize::from(other_cf)].common_fortune, 1000);
    assert_eq!(gm(&private[usize::from(gms[0])]), 1000);

    // The living GM knows both GMs: everyone else is 0 GM.
    let gm_view = FateTokens::view(&t.state, Viewer::Seat(Seat(gms[1])));
    let private = History::private_from_view(&gm_view)
        .odds()
        .expect("consistent");
    for (seat, o) in private.iter().enumerate() {
        let is_gm = gms.contains(&u8::try_from(seat).expect("small"));
        assert_eq!(gm(o), if is_gm { 1000 } else { 0 }, "seat {seat}");
    }
}
