//! The baseline players: a uniform choice among the decisions a seat's view allows.

use arbiter_rules::random::choose;
use arbiter_rules::{Random, Seat};

use super::Players;
use crate::night::{Fate, GhostAction, Helper, NightForm};
use crate::rules::FateAction;
use crate::state::{Life, PhaseKind};
use crate::view::{FateView, OwnView};

/// Players that pick each decision uniformly among [`decisions`] and never claim.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomPlayers;

impl Players for RandomPlayers {
    fn decide(&self, view: &FateView, rng: &mut dyn Random) -> Option<FateAction> {
        choose(rng, &decisions(view)).cloned()
    }

    fn claims(&self, _view: &FateView, _rng: &mut dyn Random) -> Vec<FateAction> {
        Vec::new()
    }
}

/// The decisions the viewing seat may make now, computed from its view alone: the same
/// list, in the same order, as [`FateTokens::legal_actions`](crate::FateTokens) gives for
/// the seat (a test plays whole games to hold the two together).
///
/// Everything it needs is in a seat's view (section 22): who is pending and living, the
/// phase, and, in the seat's own part, the night form's availability (rules 11.3, 22.4) and
/// the counter right (rule 15.4). Night forms are listed as the rules list them: each choice
/// once, on top of the mandatory helper (rule 11.15 allows combinations, which would run to
/// hundreds of thousands).
pub fn decisions(view: &FateView) -> Vec<FateAction> {
    let Some(own) = &view.own else {
        return Vec::new();
    };
    let me = own.seat;
    if !view.pending.contains(&me) {
        return Vec::new();
    }
    let phase = view.phase_number;
    let living: Vec<Seat> = view
        .seats
        .iter()
        .filter(|s| s.life == Life::Living)
        .map(|s| s.seat)
        .collect();
    let others: Vec<Seat> = living.iter().copied().filter(|&s| s != me).collect();
    match view.phase {
        // Rule 8.3.
        PhaseKind::Draw => (0..2)
            .map(|index| FateAction::Reveal { phase, index })
            .collect(),
        // Rules 9.3, 14.3.
        PhaseKind::Discussion | PhaseKind::Trial => vec![FateAction::Ready { phase }],
        // Rule 10.2: a pass or another living player.
        PhaseKind::Accusation => std::iter::once(None)
            .chain(others.iter().copied().map(Some))
            .map(|target| FateAction::Accuse { phase, target })
            .collect(),
        PhaseKind::Night => {
            let ghost = view
                .seats
                .iter()
                .any(|s| s.seat == me && s.life == Life::Ghost);
            night_forms(own, ghost, &living, &others)
                .into_iter()
                .map(|form| FateAction::Night { phase, form })
                .collect()
        }
        // Rule 14.4.
        PhaseKind::Vote => [true, false]
            .map(|yes| FateAction::Vote { phase, yes })
            .to_vec(),
        // Rule 15.4: anyone exiled may decline; a holder may name a living player.
        PhaseKind::ClaimCounter => {
            let named: &[Seat] = if own.counter_right == Some(true) {
                &living
            } else {
                &[]
            };
            std::iter::once(None)
                .chain(named.iter().copied().map(Some))
                .map(|name| FateAction::Counter { phase, name })
                .collect()
        }
        PhaseKind::Ending | PhaseKind::Over => Vec::new(),
    }
}

/// The night forms open to a seat, one field at a time (rules 11.2, 11.3).
fn night_forms(own: &OwnView, ghost: bool, living: &[Seat], others: &[Seat]) -> Vec<NightForm> {
    let available = &own.form;
    let mut forms = Vec::new();
    // Rule 11.12.2: on a helper night every form carries the helper, so each choice below is
    // made on top of the first one.
    let mut base = NightForm::default();
    if available.helper {
        for (i, &a) in others.iter().enumerate() {
            for &b in &others[i + 1..] {
                for (good, neutral) in [(false, false), (true, false), (false, true), (true, true)]
                {
                    forms.push(NightForm {
                        helper: Some(Helper {
                            targets: [a, b],
                            good,
                            neutral,
                        }),
                        ..NightForm::default()
                    });
                }
            }
        }
        base.helper = forms.first().and_then(|f| f.helper);
    } else {
        forms.push(base.clone());
    }
    // Rules 11.13, 11.14: a ghost's form is one ghost action or none.
    if ghost {
        for &t in living {
            if available.ghost_eye {
                forms.push(NightForm {
                    ghost: Some(GhostAction::Eye(t)),
                    ..NightForm::default()
                });
            }
            if available.ghost_curse {
                forms.push(NightForm {
                    ghost: Some(GhostAction::Curse(t)),
                    ..NightForm::default()
                });
            }
        }
        return forms;
    }
    for &t in others {
        if available.mark {
            forms.push(NightForm {
                mark: Some(t),
                ..base.clone()
            });
        }
        if available.guard {
            forms.push(NightForm {
                guard: Some(t),
                ..base.clone()
            });
        }
        let fates = [
            (available.peek, Fate::Peek(t)),
            (available.bless, Fate::Bless(t)),
            (available.curse, Fate::Curse(t)),
            (available.pathfinder, Fate::Pathfinder(t)),
        ];
        for (open, fate) in fates {
            if open {
                forms.push(NightForm {
                    fate: Some(fate),
                    ..base.clone()
                });
            }
        }
    }
    if available.talisman {
        forms.push(NightForm {
            talisman: true,
            ..base
        });
    }
    forms
}
