//! The night in detail (sections 11 to 13): the order of steps N1 to N7, rule 12.3's
//! interactions, ghosts' forms, the helper, the suspicion threshold and the night's lock (rule
//! 5.5).

use super::*;
use crate::night::default_form;

/// The seats of a deal, by role.
struct Cast {
    gms: Vec<u8>,
    gf: u8,
    cfs: Vec<u8>,
}

impl Cast {
    fn of(t: &Table) -> Cast {
        Cast {
            gms: t.seats_with(Role::GreatMisfortune),
            gf: t.seats_with(Role::GreatFortune)[0],
            cfs: t.seats_with(Role::CommonFortune),
        }
    }
}

/// A table at the night of `round` (defaults until then), everyone awake and each CF on a
/// helper night, with the last `ghosts` CFs ghosts since before the night opened, so that
/// they owe a form (rule 11.1).
fn awake_night(players: u8, seed: u64, round: u32, ghosts: usize) -> (Table, Cast) {
    let mut t = Table::new(players, seed);
    while !(t.state.round == round && t.kind() == PhaseKind::Night) {
        t.timeout();
    }
    t.open();
    let cast = Cast::of(&t);
    for &g in cast.cfs.iter().rev().take(ghosts) {
        t.state.players[usize::from(g)].life = Life::Ghost;
    }
    t.state.owed = t
        .state
        .living_set()
        .iter()
        .chain(t.state.ghost_set().iter())
        .collect();
    t.awaken_all();
    (t, cast)
}

/// Sends `form` for `seat`, with the helper's default added on the seat's helper night
/// (rule 11.12.2), so that every form here is legal.
fn send(t: &mut Table, seat: u8, form: NightForm) {
    let default = default_form(
        &t.state,
        Seat(seat),
        &mut ChaCha8Rng::seed_from_u64(u64::from(seat)),
    );
    let form = NightForm {
        helper: form.helper.or(default.helper),
        ..form
    };
    t.night(seat, form.clone())
        .unwrap_or_else(|e| panic!("seat {seat}: {form:?}: {e}"));
}

/// Ends the night (defaults for everyone who has not sent a form) and returns step N7's
/// announcement.
fn end_night(t: &mut Table) -> crate::night::Announcement {
    if t.kind() == PhaseKind::Night {
        t.timeout();
    }
    t.events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            FateEvent::NightResolved(a) => Some(a.clone()),
            _ => None,
        })
        .expect("N7")
}

fn results(t: &Table, seat: u8) -> Vec<NightResult> {
    t.state.players[usize::from(seat)].results.clone()
}

/// What is aimed at the Great Misfortune in [`pathfinders_are_judged_before_talismans`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Aim {
    Peek,
    Eye,
    Helper,
    Bless,
    Curse,
    GhostCurse,
}

/// What became of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fated {
    /// An information action resolved.
    Seen,
    /// Blocked by a talisman.
    Blocked,
    /// Aimed at a player no longer living: no effect and no result (step N4).
    Lapsed,
    /// The token landed.
    Landed,
}

#[test]
fn pathfinders_are_judged_before_talismans() {
    // Rule 12.2 lists talismans (N1) before pathfinders (N2), but rule 11.11 and D18 say a
    // failed pathfinder's other choices that night, their talisman included, have no effect.
    // So the pathfinders are judged first: a failed pathfinder's talisman blocks nothing and is
    // not used up; information aimed at them still resolves (N3, rule 12.3, although rule 16.5
    // says ghosts cannot be targets: that is about choosing targets, not about a target who
    // becomes a ghost during resolution); bag actions aimed at them lapse (N4), a Ghost's Curse
    // among them, which is spent all the same (rule 11.14: once per game).
    //
    // (case, the GM names a wrong player, the GM uses the talisman, aimed at the GM, outcome)
    let cases: &[(&str, bool, bool, Aim, Fated)] = &[
        (
            "a talisman blocks a peek",
            false,
            true,
            Aim::Peek,
            Fated::Blocked,
        ),
        (
            "a failed pathfinder's talisman blocks no peek",
            true,
            true,
            Aim::Peek,
            Fated::Seen,
        ),
        (
            "a peek on a pathfinder-turned-ghost resolves",
            true,
            false,
            Aim::Peek,
            Fated::Seen,
        ),
        (
            "a talisman blocks the Eye",
            false,
            true,
            Aim::Eye,
            Fated::Blocked,
        ),
        (
            "the Eye on a pathfinder-turned-ghost resolves",
            true,
            true,
            Aim::Eye,
            Fated::Seen,
        ),
        (
            "the helper counts a pathfinder-turned-ghost's pile",
            true,
            true,
            Aim::Helper,
            Fated::Seen,
        ),
        ("a curse lands", false, false, Aim::Curse, Fated::Landed),
        (
            "a curse on a pathfinder-turned-ghost lapses",
            true,
            false,
            Aim::Curse,
            Fated::Lapsed,
        ),
        (
            "a talisman blocks a bless",
            false,
            true,
            Aim::Bless,
            Fated::Blocked,
        ),
        (
            "a bless on a pathfinder-turned-ghost lapses, talisman or not",
            true,
            true,
            Aim::Bless,
            Fated::Lapsed,
        ),
        (
            "a Ghost's Curse lands",
            false,
            false,
            Aim::GhostCurse,
            Fated::Landed,
        ),
        (
            "a talisman blocks a Ghost's Curse",
            false,
            true,
            Aim::GhostCurse,
            Fated::Blocked,
        ),
        (
            "a Ghost's Curse on a pathfinder-turned-ghost lapses",
            true,
            false,
            Aim::GhostCurse,
            Fated::Lapsed,
        ),
    ];
    for &(name, pathfinder, talisman, aim, expected) in cases {
        // Eight players, so that one failed pathfinder leaves a GM living (no W2 win).
        let (mut t, c) = awake_night(8, 21, 2, 1);
        let (gm, named) = (c.gms[0], c.cfs[1]);
        let ghost = *c.cfs.last().expect("a ghost");
        let bag = t.state.players[usize::from(gm)].bag;
        send(
            &mut t,
            gm,
            NightForm {
                talisman,
                fate: pathfinder.then_some(Fate::Pathfinder(Seat(named))),
                ..NightForm::default()
            },
        );
        let at = Seat(gm);
        let (author, form) = match aim {
            Aim::Peek => (
                c.gf,
                NightForm {
                    fate: Some(Fate::Peek(at)),
                    ..NightForm::default()
                },
            ),
            Aim::Eye => (
                ghost,
                NightForm {
                    ghost: Some(GhostAction::Eye(at)),
                    ..NightForm::default()
                },
            ),
            Aim::Helper => (
                c.cfs[0],
                NightForm {
                    helper: Some(Helper {
                        targets: [at, Seat(c.gf)],
                        good: false,
                        neutral: false,
                    }),
                    ..NightForm::default()
                },
            ),
            Aim::Bless => (
                c.gf,
                NightForm {
                    fate: Some(Fate::Bless(at)),
                    ..NightForm::default()
                },
            ),
            Aim::Curse => (
                c.gms[1],
                NightForm {
                    fate: Some(Fate::Curse(at)),
                    ..NightForm::default()
                },
            ),
            Aim::GhostCurse => (
                ghost,
                NightForm {
                    ghost: Some(GhostAction::Curse(at)),
                    ..NightForm::default()
                },
            ),
        };
        send(&mut t, author, form);
        let a = end_night(&mut t);
        assert!(t.state.finish.is_none(), "{name}");
        assert_eq!(
            t.kind(),
            PhaseKind::ClaimCounter,
            "{name}: results delivered"
        );
        let p = &t.state.players[usize::from(gm)];
        let life = if pathfinder {
            Life::Ghost
        } else {
            Life::Living
        };
        assert_eq!(p.life, life, "{name}");
        assert_eq!(
            p.talisman_used,
            talisman && !pathfinder,
            "{name}: rule 11.11"
        );
        // Rule 5.5: a failed pathfinder is one item of the lock.
        let lock = if pathfinder { 5_000 } else { 3_000 };
        assert_eq!(a.lock_ms, lock, "{name}");
        let told = results(&t, author);
        let outcome = match aim {
            Aim::Peek => match told.as_slice() {
                [NightResult::Peek { seen: None, .. }] => Fated::Blocked,
                [
                    NightResult::Peek {
                        seen: Some((round, token)),
                        ..
                    },
                ] => {
                    // D16: a real token of the pile, with its slot.
                    assert_eq!(p.pile[*round as usize - 1].token, *token, "{name}");
                    Fated::Seen
                }
                other => panic!("{name}: {other:?}"),
            },
            Aim::Eye => match told.as_slice() {
                [NightResult::Eye { seen: None, .. }] => Fated::Blocked,
                [
                    NightResult::Eye {
                        seen: Some(token), ..
                    },
                ] => {
                    assert!(bag.count(*token) > 0, "{name}");
                    Fated::Seen
                }
                other => panic!("{name}: {other:?}"),
            },
            Aim::Helper => {
                let bad = [Seat(gm), Seat(c.gf)]
                    .iter()
                    .flat_map(|s| &t.state.players[s.index()].pile)
                    .filter(|slot| slot.token == Token::Bad)
                    .count();
                let whisper = told.iter().find_map(|r| match r {
                    NightResult::Whisper { bad, .. } => Some(*bad as usize),
                    _ => None,
                });
                assert_eq!(whisper, Some(bad), "{name}");
                Fated::Seen
            }
            Aim::Bless | Aim::Curse | Aim::GhostCurse => {
                let token = if aim == Aim::Bless {
                    Token::Good
                } else {
                    Token::Bad
                };
                let landed = told.iter().find_map(|r| match r {
                    NightResult::Landed { landed, .. } => Some(*landed),
                    _ => None,
                });
                match landed {
                    None => {
                        assert_eq!(p.bag, bag, "{name}");
                        Fated::Lapsed
                    }
                    Some(false) => {
                        assert_eq!(p.bag, bag, "{name}");
                        Fated::Blocked
                    }
                    Some(true) => {
                        assert_eq!(p.bag, bag.with_added(token), "{name}");
                        assert!(p.results.contains(&NightResult::BagGained { token }));
                        Fated::Landed
                    }
                }
            }
        };
        assert_eq!(outcome, expected, "{name}");
        if aim == Aim::GhostCurse {
            assert!(
                t.state.players[usize::from(ghost)].ghost_curse_used,
                "{name}: once per game, lapsed or not"
            );
        }
    }
}

#[test]
fn information_reads_the_bag_as_the_night_opened() {
    // Rule 12.1 (D26): the Eye reads the bag before that night's curses (N3 before N4).
    let (mut t, c) = awake_night(8, 21, 2, 1);
    let target = c.gf;
    let ghost = *c.cfs.last().expect("a ghost");
    t.state.players[usize::from(target)].bag = Bag::new(1, 0, 0);
    send(
        &mut t,
        c.gms[0],
        NightForm {
            fate: Some(Fate::Curse(Seat(target))),
            ..NightForm::default()
        },
    );
    send(
        &mut t,
        ghost,
        NightForm {
            ghost: Some(GhostAction::Eye(Seat(target))),
            ..NightForm::default()
        },
    );
    end_night(&mut t);
    assert_eq!(t.state.players[usize::from(target)].bag, Bag::new(1, 0, 1));
    assert_eq!(
        results(&t, ghost),
        vec![NightResult::Eye {
            target: Seat(target),
            seen: Some(Token::Good)
        }]
    );
}

/// What is aimed in [`the_guard_is_told_whether_it_blocked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attack {
    Curse,
    GhostCurse,
    Bless,
    Nothing,
    CurseElsewhere,
}

#[test]
fn the_guard_is_told_whether_it_blocked() {
    // Rules 11.7 and 12.3: the guard blocks curses and Ghost's Curses on the guarded player,
    // never a bless; a guarded talisman user is protected by both, a curse counting as blocked
    // once, and the guard is told it blocked.
    //
    // (case, the guarded uses the talisman, attack, guard told it blocked, attack landed)
    let cases: &[(&str, bool, Attack, bool, Option<bool>)] = &[
        (
            "a curse on the guarded",
            false,
            Attack::Curse,
            true,
            Some(false),
        ),
        (
            "a curse on a guarded talisman user",
            true,
            Attack::Curse,
            true,
            Some(false),
        ),
        (
            "a Ghost's Curse on the guarded",
            false,
            Attack::GhostCurse,
            true,
            Some(false),
        ),
        (
            "a Ghost's Curse on a guarded talisman user",
            true,
            Attack::GhostCurse,
            true,
            Some(false),
        ),
        (
            "a bless on the guarded lands",
            false,
            Attack::Bless,
            false,
            Some(true),
        ),
        (
            "a bless on a guarded talisman user: the talisman blocks it",
            true,
            Attack::Bless,
            false,
            Some(false),
        ),
        (
            "nothing aimed at the guarded",
            false,
            Attack::Nothing,
            false,
            None,
        ),
        (
            "a curse elsewhere lands",
            false,
            Attack::CurseElsewhere,
            false,
            Some(true),
        ),
    ];
    for &(name, talisman, attack, blocked, landed) in cases {
        let (mut t, c) = awake_night(7, 8, 2, 1);
        let (guard, guarded, elsewhere) = (c.cfs[2], c.cfs[0], c.cfs[1]);
        let ghost = *c.cfs.last().expect("a ghost");
        let bags: Vec<Bag> = t.state.players.iter().map(|p| p.bag).collect();
        send(
            &mut t,
            guard,
            NightForm {
                guard: Some(Seat(guarded)),
                ..NightForm::default()
            },
        );
        send(
            &mut t,
            guarded,
            NightForm {
                talisman,
                ..NightForm::default()
            },
        );
        let attacked = match attack {
            Attack::Curse => Some((c.gms[0], Fate::Curse(Seat(guarded)), guarded)),
            Attack::Bless => Some((c.gf, Fate::Bless(Seat(guarded)), guarded)),
            Attack::CurseElsewhere => Some((c.gms[0], Fate::Curse(Seat(elsewhere)), elsewhere)),
            Attack::GhostCurse | Attack::Nothing => None,
        };
        let (author, target, token) = match (attack, attacked) {
            (_, Some((author, fate, target))) => {
                send(
                    &mut t,
                    author,
                    NightForm {
                        fate: Some(fate),
                        ..NightForm::default()
                    },
                );
                let token = if matches!(fate, Fate::Bless(_)) {
                    Token::Good
                } else {
                    Token::Bad
                };
                (Some(author), target, token)
            }
            (Attack::GhostCurse, None) => {
                send(
                    &mut t,
                    ghost,
                    NightForm {
                        ghost: Some(GhostAction::Curse(Seat(guarded))),
                        ..NightForm::default()
                    },
                );
                (Some(ghost), guarded, Token::Bad)
            }
            _ => (None, guarded, Token::Bad),
        };
        let a = end_night(&mut t);
        assert!(a.guard_used && !t.state.shield_whole, "{name}: rule 11.7");
        assert!(
            results(&t, guard).contains(&NightResult::Guard {
                used: true,
                blocked
            }),
            "{name}: {:?}",
            results(&t, guard)
        );
        let got = author.and_then(|author| {
            results(&t, author).iter().find_map(|r| match r {
                NightResult::Landed { landed, .. } => Some(*landed),
                _ => None,
            })
        });
        assert_eq!(got, landed, "{name}");
        let expected_bag = match landed {
            Some(true) => bags[usize::from(target)].with_added(token),
            _ => bags[usize::from(target)],
        };
        assert_eq!(
            t.state.players[usize::from(target)].bag,
            expected_bag,
            "{name}"
        );
        assert_eq!(
            t.state.players[usize::from(guarded)].talisman_used,
            talisman,
            "{name}"
        );
    }
}

#[test]
fn ghost_forms_follow_rules_11_13_and_11_14() {
    let (mut t, c) = awake_night(8, 21, 2, 2);
    let ghost = *c.cfs.last().expect("a ghost");
    let other_ghost = c.cfs[c.cfs.len() - 2];
    let living = c.gf;
    let eye = |s: u8| NightForm {
        ghost: Some(GhostAction::Eye(Seat(s))),
        ..NightForm::default()
    };
    let curse = |s: u8| NightForm {
        ghost: Some(GhostAction::Curse(Seat(s))),
        ..NightForm::default()
    };
    // (case, seat, form, refusal)
    let cases: Vec<(&str, u8, NightForm, Option<FormError>)> = vec![
        ("the Eye on a living player", ghost, eye(living), None),
        ("the Curse on a living player", ghost, curse(living), None),
        ("nothing", ghost, NightForm::default(), None),
        (
            "the Eye on a ghost (rule 16.5)",
            ghost,
            eye(other_ghost),
            Some(FormError::Target("ghost action")),
        ),
        (
            "a mark",
            ghost,
            NightForm {
                mark: Some(Seat(living)),
                ..NightForm::default()
            },
            Some(FormError::GhostForm),
        ),
        (
            "the talisman",
            ghost,
            NightForm {
                talisman: true,
                ..NightForm::default()
            },
            Some(FormError::GhostForm),
        ),
        (
            "a living player's peek on a ghost (rule 16.5)",
            c.gf,
            NightForm {
                fate: Some(Fate::Peek(Seat(ghost))),
                ..NightForm::default()
            },
            Some(FormError::Target("fate action")),
        ),
        (
            "a helper naming a ghost (rule 16.5)",
            c.cfs[0],
            NightForm {
                helper: Some(Helper {
                    targets: [Seat(ghost), Seat(living)],
                    good: false,
                    neutral: false,
                }),
                ..NightForm::default()
            },
            Some(FormError::Target("helper")),
        ),
    ];
    for (name, seat, form, refusal) in cases {
        assert_eq!(check_form_result(&t.state, seat, &form), refusal, "{name}");
    }
    // Rule 11.14: once per game; the next night only the Eye is left.
    send(&mut t, ghost, curse(living));
    end_night(&mut t);
    t.advance_to(PhaseKind::Night);
    assert_eq!(
        check_form_result(&t.state, ghost, &curse(living)),
        Some(FormError::GhostCurseUsed)
    );
    assert_eq!(check_form_result(&t.state, ghost, &eye(living)), None);
    let own = FateTokens::view(&t.state, Viewer::Seat(Seat(ghost)))
        .own
        .expect("own");
    assert!(own.form.ghost_eye && !own.form.ghost_curse && !own.form.mark);
}

#[test]
fn the_helper_counts_and_rests_as_rule_11_12_says() {
    // (case, Good count, Neutral count, the next helper night after night 2)
    let cases = [
        ("Bad only: one rest night", false, false, 4),
        ("the Good count: two rest nights", true, false, 5),
        ("the Neutral count: two rest nights", false, true, 5),
        ("both counts: two rest nights", true, true, 5),
    ];
    for (name, good, neutral, next) in cases {
        let (mut t, c) = awake_night(6, 4, 2, 0);
        let cf = c.cfs[0];
        let pair = [Seat(c.gf), Seat(c.gms[0])];
        // Rule 11.12.2: mandatory on a helper night.
        assert_eq!(
            check_form_result(&t.state, cf, &NightForm::default()),
            Some(FormError::HelperMissing),
            "{name}"
        );
        t.night(
            cf,
            NightForm {
                helper: Some(Helper {
                    targets: pair,
                    good,
                    neutral,
                }),
                ..NightForm::default()
            },
        )
        .expect(name);
        end_night(&mut t);
        let count = |kind: Token| {
            u32::try_from(
                pair.iter()
                    .flat_map(|s| &t.state.players[s.index()].pile)
                    .filter(|slot| slot.token == kind)
                    .count(),
            )
            .expect("small")
        };
        // Rule 11.12.4: the Bad total, and the extra counts asked for.
        assert_eq!(
            results(&t, cf),
            vec![NightResult::Whisper {
                round: t.state.round,
                targets: pair,
                bad: count(Token::Bad),
                good: good.then(|| count(Token::Good)),
                neutral: neutral.then(|| count(Token::Neutral)),
            }],
            "{name}"
        );
        // Rule 11.12.1: rest nights refuse the helper; the next helper night demands it.
        for round in 3..=next {
            t.advance_to(PhaseKind::Night);
            assert_eq!(t.state.round, round, "{name}");
            let helper = NightForm {
                helper: Some(Helper {
                    targets: pair,
                    good: false,
                    neutral: false,
                }),
                ..NightForm::default()
            };
            let (with, without) = if round == next {
                (None, Some(FormError::HelperMissing))
            } else {
                (Some(FormError::Helper), None)
            };
            assert_eq!(
                check_form_result(&t.state, cf, &helper),
                with,
                "{name}: night {round}"
            );
            assert_eq!(
                check_form_result(&t.state, cf, &NightForm::default()),
                without,
                "{name}: night {round}"
            );
            t.timeout();
        }
    }
}

#[test]
fn the_suspicion_threshold_follows_section_13() {
    // (case, players, ghosts, a failed pathfinder who also marks the target, pile size,
    //  slots revealed before, marks before, marks tonight from others, triggers)
    type Case = (
        &'static str,
        u8,
        usize,
        bool,
        u32,
        &'static [usize],
        u32,
        usize,
        bool,
    );
    let cases: &[Case] = &[
        ("the living count + 1: 7", 6, 0, false, 3, &[], 5, 2, true),
        ("one short of 7", 6, 0, false, 3, &[], 5, 1, false),
        ("a ghost lowers it to 6", 6, 1, false, 3, &[], 4, 2, true),
        ("nine with eight living", 8, 0, false, 3, &[], 6, 2, false),
        (
            "counted after N2: a failed pathfinder lowers it to 8",
            8,
            0,
            true,
            3,
            &[],
            6,
            2,
            true,
        ),
        (
            "the failed pathfinder's own mark lapses",
            8,
            0,
            true,
            3,
            &[],
            5,
            2,
            false,
        ),
        (
            "a one-slot pile shows one token",
            6,
            0,
            false,
            1,
            &[],
            6,
            1,
            true,
        ),
        ("unseen slots first", 6, 0, false, 4, &[0, 1], 6, 1, true),
        (
            "the last unseen slot, then a seen one",
            6,
            0,
            false,
            3,
            &[0, 2],
            6,
            1,
            true,
        ),
        (
            "every slot seen: two seen ones again",
            6,
            0,
            false,
            2,
            &[0, 1],
            6,
            1,
            true,
        ),
    ];
    for &(name, players, ghosts, pathfinder, pile, seen, before, tonight, triggers) in cases {
        let (mut t, c) = awake_night(players, 21, 2, ghosts);
        let target = c.gf;
        let kinds = [Token::Good, Token::Neutral, Token::Bad];
        let p = &mut t.state.players[usize::from(target)];
        p.pile = (1..=pile)
            .map(|round| Slot {
                round,
                token: kinds[round as usize % 3],
            })
            .collect();
        p.exposed_slots = seen.to_vec();
        p.marks = before;
        let markers: Vec<u8> = c.cfs.iter().copied().take(tonight).collect();
        for &m in &markers {
            send(
                &mut t,
                m,
                NightForm {
                    mark: Some(Seat(target)),
                    ..NightForm::default()
                },
            );
        }
        if pathfinder {
            send(
                &mut t,
                c.gms[0],
                NightForm {
                    fate: Some(Fate::Pathfinder(Seat(c.cfs[c.cfs.len() - 1]))),
                    mark: Some(Seat(target)),
                    ..NightForm::default()
                },
            );
        }
        let a = end_night(&mut t);
        let p = &t.state.players[usize::from(target)];
        let shown = (pile as usize).min(2);
        if !triggers {
            assert_eq!(p.marks, before + tonight as u32, "{name}");
            assert!(a.reveals.is_empty(), "{name}");
            continue;
        }
        // Rules 13.3 to 13.5.
        assert_eq!(a.reveals, vec![(Seat(target), shown as u32)], "{name}");
        assert_eq!(p.marks, 0, "{name}: rule 13.5");
        assert_eq!(p.exposures_told, vec![shown as u32], "{name}");
        let unseen = pile as usize - seen.len();
        let fresh = p.exposed_slots.iter().filter(|s| !seen.contains(s)).count();
        assert_eq!(fresh, unseen.min(2), "{name}: D28, unseen slots first");
        assert!(
            seen.iter().all(|s| p.exposed_slots.contains(s)),
            "{name}: a reveal stays revealed"
        );
        let kinds = t
            .events
            .iter()
            .find(|e| matches!(e.event, FateEvent::SuspicionKinds { .. }))
            .expect(name);
        let FateEvent::SuspicionKinds { tokens, .. } = &kinds.event else {
            panic!("{name}")
        };
        assert_eq!(tokens.len(), shown, "{name}");
        // Rule 13.4: the owner sees how many, never which; everyone else sees the kinds.
        assert!(
            !kinds.visibility.allows(Viewer::Seat(Seat(target))),
            "{name}"
        );
        let own = FateTokens::view(&t.state, Viewer::Seat(Seat(target)));
        assert!(own.seats[usize::from(target)].exposed.is_empty(), "{name}");
        let other = FateTokens::view(&t.state, Viewer::Seat(Seat(c.cfs[0])));
        assert_eq!(
            other.seats[usize::from(target)].exposed.len(),
            p.exposed_slots.len(),
            "{name}"
        );
    }
}

#[test]
fn the_night_lock_counts_what_is_presented() {
    // Rule 5.5: 3 s + 2 s for each failed pathfinder, the guard used, each suspicion reveal
    // and the accusation, at most 15 s; mark counts do not count. A night that decides the
    // game has no N7 and no lock (rule 6.2, 19.1).
    //
    // (case, failed pathfinders, the guard, reveals, the accusation, a mark, lock)
    type Case = (&'static str, usize, bool, usize, bool, bool, Option<u64>);
    let cases: &[Case] = &[
        ("nothing to present", 0, false, 0, false, false, Some(3_000)),
        (
            "mark counts do not count",
            0,
            false,
            0,
            false,
            true,
            Some(3_000),
        ),
        ("the guard", 0, true, 0, false, false, Some(5_000)),
        (
            "a failed pathfinder",
            1,
            false,
            0,
            false,
            false,
            Some(5_000),
        ),
        ("a reveal", 0, false, 1, false, false, Some(5_000)),
        ("two reveals", 0, false, 2, false, false, Some(7_000)),
        ("the accusation", 0, false, 0, true, false, Some(5_000)),
        (
            "a failed pathfinder, the guard, a reveal and the accusation",
            1,
            true,
            1,
            true,
            true,
            Some(11_000),
        ),
        ("at most 15 s", 1, true, 4, true, false, Some(15_000)),
        (
            "two failed pathfinders decide the game",
            2,
            false,
            0,
            false,
            false,
            None,
        ),
    ];
    for &(name, pathfinders, guard, reveals, accusation, mark, lock) in cases {
        let mut t = Table::new(8, 21);
        t.advance_to(PhaseKind::Accusation);
        t.awaken_all();
        let c = Cast::of(&t);
        if accusation {
            t.accuse(c.cfs[0], Some(c.cfs[1])).expect(name);
        }
        t.advance_to(PhaseKind::Night);
        for (gm, named) in c.gms.iter().zip(&c.cfs[2..]).take(pathfinders) {
            send(
                &mut t,
                *gm,
                NightForm {
                    fate: Some(Fate::Pathfinder(Seat(*named))),
                    ..NightForm::default()
                },
            );
        }
        // Marks at or above any threshold trigger at N5 (rule 13.2).
        let revealed: Vec<u8> = std::iter::once(c.gf).chain(c.cfs.iter().copied()).collect();
        for &s in revealed.iter().take(reveals) {
            t.state.players[usize::from(s)].marks = 9;
        }
        if guard || mark {
            send(
                &mut t,
                c.cfs[4],
                NightForm {
                    guard: guard.then_some(Seat(c.cfs[0])),
                    mark: mark.then_some(Seat(c.gms[1])),
                    ..NightForm::default()
                },
            );
        }
        let before = t.events.len();
        t.timeout();
        let now = t.now;
        match lock {
            Some(lock) => {
                let a = announcement(&t.events[before..]);
                assert_eq!(a.lock_ms, lock, "{name}");
                assert_eq!(t.state.opens_at_ms, now + lock, "{name}");
                assert_eq!(a.reveals.len(), reveals, "{name}");
                assert_eq!(a.failed_pathfinders.len(), pathfinders, "{name}");
            }
            None => {
                assert_eq!(t.kind(), PhaseKind::Ending, "{name}");
                assert_eq!(t.state.opens_at_ms, now, "{name}: the ending at once");
                assert!(
                    !t.events[before..]
                        .iter()
                        .any(|e| matches!(e.event, FateEvent::NightResolved(_))),
                    "{name}: no N7"
                );
            }
        }
    }
}

#[test]
fn a_common_fortune_may_claim_after_every_helper_night() {
    // Rule 17.3: a CF claims in window k when they used the helper on night k; one who never
    // takes an extra count helps on nights 1, 3, 5 and one who always does on nights 1, 4, 7
    // (rule 11.12.1, with everyone awake from round 1).
    let mut t = Table::new(6, 9);
    t.advance_to_night();
    t.awaken_all();
    let c = Cast::of(&t);
    let (plain, extra) = (c.cfs[0], c.cfs[1]);
    // (window, the plain CF may claim, the CF with extra counts may claim)
    let windows = [
        (1, true, true),
        (2, false, false),
        (3, true, false),
        (4, false, true),
        (5, true, false),
        (6, false, false),
    ];
    for (round, plain_may, extra_may) in windows {
        assert_eq!(
            (t.state.round, t.kind()),
            (round, PhaseKind::Night),
            "night {round}"
        );
        if check_form_result(&t.state, extra, &NightForm::default())
            == Some(FormError::HelperMissing)
        {
            let pair = [Seat(c.gf), Seat(c.gms[0])];
            t.night(
                extra,
                NightForm {
                    helper: Some(Helper {
                        targets: pair,
                        good: true,
                        neutral: false,
                    }),
                    ..NightForm::default()
                },
            )
            .expect("helper");
        }
        t.advance_to(PhaseKind::ClaimCounter);
        for (cf, may) in [(plain, plain_may), (extra, extra_may)] {
            let right = t.state.claim_right(Seat(cf));
            assert_eq!(right.is_some(), may, "window {round}, seat {cf}");
            if let Some(pair) = right.and_then(|r| r.pair) {
                let bad = t.state.bad_during(pair, round);
                t.claim(cf, pair.map(|s| s.0), bad)
                    .expect("a claim after a helper night");
            }
        }
        t.advance_to(PhaseKind::Night);
    }
    let verdicts = t.state.verdicts();
    assert_eq!(verdicts.len(), 5);
    assert!(
        verdicts
            .iter()
            .all(|v| v.verdict == crate::state::Verdict::Honest)
    );
}
