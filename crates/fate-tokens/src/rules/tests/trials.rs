//! Accusations, trials, votes, exiles, the counter right and claims (sections 10, 14 to 18).

use super::*;
use crate::state::{Trial, Verdict};

/// A table in round 3's accusation phase, everyone awake.
fn at_accusation(players: u8, seed: u64) -> Table {
    let mut t = Table::new(players, seed);
    t.advance_to(PhaseKind::Accusation);
    assert_eq!(t.state.round, 3, "D1: accusations from round 3");
    t.awaken_all();
    t
}

/// A table in round 3's trial of `accused`, accused by `accuser`, the night on defaults.
fn on_trial(players: u8, seed: u64, accuser: u8, accused: u8) -> Table {
    let mut t = at_accusation(players, seed);
    t.accuse(accuser, Some(accused)).expect("accusation");
    t.advance_to(PhaseKind::Trial);
    let trial = t.state.trial_now().expect("a trial");
    assert_eq!(
        (trial.accuser, trial.accused),
        (Seat(accuser), Seat(accused))
    );
    t
}

/// Every voter votes `yes`, except the first `no` voters, who vote no.
fn vote_all(t: &mut Table, no: usize) {
    t.advance_to(PhaseKind::Vote);
    let voters: Vec<Seat> = t.state.pending().iter().collect();
    for (i, seat) in voters.into_iter().enumerate() {
        t.vote(seat.0, i >= no).expect("vote");
    }
}

#[test]
fn the_accusation_phase_opens_from_round_three() {
    let mut t = Table::new(6, 3);
    let mut seen = Vec::new();
    while !(t.state.round == 3 && t.kind() == PhaseKind::Night) {
        seen.push((t.state.round, t.kind()));
        t.timeout();
    }
    // Rule 6.1 (D1): P3 only in rounds 3 and later, between the discussion and the night.
    assert!(
        !seen
            .iter()
            .any(|&(r, k)| r < 3 && k == PhaseKind::Accusation)
    );
    let round3: Vec<PhaseKind> = seen
        .iter()
        .filter(|(r, _)| *r == 3)
        .map(|(_, k)| *k)
        .collect();
    assert_eq!(
        round3,
        vec![
            PhaseKind::Draw,
            PhaseKind::Discussion,
            PhaseKind::Accusation
        ]
    );
    // Rule 10.2: every living player owes; only another living player may be accused.
    let mut t = at_accusation(6, 3);
    assert_eq!(t.state.pending(), SeatSet::first(6));
    assert!(matches!(t.accuse(0, Some(0)), Err(RuleError::Illegal(_))));
    assert!(matches!(t.accuse(0, Some(7)), Err(RuleError::Illegal(_))));
    t.state.players[5].life = Life::Ghost;
    assert!(matches!(t.accuse(0, Some(5)), Err(RuleError::Illegal(_))));
    assert_eq!(FateTokens::legal_actions(&t.state, Seat(0)).len(), 1 + 4);
    t.accuse(0, Some(1)).expect("accusation");
    // Rule 22.3: one's own accusation, and nobody else's (the leak test checks the rest).
    let own = FateTokens::view(&t.state, Viewer::Seat(Seat(0)))
        .own
        .expect("own");
    assert_eq!(own.accused, Some(Seat(1)));
    // Rule 10.5: the default is a pass.
    t.timeout();
    assert_eq!(t.kind(), PhaseKind::Night);
    assert_eq!(t.state.accusations.len(), 1, "passes are not accusations");
}

#[test]
fn only_the_first_valid_accusation_proceeds() {
    // Eight players, two GMs, so that one failed pathfinder does not end the game (W2).
    let probe = at_accusation(8, 21);
    let gms = probe.seats_with(Role::GreatMisfortune);
    let c = probe.seats_with(Role::CommonFortune);
    let (g0, named) = (gms[0], c[4]);
    // (case, accusations in acceptance order, whether g0 fails a pathfinder, expected).
    type Case = (&'static str, Vec<(u8, u8)>, bool, Option<(u8, u8)>);
    let cases: Vec<Case> = vec![
        (
            "first proceeds",
            vec![(c[0], c[1]), (c[2], c[3])],
            false,
            Some((c[0], c[1])),
        ),
        (
            "acceptance order, not seat order",
            vec![(c[3], c[2]), (c[0], c[1])],
            false,
            Some((c[3], c[2])),
        ),
        (
            "accuser became a ghost (D7)",
            vec![(g0, c[1]), (c[2], c[3])],
            true,
            Some((c[2], c[3])),
        ),
        (
            "accused became a ghost (D7)",
            vec![(c[0], g0), (c[2], c[3])],
            true,
            Some((c[2], c[3])),
        ),
        ("only invalid ones", vec![(c[0], g0)], true, None),
        ("everyone passes", vec![], false, None),
    ];
    for (name, accusations, pathfinder, expected) in cases {
        let mut t = at_accusation(8, 21);
        for &(accuser, accused) in &accusations {
            t.accuse(accuser, Some(accused)).expect(name);
        }
        t.advance_to(PhaseKind::Night);
        if pathfinder {
            t.night(
                g0,
                NightForm {
                    fate: Some(Fate::Pathfinder(Seat(named))),
                    ..NightForm::default()
                },
            )
            .expect(name);
        }
        let bags: Vec<Bag> = t.state.players.iter().map(|p| p.bag).collect();
        let events = t.timeout();
        assert!(t.state.finish.is_none(), "{name}");
        let shown = announcement(&events).accusation;
        let got = shown.map(|a| (a.accuser.0, a.accused.0));
        assert_eq!(got, expected, "{name}");
        match shown {
            Some(a) => {
                // D8: the price comes from the accuser's bag and goes back.
                let bag = bags[a.accuser.index()];
                assert!(bag.count(a.price) > 0, "{name}");
                assert_eq!(t.state.players[a.accuser.index()].bag, bag, "{name}");
                assert_eq!(t.kind(), PhaseKind::Trial, "{name}");
                // Rule 5.5: the accusation counts in the lock.
                let items = 1 + u64::from(pathfinder);
                assert_eq!(
                    announcement(&events).lock_ms,
                    3_000 + 2_000 * items,
                    "{name}"
                );
            }
            None => {
                // Rule 14.7: no trial, no vote.
                assert_eq!(t.kind(), PhaseKind::ClaimCounter, "{name}");
                assert!(t.state.trials.is_empty(), "{name}");
            }
        }
    }
}

#[test]
fn the_trial_ends_early_when_everyone_is_ready() {
    let mut t = on_trial(6, 5, 0, 1);
    // D33: ready from every living player ends it; chat does not (rule 5.6).
    assert_eq!(t.state.pending(), SeatSet::first(6));
    for seat in 0..5 {
        t.ready(seat).expect("ready");
    }
    assert_eq!(t.kind(), PhaseKind::Trial);
    t.ready(5).expect("ready");
    assert_eq!(t.kind(), PhaseKind::Vote);
    // Rule 14.3: the trial's deadline gives no default and is no timeout.
    let mut t = on_trial(6, 5, 0, 1);
    let events = t.timeout();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.event, FateEvent::Defaulted { .. }))
    );
    assert_eq!(t.kind(), PhaseKind::Vote);
}

#[test]
fn votes_exile_on_more_yes_than_no() {
    // Five players: four voters, so that ties can happen. (votes, ghost, yes, no, exiled).
    type Case = (&'static str, Vec<Option<bool>>, bool, u32, u32, bool);
    let cases: Vec<Case> = vec![
        (
            "three to one",
            vec![Some(true), Some(true), Some(true), Some(false)],
            false,
            3,
            1,
            true,
        ),
        (
            "a tie exiles nobody",
            vec![Some(true), Some(true), Some(false), Some(false)],
            false,
            2,
            2,
            false,
        ),
        (
            "missing votes are no",
            vec![Some(true), Some(true), None, None],
            false,
            2,
            2,
            false,
        ),
        (
            "three and a missing vote",
            vec![Some(true), None, Some(true), Some(true)],
            false,
            3,
            1,
            true,
        ),
        (
            "nobody votes",
            vec![None, None, None, None],
            false,
            0,
            4,
            false,
        ),
        (
            "ghosts do not vote",
            vec![Some(true), Some(true), Some(false)],
            true,
            2,
            1,
            true,
        ),
    ];
    for (name, votes, ghost, yes, no, exiled) in cases {
        let probe = at_accusation(5, 8);
        let cfs = probe.seats_with(Role::CommonFortune);
        let (accuser, accused) = (cfs[0], cfs[1]);
        let mut t = at_accusation(5, 8);
        if ghost {
            t.state.players[usize::from(cfs[2])].life = Life::Ghost;
        }
        t.accuse(accuser, Some(accused)).expect(name);
        t.advance_to(PhaseKind::Vote);
        // D9: the accused does not vote, the accuser does, ghosts do not.
        let voters: Vec<Seat> = t.state.pending().iter().collect();
        assert!(!voters.contains(&Seat(accused)), "{name}");
        assert!(voters.contains(&Seat(accuser)), "{name}");
        assert_eq!(voters.len(), votes.len(), "{name}");
        for (seat, vote) in voters.iter().zip(&votes) {
            if let Some(yes) = vote {
                t.vote(seat.0, *yes).expect(name);
            }
        }
        let events = if votes.iter().all(Option::is_some) {
            t.events.clone()
        } else {
            t.timeout()
        };
        let resolved = events
            .iter()
            .find_map(|e| match e.event {
                FateEvent::VoteResolved {
                    yes, no, exiled, ..
                } => {
                    assert_eq!(e.visibility, Visibility::Everyone);
                    Some((yes, no, exiled))
                }
                _ => None,
            })
            .expect(name);
        assert_eq!(resolved, (yes, no, exiled), "{name}");
        assert_eq!(t.kind(), PhaseKind::ClaimCounter, "{name}");
        // Rule 5.5: the 4 s vote lock.
        assert_eq!(t.state.opens_at_ms, t.now + 4_000, "{name}");
        let life = t.state.players[usize::from(accused)].life;
        assert_eq!(life == Life::Exiled, exiled, "{name}");
        let public = FateTokens::view(&t.state, Viewer::Spectator);
        assert_eq!(public.trials[0].totals, Some((yes, no)), "{name}");
        assert_eq!(public.trials[0].was_great_misfortune, None, "{name}: D10");
    }
}

#[test]
fn exile_resolution_for_each_role() {
    for role in [
        Role::CommonFortune,
        Role::GreatFortune,
        Role::GreatMisfortune,
    ] {
        let probe = at_accusation(6, 14);
        let accused = probe.seats_with(role)[0];
        let accuser = probe
            .seats_with(Role::CommonFortune)
            .into_iter()
            .find(|&s| s != accused)
            .expect("a CF");
        let mut t = on_trial(6, 14, accuser, accused);
        t.state.players[usize::from(accused)].awakened = false;
        vote_all(&mut t, 1);
        let trial: Trial = t.state.trial_now().cloned().expect("trial");
        assert!(trial.exiled, "{role:?}: 4 yes, 1 no");
        // Rule 14.6: no longer living, not yet said to be a GM or not.
        assert_eq!(t.state.players[usize::from(accused)].life, Life::Exiled);
        let opened = t
            .events
            .iter()
            .rev()
            .find_map(|e| match e.event {
                FateEvent::CounterOpened { holds, role, .. } => Some((e.visibility, holds, role)),
                _ => None,
            })
            .expect("rule 15.4: the exiled player is asked");
        let gm = role == Role::GreatMisfortune;
        assert_eq!(
            opened,
            (Visibility::only(Seat(accused)), gm, gm.then_some(role))
        );
        let bags: Vec<Bag> = t.state.players.iter().map(|p| p.bag).collect();
        t.open();
        t.counter(accused, None).expect("decline");
        let events = t.timeout();
        let p = &t.state.players[usize::from(accused)];
        let public = FateTokens::view(&t.state, Viewer::Spectator);
        let votes = t.state.trials[0].votes.clone().expect("votes");
        if gm {
            // Rule 16.2, D23: out, publicly a GM; W4: no GM lives, Good wins.
            assert_eq!(p.life, Life::Out);
            assert_eq!(
                public.seats[usize::from(accused)].was_great_misfortune,
                Some(true)
            );
            let finish = t.state.finish.clone().expect("W4");
            assert_eq!(
                (finish.winner, finish.reason),
                (Side::Good, WinReason::NoGreatMisfortune)
            );
            assert_eq!(finish.sides[usize::from(accused)], Side::Misfortune);
            let now: Vec<Bag> = t.state.players.iter().map(|p| p.bag).collect();
            assert_eq!(now, bags, "no vote penalty for exiling a GM");
        } else {
            // Rule 16.3: a ghost on the Misfortune side, told their role, and the penalty.
            assert_eq!(p.life, Life::Ghost);
            assert_eq!(p.side(), Side::Misfortune);
            assert_eq!(
                public.seats[usize::from(accused)].was_great_misfortune,
                Some(false)
            );
            assert!(
                events
                    .iter()
                    .any(|e| e.visibility == Visibility::only(Seat(accused))
                        && e.event == FateEvent::RoleTold { role })
            );
            for (i, vote) in votes.iter().enumerate() {
                let expected = match vote {
                    Some(true) => bags[i].with_added(Token::Bad),
                    _ => bags[i],
                };
                assert_eq!(t.state.players[i].bag, expected, "{role:?} seat {i}");
                let told = t.state.players[i]
                    .results
                    .contains(&NightResult::VotePenalty { round: 3 });
                assert_eq!(told, *vote == Some(true), "{role:?} seat {i}");
            }
            // W4 finds no win; rule 16.4: the 4 s lock, then round 4.
            assert!(t.state.finish.is_none());
            assert_eq!((t.state.round, t.kind()), (4, PhaseKind::Draw));
            assert_eq!(t.state.opens_at_ms, t.now + 4_000);
            assert!(
                !t.state.pending().contains(Seat(accused)),
                "ghosts do not draw"
            );
        }
        let resolved = events
            .iter()
            .find_map(|e| match e.event {
                FateEvent::ExileResolved {
                    seat,
                    was_great_misfortune,
                    counter,
                } => Some((seat, was_great_misfortune, counter)),
                _ => None,
            })
            .expect("exile resolution");
        assert_eq!(resolved, (Seat(accused), gm, gm.then_some(None)));
    }
}

#[test]
fn the_counter_right_names_the_great_fortune_or_fails() {
    let probe = at_accusation(6, 14);
    let gm = probe.seats_with(Role::GreatMisfortune)[0];
    let gf = probe.seats_with(Role::GreatFortune)[0];
    let cfs = probe.seats_with(Role::CommonFortune);
    // (case, named, winner, reason).
    let cases = [
        (
            "names the GF: W3 before W4",
            Some(gf),
            Side::Misfortune,
            WinReason::Counter,
        ),
        (
            "names a CF: fails, then W4",
            Some(cfs[1]),
            Side::Good,
            WinReason::NoGreatMisfortune,
        ),
        ("declines", None, Side::Good, WinReason::NoGreatMisfortune),
    ];
    for (name, named, winner, reason) in cases {
        let mut t = on_trial(6, 14, cfs[0], gm);
        vote_all(&mut t, 0);
        t.open();
        // D19: only living players can be named; the exiled GM is not living.
        assert!(
            matches!(t.counter(gm, Some(gm)), Err(RuleError::Illegal(_))),
            "{name}"
        );
        assert_eq!(
            FateTokens::legal_actions(&t.state, Seat(gm)).len(),
            1 + 5,
            "{name}: decline or one of the five living"
        );
        // Rule 22.3: the holder sees their role and the open right.
        let own = FateTokens::view(&t.state, Viewer::Seat(Seat(gm)))
            .own
            .expect("own");
        assert_eq!(
            (own.role, own.counter_right),
            (Some(Role::GreatMisfortune), Some(true))
        );
        // Answered after the minimum: the phase ends at once (rule 15.5).
        t.now = t.state.opens_at_ms + 6_000;
        t.counter(gm, named).expect(name);
        assert_ne!(t.kind(), PhaseKind::ClaimCounter, "{name}");
        let finish = t.state.finish.clone().expect(name);
        assert_eq!((finish.winner, finish.reason), (winner, reason), "{name}");
        if let Some(y) = named.filter(|&y| y != gf) {
            assert!(t.state.players[usize::from(y)].not_great_fortune, "{name}");
            assert_eq!(t.state.players[usize::from(gm)].life, Life::Out, "{name}");
        }
    }
    // With two GMs, the first one exiled leaves a fellow living: it holds no counter right
    // (rule 15.4), may only decline, and the game runs on (rule 16.2, W4).
    let probe = at_accusation(8, 21);
    let gms = probe.seats_with(Role::GreatMisfortune);
    let cfs = probe.seats_with(Role::CommonFortune);
    let mut t = on_trial(8, 21, cfs[0], gms[0]);
    vote_all(&mut t, 0);
    t.open();
    let own = FateTokens::view(&t.state, Viewer::Seat(Seat(gms[0])))
        .own
        .expect("own");
    assert_eq!(own.counter_right, Some(false));
    assert_eq!(FateTokens::legal_actions(&t.state, Seat(gms[0])).len(), 1);
    assert!(matches!(
        t.counter(gms[0], Some(cfs[1])),
        Err(RuleError::Illegal(_))
    ));
    t.counter(gms[0], None).expect("decline");
    t.timeout();
    assert!(t.state.finish.is_none());
    assert_eq!(t.state.players[usize::from(gms[0])].life, Life::Out);
    assert!(!t.state.players[usize::from(cfs[1])].not_great_fortune);
    let public = FateTokens::view(&t.state, Viewer::Spectator);
    assert_eq!(public.trials[0].counter, Some(None));
    assert_eq!(public.trials[0].was_great_misfortune, Some(true));
    // An out player reads Everyone and writes nowhere (rule 16.6).
    let say = FateAction::Chat {
        channel: Channel::Everyone,
        text: "unfair".to_owned(),
    };
    assert!(t.act(gms[0], say).is_err());
}

#[test]
fn an_exiled_non_gm_may_only_decline() {
    let probe = at_accusation(6, 14);
    let cfs = probe.seats_with(Role::CommonFortune);
    let mut t = on_trial(6, 14, cfs[0], cfs[1]);
    vote_all(&mut t, 0);
    t.open();
    assert_eq!(FateTokens::legal_actions(&t.state, Seat(cfs[1])).len(), 1);
    assert!(matches!(
        t.counter(cfs[1], Some(cfs[2])),
        Err(RuleError::Illegal(_))
    ));
    assert_eq!(t.counter(cfs[0], None), Err(RuleError::NotYourTurn));
    t.counter(cfs[1], None).expect("decline");
    assert_eq!(t.counter(cfs[1], None), Err(RuleError::AlreadyActed));
}

/// Swaps the roles (and bags) of two seats.
fn swap_roles(state: &mut FateState, a: u8, b: u8) {
    let (a, b) = (usize::from(a), usize::from(b));
    let (ra, ba) = (state.players[a].role, state.players[a].bag);
    state.players[a].role = state.players[b].role;
    state.players[a].bag = state.players[b].bag;
    state.players[b].role = ra;
    state.players[b].bag = ba;
}

#[test]
fn nothing_public_shows_whether_a_counter_right_exists() {
    // The same exile twice: of a CF, and, with the roles swapped, of the GM.
    let probe = at_accusation(6, 14);
    let gm = probe.seats_with(Role::GreatMisfortune)[0];
    let cfs = probe.seats_with(Role::CommonFortune);
    let exiled = cfs[1];
    let mut without = on_trial(6, 14, cfs[0], exiled);
    vote_all(&mut without, 0);
    let mut with = Table {
        state: without.state.clone(),
        rng: ChaCha8Rng::seed_from_u64(77),
        now: without.now,
        events: Vec::new(),
    };
    without.rng = ChaCha8Rng::seed_from_u64(77);
    swap_roles(&mut with.state, exiled, gm);
    assert!(with.state.holds_counter(Seat(exiled)));
    assert!(!without.state.holds_counter(Seat(exiled)));
    let bystanders: Vec<Viewer> = std::iter::once(Viewer::Spectator)
        .chain(
            (0..6u8)
                .filter(|&s| s != exiled && s != gm)
                .map(|s| Viewer::Seat(Seat(s))),
        )
        .collect();
    let same = |a: &Table, b: &Table, when: &str| {
        assert_eq!(
            FateTokens::to_act(&a.state),
            FateTokens::to_act(&b.state),
            "{when}"
        );
        assert_eq!(
            FateTokens::deadline(&a.state),
            FateTokens::deadline(&b.state),
            "{when}"
        );
        for &viewer in &bystanders {
            assert_eq!(
                a.view_json(viewer),
                b.view_json(viewer),
                "{when}: {viewer:?}"
            );
        }
    };
    // Rule 5.5: the lock hides it as well as the open phase does.
    same(&with, &without, "during the lock");
    with.open();
    without.open();
    // Rule 15.5: the exiled player is pending either way, with the same 10 s deadline.
    same(&with, &without, "when the phase opens");
    assert_eq!(
        FateTokens::to_act(&with.state),
        ToAct::Simultaneous {
            phase: with.phase(),
            pending: SeatSet::only(Seat(exiled)),
        }
    );
    assert_eq!(
        FateTokens::deadline(&with.state),
        Some(with.state.opens_at_ms + 10_000)
    );
    // An early answer holds the phase to the 4 s minimum, either way, with the same
    // public events.
    for t in [&mut with, &mut without] {
        t.now = t.state.opens_at_ms + 1_000;
    }
    let a = with.counter(exiled, None).expect("decline");
    let b = without.counter(exiled, None).expect("decline");
    let public = |events: &Events<FateEvent>| -> Vec<FateEvent> {
        events
            .iter()
            .filter(|e| e.visibility == Visibility::Everyone)
            .map(|e| e.event.clone())
            .collect()
    };
    assert_eq!(public(&a), public(&b));
    same(&with, &without, "after an early answer");
    assert_eq!(
        FateTokens::deadline(&with.state),
        Some(with.state.opens_at_ms + 4_000)
    );
    assert_eq!(with.kind(), PhaseKind::ClaimCounter);
    // Without an exile nobody is pending and the wait is random (rule 15.5, D12).
    let mut t = at_accusation(6, 14);
    t.advance_to(PhaseKind::ClaimCounter);
    assert_eq!(FateTokens::to_act(&t.state), ToAct::Nobody);
    let wait = t.state.deadline_ms.expect("deadline") - t.state.opens_at_ms;
    assert!((4_000..=10_000).contains(&wait) && wait.is_multiple_of(100));
    // A holder who never answers declines at the deadline (rule 15.6).
    let mut t = on_trial(6, 14, cfs[0], gm);
    vote_all(&mut t, 0);
    let opens = t.state.opens_at_ms;
    t.timeout();
    assert_eq!(t.now, opens + 10_000);
    assert_eq!(t.state.trials[0].counter, Some(None));
}

#[test]
fn claims_follow_their_windows_and_get_verdicts() {
    let mut t = Table::new(6, 9);
    t.advance_to_night();
    t.awaken_all();
    let gm = t.seats_with(Role::GreatMisfortune)[0];
    let gf = t.seats_with(Role::GreatFortune)[0];
    let cfs = t.seats_with(Role::CommonFortune);
    let others: Vec<u8> = (0..6u8).filter(|&s| s != cfs[0] && s != cfs[1]).collect();
    let pair = [others[0], others[1]];
    for cf in [cfs[0], cfs[1]] {
        t.night(
            cf,
            NightForm {
                helper: Some(Helper {
                    targets: pair.map(Seat),
                    good: false,
                    neutral: false,
                }),
                ..NightForm::default()
            },
        )
        .expect("helper");
    }
    // Rule 7.4: no claim before the window opens.
    assert!(t.claim(cfs[0], pair, 0).is_err());
    t.timeout();
    assert_eq!(t.kind(), PhaseKind::ClaimCounter);
    let true_bad = t.state.bad_during(pair.map(Seat), 1);
    let wrong = if true_bad == 0 { 1 } else { true_bad - 1 };
    let cf2_pair = t.state.nights[0].forms[usize::from(cfs[2])]
        .as_ref()
        .and_then(|f| f.helper)
        .expect("default helper")
        .targets;
    let not_cf2 = (0..6u8)
        .filter(|&s| s != cfs[2] && !cf2_pair.contains(&Seat(s)))
        .take(2)
        .collect::<Vec<u8>>();
    let before = (t.state.deadline_ms, t.state.pending());
    // (case, seat, pair, number, accepted).
    let cases: Vec<(&str, u8, [u8; 2], u32, bool)> = vec![
        ("CF, own pair, true", cfs[0], pair, true_bad, true),
        ("one claim a window", cfs[0], pair, true_bad, false),
        (
            "CF, pair reversed, false number",
            cfs[1],
            [pair[1], pair[0]],
            wrong,
            true,
        ),
        (
            "CF, not their targets (D29)",
            cfs[2],
            [not_cf2[0], not_cf2[1]],
            0,
            false,
        ),
        ("GM names themselves", gm, [gm, cfs[0]], 0, false),
        (
            "GM, number over the piles (rule 17.3)",
            gm,
            [cfs[0], cfs[1]],
            3,
            false,
        ),
        ("GM, same player twice", gm, [cfs[0], cfs[0]], 0, false),
        ("GM, any pair", gm, [cfs[0], cfs[1]], 1, true),
    ];
    for (name, seat, pair, bad, ok) in cases {
        let result = t.claim(seat, pair, bad);
        assert_eq!(result.is_ok(), ok, "{name}: {result:?}");
        if let Ok(events) = result {
            assert!(
                events.iter().all(|e| e.visibility == Visibility::Everyone),
                "{name}"
            );
        }
    }
    // Rule 5.6: claims never move a deadline or who owes.
    assert_eq!((t.state.deadline_ms, t.state.pending()), before);
    // Rule 7.4: no claim before awakening.
    t.state.players[usize::from(gf)].awakened = false;
    assert!(t.claim(gf, [cfs[0], cfs[1]], 0).is_err());
    t.state.players[usize::from(gf)].awakened = true;
    let public = FateTokens::view(&t.state, Viewer::Spectator);
    assert_eq!(public.claims.len(), 3);
    assert!(public.revealed.is_none());
    // Rule 17.2: the window stays open through the next draw and discussion...
    t.timeout();
    assert_eq!((t.state.round, t.kind()), (2, PhaseKind::Draw));
    assert_eq!(t.state.claim_window(), Some(1));
    t.claim(gf, [cfs[0], cfs[2]], 0).expect("GF in window 1");
    t.timeout();
    assert_eq!(t.kind(), PhaseKind::Discussion);
    assert_eq!(t.state.claim_window(), Some(1));
    // ...and closes when the discussion ends.
    t.timeout();
    assert_eq!(t.kind(), PhaseKind::Night);
    assert!(t.claim(cfs[2], [cf2_pair[0].0, cf2_pair[1].0], 0).is_err());
    t.timeout();
    // Window 2: the GM claimed in window 1, so not now (every other day at most).
    assert_eq!(t.state.claim_window(), Some(2));
    assert!(t.claim(gm, [cfs[0], cfs[1]], 0).is_err(), "every other day");
    let own = FateTokens::view(&t.state, Viewer::Seat(Seat(gm)))
        .own
        .expect("own");
    assert_eq!(own.claim, None);
    // Rule 17.6: verdicts when the game is decided.
    t.state.players[usize::from(gm)].life = Life::Ghost;
    let now = t.now;
    let events = t
        .state
        .check_win(false, &Ctx::new(now, &mut t.rng))
        .expect("Good wins");
    let verdicts = events
        .iter()
        .find_map(|e| match &e.event {
            FateEvent::Verdicts(v) => Some(v.clone()),
            _ => None,
        })
        .expect("verdicts");
    let got: Vec<(u8, Verdict, u32)> = verdicts
        .iter()
        .map(|j| (j.claim.claimant.0, j.verdict, j.true_bad))
        .collect();
    let gf_true = t.state.bad_during([Seat(cfs[0]), Seat(cfs[2])], 1);
    let gm_true = t.state.bad_during([Seat(cfs[0]), Seat(cfs[1])], 1);
    assert_eq!(
        got,
        vec![
            (cfs[0], Verdict::Honest, true_bad),
            (cfs[1], Verdict::WrongNumber, true_bad),
            (gm, Verdict::NoHelper, gm_true),
            (gf, Verdict::NoHelper, gf_true),
        ]
    );
    let view = FateTokens::view(&t.state, Viewer::Spectator);
    assert_eq!(view.revealed.expect("rule 22.6").verdicts, verdicts);
    assert!(t.claim(cfs[0], pair, 0).is_err(), "closed once decided");
}

#[test]
fn win_checks_after_an_exile() {
    // W4, parity (rule 18.1 (c)): four players, one CF already a ghost; exiling the other
    // leaves one GM against the GF.
    let probe = at_accusation(4, 6);
    let gf = probe.seats_with(Role::GreatFortune)[0];
    let gm = probe.seats_with(Role::GreatMisfortune)[0];
    let cfs = probe.seats_with(Role::CommonFortune);
    let mut t = at_accusation(4, 6);
    t.state.players[usize::from(cfs[1])].life = Life::Ghost;
    t.accuse(gf, Some(cfs[0])).expect("accusation");
    t.advance_to(PhaseKind::Vote);
    assert_eq!(t.state.pending(), SeatSet::from_iter([Seat(gf), Seat(gm)]));
    vote_all(&mut t, 0);
    t.timeout();
    let finish = t.state.finish.clone().expect("W4");
    assert_eq!(
        (finish.winner, finish.reason),
        (Side::Misfortune, WinReason::Parity)
    );
    // D36: the new ghost plays for the Misfortune side; the GF alone for Good.
    let good: Vec<usize> = (0..4).filter(|&i| finish.sides[i] == Side::Good).collect();
    assert_eq!(good, vec![usize::from(gf)]);
    // Rule 19.1: W4 enters the ending at once, without the exile lock.
    assert_eq!(t.state.opens_at_ms, t.now);

    // W5 in the last round, after an exile that decided nothing: the ending opens after
    // the exile lock (rules 16.4, 18.4, D35).
    let probe = at_accusation(6, 14);
    let cfs = probe.seats_with(Role::CommonFortune);
    let mut t = on_trial(6, 14, cfs[0], cfs[1]);
    t.state.row.round_cap = 3;
    vote_all(&mut t, 0);
    t.timeout();
    let finish = t.state.finish.clone().expect("W5");
    assert_eq!(
        (finish.winner, finish.reason),
        (Side::Misfortune, WinReason::RoundCap)
    );
    assert_eq!(t.kind(), PhaseKind::Ending);
    assert_eq!(t.state.opens_at_ms, t.now + 4_000);
}

#[test]
fn a_bag_change_reaches_its_owners_view_with_the_results() {
    // Rules 12.4 and 15.2 (D25): the notice of a curse arrives when the claim/counter phase
    // opens, after the trial and the vote; the own view's bag (D6) must not show it sooner, or
    // the cursed player would know during the trial.
    let probe = at_accusation(6, 14);
    let gm = probe.seats_with(Role::GreatMisfortune)[0];
    let cfs = probe.seats_with(Role::CommonFortune);
    let cursed = cfs[2];
    let mut t = at_accusation(6, 14);
    t.accuse(cfs[0], Some(cfs[1])).expect("accusation");
    t.advance_to(PhaseKind::Night);
    t.night(
        gm,
        NightForm {
            fate: Some(Fate::Curse(Seat(cursed))),
            ..NightForm::default()
        },
    )
    .expect("curse");
    let bag = t.state.players[usize::from(cursed)].bag;
    // (phase, the bag in the cursed player's own view, the notice received)
    let expected = [
        (PhaseKind::Trial, bag, false),
        (PhaseKind::Vote, bag, false),
        (PhaseKind::ClaimCounter, bag.with_added(Token::Bad), true),
    ];
    for (kind, shown, told) in expected {
        t.advance_to(kind);
        let own = FateTokens::view(&t.state, Viewer::Seat(Seat(cursed)))
            .own
            .expect("own");
        assert_eq!(own.bag, Some(shown), "{kind:?}");
        let notice = NightResult::BagGained { token: Token::Bad };
        assert_eq!(own.results.contains(&notice), told, "{kind:?}");
    }
    assert_eq!(
        t.state.players[usize::from(cursed)].bag,
        bag.with_added(Token::Bad)
    );
}
