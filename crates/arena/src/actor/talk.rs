//! Bot talk in a match: the house seats of a family that talks join the table's chat.
//!
//! After each change the actor publishes, and at the times the family asks for on the
//! injected clock, a talk pass asks the family what each house seat would say now, from that
//! seat's view alone. A remark is worded off the actor by the arena's wording service and
//! comes back as [`Command::Talked`], to be played as the seat's chat action through the same
//! path as a house player's free actions, unless its moment has passed. Each seat has at most
//! one line in flight, and every silence is logged with its reason.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use arbiter_plugin::{Persona, SeatView, Silence, TableTalk, TalkTable, Voice};
use arbiter_store::{BotKind, MatchStatus};

use super::{Actor, Command};
use crate::directory::Bot;
use crate::live;
use crate::log::Participants;

/// What a talk pass decided for one seat, once worded.
pub(crate) struct Talked {
    pub(crate) leg: usize,
    /// The leg's revision when the remark was chosen: a line for an earlier moment is dropped.
    pub(crate) revision: u64,
    pub(crate) participant: usize,
    /// The words, or why the seat stays silent.
    pub(crate) said: Result<String, Silence>,
    /// The remark's kind, for the logs.
    pub(crate) kind: String,
}

/// The name a participant goes by at the table: its display name, else its name without a
/// person's `@`.
fn table_name(bot: &Bot) -> String {
    bot.profile
        .display_name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| bot.name.trim_start_matches('@'))
        .to_owned()
}

/// Each participant's name at the table, in participant order, made distinct: a name that
/// several participants share (a house bot in several seats, self-play) is numbered in each
/// of them, so that a line naming one never names another.
pub(crate) fn participant_names(bots: &[Bot]) -> Vec<String> {
    let names: Vec<String> = bots.iter().map(table_name).collect();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let same = names.iter().filter(|n| *n == name).count();
            if same == 1 {
                return name.clone();
            }
            let k = names[..i].iter().filter(|n| *n == name).count() + 1;
            format!("{name} {k}")
        })
        .collect()
}

impl Actor {
    /// Runs a talk pass for every house seat, and sets when the next one is due; `tick` says
    /// whether the pass is the family's cadence come due rather than a change at the table
    /// (see [`TalkTable::tick`]).
    pub(super) fn start_talk(&mut self, now: i64, tick: bool) {
        // A change at the table never puts the cadence's next tick off; a tick sets the next.
        self.next_talk = if tick {
            None
        } else {
            self.next_talk.filter(|&at| at > now)
        };
        let Some(talk) = self.setup.family.talk else {
            return;
        };
        if self.progress.status != MatchStatus::Running || !self.has_house() {
            return;
        }
        let now_ms = u64::try_from(now).unwrap_or(0);
        let enabled = self.shared.talk.on.load(Ordering::Relaxed);
        let names = participant_names(&self.setup.bots);
        let bots: Vec<bool> = self
            .setup
            .bots
            .iter()
            .map(|bot| bot.kind != BotKind::Human)
            .collect();
        for leg_index in 0..self.progress.legs.len() {
            let leg = &self.progress.legs[leg_index];
            if leg.ended.is_some() {
                continue;
            }
            let seats = self.setup.seats();
            // Names and kinds in seat order, since the rules speak of seats.
            let by_seat = |seat: usize| leg.participant_of(arbiter_rules::Seat(seat as u8));
            let seat_names: Vec<String> = (0..seats)
                .map(|s| names.get(by_seat(s)).cloned().unwrap_or_default())
                .collect();
            let seat_bots: Vec<bool> = (0..seats)
                .map(|s| bots.get(by_seat(s)).copied().unwrap_or(true))
                .collect();
            for participant in 0..seats {
                if !self.is_house(participant) {
                    continue;
                }
                let seat = leg.seat_of(participant);
                let view = SeatView::new(leg.state.as_ref(), seat);
                if let Some(at) = talk.next_talk_at(&view, now_ms) {
                    let at = i64::try_from(at).unwrap_or(i64::MAX);
                    self.next_talk = Some(self.next_talk.map_or(at, |t| t.min(at)));
                }
                if self.talking.contains(&(leg_index, participant)) {
                    // The line in flight was chosen before this change: the seat is asked
                    // again once it is back, so that an answer owed now is not lost.
                    self.talk_again.insert((leg_index, participant));
                    continue;
                }
                if !enabled {
                    tracing::debug!(
                        match_id = self.setup.id,
                        seat = seat.0,
                        silence = Silence::Disabled.reason(),
                        "a house seat stays silent"
                    );
                    continue;
                }
                self.talking.insert((leg_index, participant));
                self.talk_passes += 1;
                let nonce = (u64::from(seat.0) << 56) | self.talk_passes;
                let rng = self.setup.seed.stream("talk", nonce);
                let pass = Pass {
                    talk,
                    wording: self.shared.talk.wording.clone(),
                    state: leg.state.clone(),
                    seat,
                    leg: leg_index,
                    revision: leg.revision,
                    participant,
                    names: seat_names.clone(),
                    bots: seat_bots.clone(),
                    language: self.setup.terms.language,
                    persona: Persona::for_seat(usize::from(seat.0)),
                    now_ms,
                    tick,
                };
                let myself = self.myself.clone();
                tokio::spawn(async move {
                    let talked = pass.run(rng).await;
                    let _ = myself.send(Command::Talked(Box::new(talked))).await;
                });
            }
        }
    }

    /// Plays a worded line as its seat's chat action, if its moment has not passed; logs a
    /// silence with its reason.
    pub(super) async fn talked(&mut self, talked: Talked) {
        let Talked {
            leg,
            revision,
            participant,
            said,
            kind,
        } = talked;
        self.talking.remove(&(leg, participant));
        let again = self.talk_again.remove(&(leg, participant));
        let match_id = self.setup.id;
        let seat = self
            .progress
            .legs
            .get(leg)
            .map_or(0, |l| l.seat_of(participant).0);
        let text = match said {
            Ok(text) => text,
            Err(silence) => {
                log_silence(match_id, seat, &kind, silence);
                if again {
                    self.start_talk(self.now(), false);
                }
                return;
            }
        };
        let current = self
            .progress
            .legs
            .get(leg)
            .filter(|l| l.ended.is_none() && self.progress.status == MatchStatus::Running)
            .map(|l| l.revision);
        if current != Some(revision) {
            tracing::info!(
                match_id,
                seat,
                kind = %kind,
                "a house seat's line came too late and is dropped"
            );
            if again {
                self.start_talk(self.now(), false);
            }
            return;
        }
        let Some(talk) = self.setup.family.talk else {
            return;
        };
        let action = talk.chat_action(&text);
        let mine = Participants::only(participant);
        let leg_byte = u8::try_from(leg).unwrap_or(u8::MAX);
        let result = self
            .step(|setup, progress, now| {
                live::submit_as(setup, progress, mine, leg_byte, revision, &action, now)
            })
            .await;
        match result {
            Ok(_) => {
                tracing::info!(match_id, seat, kind = %kind, said = %text, "a house seat talks")
            }
            Err(error) => {
                tracing::info!(match_id, seat, kind = %kind, %error, "a house seat's line was refused");
            }
        }
    }
}

/// Logs why a house seat stays silent: routine silences at debug level, a provider's failure
/// as a warning.
fn log_silence(match_id: i64, seat: u8, kind: &str, silence: Silence) {
    let reason = silence.reason();
    match silence {
        Silence::AiFailed => tracing::warn!(
            match_id,
            seat,
            kind,
            silence = reason,
            "a house seat stays silent"
        ),
        Silence::Nothing | Silence::Throttled | Silence::Disabled => tracing::debug!(
            match_id,
            seat,
            kind,
            silence = reason,
            "a house seat stays silent"
        ),
    }
}

/// One seat's talk pass, carried off the actor.
struct Pass {
    talk: &'static dyn TableTalk,
    wording: Arc<dyn arbiter_plugin::Wording>,
    state: Box<dyn arbiter_rules::DynState>,
    seat: arbiter_rules::Seat,
    leg: usize,
    revision: u64,
    participant: usize,
    names: Vec<String>,
    bots: Vec<bool>,
    language: arbiter_plugin::Language,
    persona: Persona,
    now_ms: u64,
    tick: bool,
}

impl Pass {
    /// Chooses the remark on a blocking thread (the family's rules may weigh odds), then has
    /// it worded.
    async fn run(self, mut rng: arbiter_fair::Stream) -> Talked {
        let Pass {
            talk,
            wording,
            state,
            seat,
            leg,
            revision,
            participant,
            names,
            bots,
            language,
            persona,
            now_ms,
            tick,
        } = self;
        let chosen = tokio::task::spawn_blocking(move || {
            let remark = {
                let view = SeatView::new(state.as_ref(), seat);
                let table = TalkTable {
                    names: &names,
                    bots: &bots,
                    language,
                    persona,
                    now_ms,
                    tick,
                };
                talk.remark(&view, &table, &mut rng)
            };
            (remark, names)
        })
        .await;
        let (remark, names) = match chosen {
            Ok(chosen) => chosen,
            Err(_) => (Err(Silence::Nothing), Vec::new()),
        };
        let (said, kind) = match remark {
            Ok(remark) => {
                let name = names.get(usize::from(seat.0)).cloned().unwrap_or_default();
                let voice = Voice {
                    name: &name,
                    persona,
                    language,
                };
                let said = wording.word(&remark, voice, talk.examples(language)).await;
                (said, remark.kind)
            }
            Err(silence) => (Err(silence), String::new()),
        };
        Talked {
            leg,
            revision,
            participant,
            said,
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(name: &str, display: Option<&str>) -> Bot {
        Bot {
            id: Default::default(),
            name: name.to_owned(),
            kind: BotKind::House,
            created_ms: 0,
            disabled: false,
            deleted: false,
            token_prefix: None,
            profile: crate::directory::BotProfile {
                display_name: display.map(str::to_owned),
                ..Default::default()
            },
            environment: None,
            default_variant: "std",
        }
    }

    #[test]
    fn names_are_distinct_and_readable() {
        let bots = [
            bot("house-easy", None),
            bot("@alice", None),
            bot("house-easy", None),
            bot("@guest#7", Some("Bora")),
            bot("house-easy", None),
        ];
        assert_eq!(
            participant_names(&bots),
            [
                "house-easy 1",
                "alice",
                "house-easy 2",
                "Bora",
                "house-easy 3"
            ]
        );
    }
}
