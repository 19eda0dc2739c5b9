//! Matches of more than two: challenges every invited bot accepts, a decision for every
//! pending seat, results ranked for everyone, and nothing of one seat's secrets reaching
//! another, in value or in shape.

use arbiter_store::BotKind;
use proptest::prelude::*;

use super::*;

/// A Goofspiel challenge from bot 1 to bots 2..=seats, three cards, one leg (or one per
/// seat when paired).
fn goofspiel(seats: usize, format: Format) -> Setup {
    Setup {
        family: &GOOFSPIEL,
        variant: "standard".to_owned(),
        bots: (1..=seats)
            .map(|i| {
                let id = BotId::try_from(i).expect("id");
                bot(id, &format!("Bot{i}"), BotKind::Registered)
            })
            .collect(),
        seat_count: seats,
        ..setup(format, TimeControl::default())
    }
}

fn started(setup: &mut Setup) -> Progress {
    let mut progress = challenge(setup, T0);
    for bot in 2..=setup.seats() {
        let bot = BotId::try_from(bot).expect("id");
        accept(setup, &mut progress, bot, false, String::new(), T0).expect("accept");
    }
    progress
}

fn request(turn: &Decision) -> Value {
    serde_json::from_str(&turn.request).expect("a JSON request")
}

#[test]
fn a_three_seat_match_starts_once_everyone_accepts_and_ranks_everyone() {
    let mut setup = goofspiel(3, Format::Single);
    let mut progress = challenge(&setup, T0);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("bot 2 accepts");
    assert_eq!(
        progress.status,
        MatchStatus::Pending,
        "bot 3 has not accepted yet"
    );
    assert_eq!(
        accept(&mut setup, &mut progress, 9, false, String::new(), T0),
        Err(ArenaError::NotYourChallenge("the challenged bot"))
    );
    accept(&mut setup, &mut progress, 3, false, String::new(), T0).expect("bot 3 accepts");
    assert_eq!(progress.status, MatchStatus::Running);
    // Every pending seat has a decision, built for that seat.
    let decisions = turns(&setup, &progress, Participants::ALL, T0, &|_, _, _| true);
    assert_eq!(decisions.len(), 3);
    for turn in &decisions {
        let request = request(turn);
        assert_eq!(request["game"], "goofspiel");
        assert_eq!(request["seats"], 3);
        assert_eq!(request["phase"], 1);
        assert_eq!(request["participant"], turn.participant);
        let seat = progress.legs[0].seat_of(turn.participant);
        assert_eq!(request["seat"], seat.0);
        assert_eq!(request["deadline_ms"], T0 + 1_000, "the phase's deadline");
        assert_eq!(request["legal_actions"].as_array().map(Vec::len), Some(3));
    }
    // Two bid; the third is still asked, and its deadline does not move.
    submit(
        &setup,
        &mut progress,
        1,
        0,
        0,
        &json!({"round": 1, "card": 3}),
        T0 + 100,
    )
    .expect("bot 1 bids");
    submit(
        &setup,
        &mut progress,
        2,
        0,
        0,
        &json!({"round": 1, "card": 2}),
        T0 + 200,
    )
    .expect("bot 2 bids");
    let left = turns(
        &setup,
        &progress,
        Participants::ALL,
        T0 + 300,
        &|_, _, _| true,
    );
    assert_eq!(left.iter().map(|t| t.participant).collect::<Vec<_>>(), [2]);
    assert_eq!(request(&left[0])["deadline_ms"], T0 + 1_000);
    assert_eq!(
        (left[0].revision, request(&left[0])["revision"].as_u64()),
        (0, Some(0)),
        "a phase's decisions are announced once, at the phase's first revision"
    );
    // A bid sent again, quoting the announced revision, gets its original reply.
    let again = submit(
        &setup,
        &mut progress,
        1,
        0,
        0,
        &json!({"round": 1, "card": 3}),
        T0 + 400,
    )
    .expect("a repeat");
    assert_eq!(again.revision, 1);
    assert_eq!(
        submit(
            &setup,
            &mut progress,
            1,
            0,
            0,
            &json!({"round": 1, "card": 1}),
            T0 + 400
        ),
        Err(ArenaError::NotYourTurn),
        "another bid is not a repeat"
    );
    // Bot 3 never bids: each round's deadline bids its lowest card for it.
    for round in 0..3 {
        tick(&setup, &mut progress, T0 + 1_000 * (round + 1), &online);
        if round < 2 {
            for (bot, card) in [(1, 2 - round), (2, 1)] {
                let card = if round == 1 && bot == 2 { 3 } else { card };
                let revision = progress.legs[0].revision;
                submit(
                    &setup,
                    &mut progress,
                    bot,
                    0,
                    revision,
                    &json!({"round": round + 2, "card": card}),
                    T0 + 1_000 * (round + 1) + 10,
                )
                .expect("a bid");
            }
        }
    }
    assert_eq!(
        progress.status,
        MatchStatus::Finished,
        "{:?}",
        progress.result
    );
    let result = json!(progress.result.clone().expect("result"));
    assert_eq!(
        result["ranks"].as_array().map(Vec::len),
        Some(3),
        "{result}"
    );
    assert_eq!(result["totals"].as_array().map(Vec::len), Some(3));
    let rebuilt = replay(&setup, MatchStatus::Finished, &progress.fresh).expect("replay");
    let rebuilt_result = json!(rebuilt.result.expect("a result"));
    assert_eq!(
        (&rebuilt_result["ranks"], &rebuilt_result["totals"]),
        (&result["ranks"], &result["totals"])
    );
    assert_eq!(rebuilt.legs[0].state.save(), progress.legs[0].state.save());
}

#[test]
fn an_invited_bot_can_refuse_and_the_challenger_can_cancel() {
    for (bot, cancel, kind) in [(3, false, "rejected"), (1, true, "cancelled")] {
        let setup = goofspiel(3, Format::Single);
        let mut progress = challenge(&setup, T0);
        assert_eq!(
            decline(&setup, &mut progress, 9, cancel, T0),
            Err(ArenaError::NotYourChallenge(if cancel {
                "the challenger"
            } else {
                "the challenged bot"
            }))
        );
        decline(&setup, &mut progress, bot, cancel, T0).expect("allowed");
        assert_eq!(progress.status, MatchStatus::Rejected);
        assert_eq!(progress.result.clone().expect("result").reason, kind);
    }
}

#[test]
fn paired_legs_give_every_participant_every_seat() {
    let mut setup = goofspiel(3, Format::Paired);
    let progress = started(&mut setup);
    assert_eq!(progress.legs.len(), 3);
    for participant in 0..3 {
        let mut seats: Vec<u8> = progress
            .legs
            .iter()
            .map(|leg| leg.seat_of(participant).0)
            .collect();
        seats.sort_unstable();
        assert_eq!(seats, [0, 1, 2], "participant {participant}");
    }
    for leg in &progress.legs {
        for seat in 0..3u8 {
            assert_eq!(leg.seat_of(leg.participant_of(Seat(seat))), Seat(seat));
        }
    }
}

/// One thing a test driver does to a match.
#[derive(Clone, Debug)]
enum Step {
    /// Participant `who` (modulo the seats) bids its `pick`-th legal card (modulo).
    Bid { who: usize, pick: usize },
    /// Time passes to the next deadline.
    Wait,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            4 => (0..4usize, 0..3usize).prop_map(|(who, pick)| Step::Bid { who, pick }),
            1 => Just(Step::Wait),
        ],
        1..30,
    )
}

/// What a reader receives of a match: its snapshot (with its decisions) and the events it
/// may read, as text.
fn seen(setup: &Setup, progress: &Progress, reader: Reader, now: i64) -> String {
    let events: Vec<String> = progress
        .fresh
        .iter()
        .filter(|e| reader.sees(e.audience))
        .map(|e| format!("{} {} {} {}", e.seq, e.at_ms, e.kind, e.payload))
        .collect();
    format!(
        "{}\n{}",
        json!(snapshot(setup, progress, reader, now)),
        events.join("\n")
    )
}

/// A bid played: its index among the bids, the participant, the round, and whether another
/// card was legal.
type BidPlayed = (usize, usize, u32, bool);

/// Plays `steps` on a fresh match; `replace` swaps the card of one bid (by index among the
/// bids played) for another legal one. Returns the match, the bids played, as (index,
/// participant, round, whether another card was legal), and the time reached.
fn play(
    seats: usize,
    steps: &[Step],
    replace: Option<usize>,
) -> (Setup, Progress, Vec<BidPlayed>, i64) {
    let mut setup = goofspiel(seats, Format::Single);
    let mut progress = started(&mut setup);
    let mut now = T0;
    let mut bids = Vec::new();
    for step in steps {
        if progress.status != MatchStatus::Running {
            break;
        }
        match step {
            Step::Bid { who, pick } => {
                let participant = who % seats;
                let leg = &progress.legs[0];
                let seat = leg.seat_of(participant);
                let legal = leg.state.legal_actions(seat);
                if legal.is_empty() {
                    continue;
                }
                let mut index = pick % legal.len();
                if replace == Some(bids.len()) {
                    index = (index + 1) % legal.len();
                }
                let round = u32::try_from(legal[index]["round"].as_u64().unwrap_or(0)).unwrap_or(0);
                now += 10;
                let bot = setup.bots[participant].id;
                let revision = leg.revision;
                submit(&setup, &mut progress, bot, 0, revision, &legal[index], now)
                    .expect("a legal bid");
                bids.push((bids.len(), participant, round, legal.len() > 1));
            }
            Step::Wait => {
                if let Some(at) = next_deadline(&setup, &progress, &online) {
                    now = now.max(at);
                    tick(&setup, &mut progress, now, &online);
                }
            }
        }
    }
    (setup, progress, bids, now)
}

fn round_of(progress: &Progress) -> Option<u32> {
    match progress.legs[0].state.to_act() {
        ToAct::Simultaneous { phase, .. } => Some(phase),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever card a seat bid, as long as the round is not revealed every other reader —
    /// each other participant and a spectator — receives exactly the same text: snapshots,
    /// decisions and events, values and shape alike.
    #[test]
    fn no_reader_learns_another_seat_s_bid_before_the_reveal(
        seats in 2..=4usize,
        steps in steps(),
    ) {
        let (setup, progress, bids, now) = play(seats, &steps, None);
        // The bids of the round under way are the unrevealed ones.
        let Some(round) = round_of(&progress) else { return Ok(()); };
        for &(index, bidder, bid_round, _) in bids.iter().filter(|b| b.2 == round && b.3) {
            let (_, twin, _, twin_now) = play(seats, &steps, Some(index));
            prop_assert_eq!(twin_now, now);
            prop_assert_eq!(round_of(&twin), Some(bid_round));
            let bidder_sees_it = seen(&setup, &progress, Reader { participants: Participants::only(bidder), omniscient: false }, now)
                != seen(&setup, &twin, Reader { participants: Participants::only(bidder), omniscient: false }, now);
            prop_assert!(bidder_sees_it, "the bidder sees its own bid");
            let mut readers = vec![Reader::SPECTATOR];
            readers.extend((0..seats).filter(|&p| p != bidder).map(|p| Reader {
                participants: Participants::only(p),
                omniscient: false,
            }));
            for reader in readers {
                prop_assert_eq!(
                    seen(&setup, &progress, reader, now),
                    seen(&setup, &twin, reader, now),
                    "{:?} learns participant {}'s bid", reader, bidder
                );
            }
        }
    }
}

#[test]
fn a_table_starts_when_its_last_seat_is_taken() {
    let mut setup = goofspiel(3, Format::Single);
    let everyone = setup.bots.clone();
    setup.bots.truncate(1);
    setup.table = true;
    let mut progress = challenge(&setup, T0);
    assert_eq!(
        accept(&mut setup, &mut progress, 2, false, String::new(), T0),
        Err(ArenaError::InvalidRequest(
            "a table starts when its seats are taken: join it instead".to_owned()
        ))
    );
    join(
        &mut setup,
        &mut progress,
        everyone[1].clone(),
        String::new(),
        T0 + 10,
    )
    .expect("a free seat");
    assert_eq!(progress.status, MatchStatus::Pending);
    assert!(
        join(
            &mut setup,
            &mut progress,
            everyone[1].clone(),
            String::new(),
            T0 + 20
        )
        .is_err(),
        "one seat per bot"
    );
    join(
        &mut setup,
        &mut progress,
        everyone[2].clone(),
        String::new(),
        T0 + 30,
    )
    .expect("the last seat");
    assert_eq!(progress.status, MatchStatus::Running);
    assert_eq!(setup.bots.len(), 3);
    assert_eq!(
        turns(&setup, &progress, Participants::ALL, T0 + 30, &|_, _, _| {
            true
        })
        .len(),
        3
    );
    assert!(
        join(
            &mut setup,
            &mut progress,
            bot(9, "Late", BotKind::Registered),
            String::new(),
            T0 + 40
        )
        .is_err(),
        "a full table takes nobody"
    );
    let joined: Vec<Value> = progress
        .fresh
        .iter()
        .filter(|e| e.kind == "joined")
        .map(|e| e.payload_value()["participant"].clone())
        .collect();
    assert_eq!(joined, [json!(1), json!(2)]);
    // After a restart the setup holds every seated bot, and replay rebuilds the match.
    let rebuilt = replay(&setup, MatchStatus::Running, &progress.fresh).expect("replay");
    assert_eq!(rebuilt.legs[0].state.save(), progress.legs[0].state.save());
}

#[test]
fn a_seat_that_resigns_leaves_and_the_others_play_on() {
    let mut setup = goofspiel(3, Format::Single);
    let mut progress = started(&mut setup);
    submit(
        &setup,
        &mut progress,
        1,
        0,
        0,
        &json!({"round": 1, "card": 3}),
        T0 + 10,
    )
    .expect("bot 1 bids");
    // Bot 3 resigns mid-round: Goofspiel bids its lowest card for it from then on.
    resign(&setup, &mut progress, 3, T0 + 20).expect("resign");
    assert_eq!(
        progress.status,
        MatchStatus::Running,
        "{:?}",
        progress.result
    );
    assert!(progress.fresh.iter().any(|e| e.kind == "left"));
    let pending = turns(&setup, &progress, Participants::ALL, T0 + 20, &|_, _, _| {
        true
    });
    assert_eq!(
        pending.iter().map(|t| t.participant).collect::<Vec<_>>(),
        [1],
        "only bot 2 is still asked in round 1"
    );
    assert_eq!(
        resign(&setup, &mut progress, 3, T0 + 25).map(|()| progress.status),
        Ok(MatchStatus::Running),
        "leaving twice changes nothing"
    );
    // Bots 1 and 2 play the other rounds alone.
    for at in 0..4 {
        for bot in [1, 2] {
            let mine = setup.participants_of(bot);
            let Some(turn) = turns(&setup, &progress, mine, T0 + 30 + at, &|_, _, _| true).pop()
            else {
                continue;
            };
            let action = request(&turn)["legal_actions"][0].clone();
            submit(
                &setup,
                &mut progress,
                bot,
                0,
                turn.revision,
                &action,
                T0 + 30 + at,
            )
            .expect("a legal bid");
        }
    }
    assert_eq!(
        progress.status,
        MatchStatus::Finished,
        "{:?}",
        progress.result
    );
    let result = json!(progress.result.clone().expect("result"));
    assert_eq!(
        result["reason"], "score",
        "the game ended as it does: {result}"
    );
    let rebuilt = replay(&setup, MatchStatus::Finished, &progress.fresh).expect("replay");
    assert_eq!(rebuilt.legs[0].state.save(), progress.legs[0].state.save());
    assert!(rebuilt.gone.contains(2));
}

/// Four seats in two teams, seats 0 and 2 against 1 and 3; each seat says "go" once, in turn,
/// and the first team wins. A seat that leaves is skipped.
struct Relay;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct RelayState {
    next: u8,
    gone: u8,
}

impl RelayState {
    fn skip_the_gone(&mut self) {
        while self.next < 4 && self.gone >> self.next & 1 == 1 {
            self.next += 1;
        }
    }
}

impl arbiter_rules::Game for Relay {
    const ID: &'static str = "relay";
    const RULES_VERSION: u32 = 1;
    type Config = Value;
    type State = RelayState;
    type Action = String;
    type Event = String;
    type View = u8;

    fn seat_count(_config: &Value) -> Result<usize, arbiter_rules::ConfigError> {
        Ok(4)
    }

    fn start(
        _config: &Value,
        _ctx: &mut Ctx<'_>,
    ) -> Result<arbiter_rules::Started<RelayState, String>, arbiter_rules::ConfigError> {
        Ok((RelayState { next: 0, gone: 0 }, Vec::new()))
    }

    fn to_act(state: &RelayState) -> ToAct {
        if state.next < 4 {
            ToAct::Turn {
                seat: Seat(state.next),
            }
        } else {
            ToAct::Nobody
        }
    }

    fn legal_actions(state: &RelayState, seat: Seat) -> Vec<String> {
        if Relay::to_act(state) == (ToAct::Turn { seat }) {
            vec!["go".to_owned()]
        } else {
            Vec::new()
        }
    }

    fn apply(
        state: &mut RelayState,
        seat: Seat,
        _action: &String,
        _ctx: &mut Ctx<'_>,
    ) -> Result<arbiter_rules::Events<String>, RuleError> {
        if Relay::to_act(state) != (ToAct::Turn { seat }) {
            return Err(RuleError::NotYourTurn);
        }
        state.next += 1;
        state.skip_the_gone();
        Ok(Vec::new())
    }

    fn view(state: &RelayState, _viewer: Viewer) -> u8 {
        state.next
    }

    fn outcome(state: &RelayState) -> Option<Outcome> {
        (state.next == 4).then(|| Outcome {
            seats: (0..4u8)
                .map(|seat| arbiter_rules::SeatOutcome {
                    result: if seat % 2 == 0 {
                        arbiter_rules::SeatResult::Win
                    } else {
                        arbiter_rules::SeatResult::Loss
                    },
                    score: i64::from(seat % 2 == 0),
                    rank: 1 + seat % 2,
                    team: Some(seat % 2),
                })
                .collect(),
            score_order: ScoreOrder::HigherIsBetter,
            reason: "relay".to_owned(),
        })
    }

    fn forfeit(_state: &RelayState, seat: Seat) -> Outcome {
        Outcome::forfeit(&[0, 0, 0, 0], seat, ScoreOrder::HigherIsBetter)
    }

    fn leave(
        state: &mut RelayState,
        seat: Seat,
        _ctx: &mut Ctx<'_>,
    ) -> Option<arbiter_rules::Events<String>> {
        state.gone |= 1 << seat.0;
        state.skip_the_gone();
        Some(vec![arbiter_rules::Emitted::public(format!(
            "seat {} left",
            seat.0
        ))])
    }
}

struct RelaySetup;

impl arbiter_plugin::MatchSetup for RelaySetup {
    fn variants(&self) -> &'static [arbiter_plugin::VariantSpec] {
        &[arbiter_plugin::VariantSpec {
            name: "four",
            min_seats: 4,
            max_seats: 4,
            summary: "Two teams of two.",
        }]
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        _rng: &mut dyn arbiter_rules::Random,
    ) -> Result<Vec<Value>, arbiter_plugin::SetupError> {
        Ok(vec![Value::Null; request.legs])
    }
}

static RELAY_RULES: arbiter_rules::Erased<Relay> = arbiter_rules::Erased::new();

static RELAY: Family = Family {
    rules: &RELAY_RULES,
    setup: &RelaySetup,
    codec: &arbiter_plugin::JsonCodec,
    decisions: &arbiter_plugin::GenericDecisions,
    clock: arbiter_plugin::ClockPolicy::PerAction,
    house: None,
    board: None,
    points: None,
    line: None,
    talk: None,
    record: None,
};

#[test]
fn a_team_game_s_result_carries_the_teams_and_their_ranks() {
    let mut setup = Setup {
        family: &RELAY,
        variant: "four".to_owned(),
        ..goofspiel(4, Format::Single)
    };
    let mut progress = started(&mut setup);
    for at in 0..4 {
        let turn = turns(&setup, &progress, Participants::ALL, T0 + at, &|_, _, _| {
            true
        })
        .pop()
        .expect("a turn");
        let bot = setup.bots[turn.participant].id;
        submit(
            &setup,
            &mut progress,
            bot,
            0,
            turn.revision,
            &json!("go"),
            T0 + at,
        )
        .expect("go");
    }
    assert_eq!(progress.status, MatchStatus::Finished);
    let result = json!(progress.result.clone().expect("result"));
    assert_eq!(result["teams"], json!([0, 1, 0, 1]), "{result}");
    assert_eq!(result["ranks"], json!([1, 2, 1, 2]), "{result}");
    assert_eq!(
        result["winner"],
        Value::Null,
        "a team, not one participant, won"
    );
}

#[test]
fn a_flag_falling_in_a_game_that_plays_on_makes_its_seat_leave() {
    let mut setup = Setup {
        family: &RELAY,
        variant: "four".to_owned(),
        ..goofspiel(4, Format::Single)
    };
    // Only the flag is under test, not the rule for bots that never make a first move.
    setup.config.first_move_ms = 3_600_000;
    let mut progress = started(&mut setup);
    submit(&setup, &mut progress, 1, 0, 0, &json!("go"), T0 + 100).expect("seat 0 goes");
    // Seat 1's bot never moves; its flag falls a minute later, and the relay goes on.
    let flag = next_deadline(&setup, &progress, &online).expect("a deadline");
    tick(&setup, &mut progress, flag, &online);
    assert_eq!(
        progress.status,
        MatchStatus::Running,
        "{:?}",
        progress.result
    );
    let left = progress
        .fresh
        .iter()
        .find(|e| e.kind == "left")
        .expect("left");
    assert_eq!(left.payload_value()["reason"], "timeout");
    let turn = turns(&setup, &progress, Participants::ALL, flag, &|_, _, _| true)
        .pop()
        .expect("seat 2's turn");
    assert_eq!(turn.participant, 2);
    for bot in [3, 4] {
        let turn = turns(
            &setup,
            &progress,
            setup.participants_of(bot),
            flag,
            &|_, _, _| true,
        )
        .pop()
        .expect("a turn");
        submit(
            &setup,
            &mut progress,
            bot,
            0,
            turn.revision,
            &json!("go"),
            flag + 10,
        )
        .expect("go");
    }
    assert_eq!(progress.status, MatchStatus::Finished);
    let rebuilt = replay(&setup, MatchStatus::Finished, &progress.fresh).expect("replay");
    assert_eq!(rebuilt.legs[0].clocks_ms, progress.legs[0].clocks_ms);
    assert!(rebuilt.gone.contains(1));
}
