use arbiter_store::BotKind;

use arbiter_othello_plugin::FAMILY as OTHELLO;

use super::*;
use crate::directory::BotProfile;

mod clock;
mod seats;

pub(super) const T0: i64 = 1_000_000;

pub(super) fn bot(id: BotId, name: &str, kind: BotKind) -> Bot {
    Bot {
        id,
        name: name.to_owned(),
        kind,
        created_ms: 0,
        disabled: false,
        deleted: false,
        token_prefix: None,
        profile: BotProfile::default(),
        environment: None,
        default_variant: "std",
    }
}

pub(super) fn setup(format: Format, time_control: TimeControl) -> Setup {
    Setup {
        id: 7,
        bots: vec![
            bot(1, "Alpha", BotKind::Registered),
            bot(2, "Beta", BotKind::Registered),
        ],
        seat_count: 2,
        table: false,
        family: &OTHELLO,
        variant: "std".to_owned(),
        format,
        time_control,
        rated: true,
        auto: false,
        opening: Opening::Random,
        seat: SeatChoice::First,
        created_ms: T0,
        seed: ServerSeed::from_revealed("a-test-seed"),
        client_seeds: Vec::new(),
        config: ArenaConfig::default(),
        terms: Default::default(),
    }
}

pub(super) fn online(_: BotId) -> Presence {
    Presence::Online { until_ms: None }
}

fn started(setup: &mut Setup) -> Progress {
    let mut progress = challenge(setup, T0);
    accept(setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    progress.fresh.clear();
    progress
}

/// Plays the first legal move of the side to move in `leg` at `now`.
fn play_first(setup: &Setup, progress: &mut Progress, leg: usize, now: i64) -> MoveReply {
    let turn = turns(setup, progress, Participants::ALL, now, &|_, _, _| true)
        .into_iter()
        .find(|t| t.leg == leg)
        .expect("a pending turn");
    let request = serde_json::from_str::<Value>(&turn.request).expect("a JSON request");
    let legal = request["legal_moves"].as_array().expect("legal moves");
    let mv = legal.first().cloned().unwrap_or(json!(-1));
    let bot = setup.bots[turn.participant].id;
    submit(
        setup,
        progress,
        bot,
        u8::try_from(leg).expect("leg"),
        turn.revision,
        &mv,
        now,
    )
    .expect("legal move")
}

/// A one-leg match whose leg starts after seven plies from the start position, White to
/// move: White's c1 (square 2) then leaves Black with no move while White still has some.
fn before_a_forced_pass(black: BotKind) -> (Setup, Progress) {
    let mut setup = setup(Format::Single, TimeControl::default());
    setup.bots[0] = bot(1, "Ada", black);
    let mut progress = started(&mut setup);
    let opening = [19, 18, 17, 9, 37, 16, 0]
        .map(arbiter_othello::Move::Place)
        .to_vec();
    let config = serde_json::to_value(arbiter_othello::OthelloConfig {
        variant: arbiter_othello::Variant::Std,
        opening: arbiter_othello::Opening::Moves(opening),
    })
    .expect("config");
    let (state, _) = OTHELLO
        .rules
        .start(&config, &mut Ctx::new(0, &mut setup.rng(1)))
        .expect("start");
    progress.legs[0].state = state;
    (setup, progress)
}

#[test]
fn the_server_passes_for_a_person_who_cannot_move_and_bots_pass_themselves() {
    let (setup, mut progress) = before_a_forced_pass(BotKind::Human);
    submit(&setup, &mut progress, 2, 0, 0, &json!(2), T0 + 1_000).expect("c1");
    let leg = &progress.legs[0];
    let played: Vec<(usize, Value)> = leg
        .moves
        .iter()
        .map(|m| (m.participant, (*m.action).clone()))
        .collect();
    assert_eq!(
        played,
        vec![(1, json!(2)), (0, json!(-1))],
        "Black's pass was played"
    );
    assert_eq!(leg.mover().map(|(_, p)| p), Some(1), "White moves again");
    assert_eq!(leg.revision, 2);

    // Between bots, the bot with no move sends its own pass.
    let (setup, mut progress) = before_a_forced_pass(BotKind::Registered);
    submit(&setup, &mut progress, 2, 0, 0, &json!(2), T0 + 1_000).expect("c1");
    let leg = &progress.legs[0];
    assert_eq!(leg.moves.len(), 1);
    assert_eq!(
        leg.mover().map(|(_, p)| p),
        Some(0),
        "Black must pass itself"
    );
}

#[test]
fn a_person_is_never_judged_absent_or_slow_to_start() {
    let mut setup = setup(Format::Single, TimeControl::default());
    setup.bots[0] = bot(1, "Ada", BotKind::Human);
    let mut progress = started(&mut setup);
    // The bot is connected; the person's presence is never asked.
    let offline = |id: BotId| {
        if id == 1 {
            Presence::Offline { since_ms: T0 }
        } else {
            Presence::Online { until_ms: None }
        }
    };
    // Well past the first-move and disconnect limits, with the person to move and "offline":
    // only the clock can end the match.
    tick(&setup, &mut progress, T0 + 50_000, &offline);
    assert_eq!(progress.status, MatchStatus::Running);
    tick(&setup, &mut progress, T0 + 61_000, &offline);
    assert_eq!(progress.status, MatchStatus::Finished);
    assert_eq!(
        progress.result.as_ref().map(|r| json!(r.reason)),
        Some(json!("timeout"))
    );
}

#[test]
fn a_paired_match_plays_to_the_end_and_sums_both_legs() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    assert_eq!(progress.status, MatchStatus::Running);
    assert_eq!(progress.legs[0].first_seat_participant, 0);
    assert_eq!(progress.legs[1].first_seat_participant, 1);
    assert_eq!(
        progress.legs[0].state.save()["state"]["board"],
        progress.legs[1].state.save()["state"]["board"],
        "same opening"
    );
    let mut now = T0;
    while progress.is_open() {
        now += 10;
        for leg in 0..2 {
            if progress.legs[leg].ended.is_none() && progress.is_open() {
                play_first(&setup, &mut progress, leg, now);
            }
        }
    }
    let result = json!(progress.result.clone().expect("result"));
    let discs: Vec<[i64; 2]> = progress
        .legs
        .iter()
        .map(|l| {
            let view = l.state.view(Viewer::Omniscient);
            [
                view["discs"][0].as_i64().expect("black"),
                view["discs"][1].as_i64().expect("white"),
            ]
        })
        .collect();
    // Participant 0 is Black in leg 0 and White in leg 1.
    let totals = [discs[0][0] + discs[1][1], discs[0][1] + discs[1][0]];
    assert_eq!(result["totals"], json!(totals));
    assert_eq!(result["reason"], "discs");
    let expected_winner = match totals[0].cmp(&totals[1]) {
        std::cmp::Ordering::Greater => json!(0),
        std::cmp::Ordering::Less => json!(1),
        std::cmp::Ordering::Equal => Value::Null,
    };
    assert_eq!(result["winner"], expected_winner);
    let seqs: Vec<i64> = progress.fresh.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "contiguous seq");
    assert_eq!(
        progress.fresh.last().map(|e| e.kind.as_str()),
        Some("finished")
    );
}

#[test]
fn challenges_expire_after_two_minutes() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    tick(&setup, &mut progress, T0 + 119_999, &online);
    assert_eq!(progress.status, MatchStatus::Pending);
    assert_eq!(
        next_deadline(&setup, &progress, &online),
        Some(T0 + 120_000)
    );
    tick(&setup, &mut progress, T0 + 120_000, &online);
    assert_eq!(progress.status, MatchStatus::Expired);
    assert_eq!(
        accept(
            &mut setup,
            &mut progress,
            2,
            false,
            String::new(),
            T0 + 120_001
        ),
        Err(ArenaError::ChallengeNotPending)
    );
}

#[test]
fn only_the_right_bot_answers_a_challenge() {
    let mut setup = setup(Format::Single, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    assert_eq!(
        accept(&mut setup, &mut progress, 1, false, String::new(), T0),
        Err(ArenaError::NotYourChallenge("the challenged bot"))
    );
    assert_eq!(
        decline(&setup, &mut progress, 2, true, T0),
        Err(ArenaError::NotYourChallenge("the challenger"))
    );
    decline(&setup, &mut progress, 2, false, T0).expect("reject");
    assert_eq!(progress.status, MatchStatus::Rejected);
    assert_eq!(
        progress.fresh.last().map(|e| e.kind.as_str()),
        Some("rejected")
    );
}

#[test]
fn refused_moves_change_nothing_while_the_clock_runs() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    let turn = turns(&setup, &progress, Participants::only(0), T0, &|_, _, _| {
        true
    })
    .into_iter()
    .find(|t| t.leg == 0)
    .expect("black to move in leg 0");
    let request = serde_json::from_str::<Value>(&turn.request).expect("a JSON request");
    let legal: Vec<i64> = request["legal_moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_i64().expect("index"))
        .collect();
    let illegal = (0..64)
        .find(|sq| !legal.contains(sq) && request["board"][*sq as usize] == 0)
        .expect("an empty illegal square");
    let cases: Vec<(BotId, u8, u64, Value, ArenaError)> = vec![
        (9, 0, 0, json!(legal[0]), ArenaError::NotParticipant),
        (1, 2, 0, json!(legal[0]), ArenaError::NoSuchLeg(2)),
        (
            1,
            0,
            3,
            json!(legal[0]),
            ArenaError::StaleRevision {
                given: 3,
                current: 0,
            },
        ),
        (2, 0, 0, json!(legal[0]), ArenaError::NotYourTurn),
        (
            1,
            0,
            0,
            json!("zz"),
            ArenaError::InvalidCoordinate("zz".into()),
        ),
        (1, 0, 0, json!(64), ArenaError::OutsideBoard("64".into())),
        (
            1,
            0,
            0,
            json!(-1),
            ArenaError::IllegalMove("pass is only legal when no move is".into()),
        ),
    ];
    for (bot, leg, revision, mv, expected) in cases {
        let before = snapshot(&setup, &progress, Reader::OMNISCIENT, T0 + 5_000);
        assert_eq!(
            submit(&setup, &mut progress, bot, leg, revision, &mv, T0 + 5_000),
            Err(expected)
        );
        assert_eq!(
            snapshot(&setup, &progress, Reader::OMNISCIENT, T0 + 5_000),
            before
        );
    }
    let error =
        submit(&setup, &mut progress, 1, 0, 0, &json!(illegal), T0 + 5_000).expect_err("illegal");
    assert!(matches!(error, ArenaError::IllegalMove(_)), "{error:?}");
    // The clock kept running through the refusals: the accepted move is charged 6 s.
    submit(&setup, &mut progress, 1, 0, 0, &json!(legal[0]), T0 + 6_000).expect("legal");
    assert_eq!(progress.legs[0].clocks_ms, [54_000, 60_000]);
}

#[test]
fn a_repeated_move_returns_the_original_reply() {
    let mut setup = setup(
        Format::Single,
        TimeControl {
            increment_ms: 2_000,
            ..TimeControl::default()
        },
    );
    let mut progress = started(&mut setup);
    let first = play_first(&setup, &mut progress, 0, T0 + 1_000);
    assert_eq!(progress.legs[0].clocks_ms[0], 61_000, "increment added");
    let turn_move = progress.legs[0].moves[0].action.clone();
    let seq = progress.seq;
    let again = submit(&setup, &mut progress, 1, 0, 0, &turn_move, T0 + 2_000).expect("idempotent");
    assert_eq!(again, first);
    assert_eq!(progress.seq, seq, "no new event");
    let other = progress.legs[0]
        .state
        .legal_actions(Seat(1))
        .into_iter()
        .next()
        .expect("a move");
    assert!(matches!(
        submit(&setup, &mut progress, 1, 0, 0, &other, T0 + 2_000),
        Err(ArenaError::StaleRevision { .. })
    ));
}

#[test]
fn practice_at_acceptance_makes_the_match_unrated_and_records_why() {
    let mut setup = setup(Format::Single, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    // A refused acceptance leaves the terms alone.
    assert_eq!(
        accept(&mut setup, &mut progress, 1, true, String::new(), T0),
        Err(ArenaError::NotYourChallenge("the challenged bot"))
    );
    assert!(setup.rated);
    accept(&mut setup, &mut progress, 2, true, String::new(), T0).expect("accept");
    assert!(!setup.rated);
    assert_eq!(
        setup.details(&progress)["rated"],
        false,
        "the row stores it"
    );
    assert_eq!(json!(summary(&setup, &progress, T0))["rated"], false);
    let accepted = progress
        .fresh
        .iter()
        .find(|e| e.kind == "accepted")
        .expect("an accepted event");
    assert_eq!(
        accepted.payload_value(),
        json!({"rated": false, "unrated_because": "practice"})
    );

    // Without practice the challenge's terms stand and the event says nothing.
    let mut rated = self::setup(Format::Single, TimeControl::default());
    let mut progress = challenge(&rated, T0);
    accept(&mut rated, &mut progress, 2, false, String::new(), T0).expect("accept");
    assert!(rated.rated);
    let accepted = progress
        .fresh
        .iter()
        .find(|e| e.kind == "accepted")
        .expect("an accepted event");
    assert_eq!(accepted.payload_value(), json!({}));
}

#[test]
fn a_flag_fall_forfeits_one_leg_while_the_other_plays_on() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    // Participant 1 (Black in leg 1) moves in leg 1; participant 0 never moves in leg 0... but
    // does move once in leg 1 so that no first-move abort applies.
    play_first(&setup, &mut progress, 1, T0 + 1_000);
    play_first(&setup, &mut progress, 1, T0 + 2_000);
    play_first(&setup, &mut progress, 0, T0 + 59_999);
    play_first(&setup, &mut progress, 0, T0 + 60_500);
    // Leg 0: participant 0 (Black) has spent 59.999 s; its next turn began at 60.5 s with 1 ms left.
    tick(&setup, &mut progress, T0 + 60_500, &online);
    assert!(progress.legs[0].ended.is_none());
    tick(&setup, &mut progress, T0 + 60_501, &online);
    let end = progress.legs[0].ended.clone().expect("flag fell");
    assert_eq!(
        end,
        LegEnd {
            reason: "timeout".into(),
            scores: vec![0, 64],
            ranks: vec![2, 1],
            teams: vec![None, None],
            at_ms: T0 + 60_501,
        }
    );
    assert!(
        progress.is_open() && progress.legs[1].ended.is_none(),
        "the other leg continues"
    );
    assert_eq!(
        submit(&setup, &mut progress, 1, 0, 3, &json!(0), T0 + 60_600),
        Err(ArenaError::LegFinished(0))
    );
    // Leg 1: participant 0 (White) now lets its clock run out too.
    let last = progress.legs[1].turn_started_ms;
    let white_left = progress.legs[1].clocks_ms[1];
    if progress.legs[1].mover().map(|(_, p)| p) == Some(0) {
        tick(&setup, &mut progress, last + white_left, &online);
        assert_eq!(
            json!(progress.result.as_ref().expect("over"))["reason"],
            "timeout"
        );
        assert_eq!(
            json!(progress.result.as_ref().expect("over"))["totals"],
            json!([0, 128])
        );
    }
}

#[test]
fn both_legs_lost_on_time_is_a_double_timeout() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    play_first(&setup, &mut progress, 0, T0 + 1_000);
    play_first(&setup, &mut progress, 1, T0 + 1_000);
    // Now participant 1 is to move in leg 0, participant 0 in leg 1; nobody moves again.
    tick(&setup, &mut progress, T0 + 200_000, &online);
    let result = json!(progress.result.clone().expect("over"));
    assert_eq!(result["reason"], "double_timeout");
    assert_eq!(result["totals"], json!([64, 64]));
    assert_eq!(result["winner"], Value::Null);
}

#[test]
fn no_first_move_within_30_s_aborts_unrated() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    play_first(&setup, &mut progress, 0, T0 + 29_000);
    tick(&setup, &mut progress, T0 + 29_999, &online);
    assert_eq!(progress.status, MatchStatus::Running);
    tick(&setup, &mut progress, T0 + 30_000, &online);
    assert_eq!(progress.status, MatchStatus::Aborted);
    assert_eq!(progress.result, Some(MatchResult::closed("no_first_move")));
}

#[test]
fn a_bot_gone_30_s_while_the_other_is_connected_loses() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    play_first(&setup, &mut progress, 0, T0 + 100);
    play_first(&setup, &mut progress, 1, T0 + 100);
    let gone = |bot: BotId| {
        if bot == 2 {
            Presence::Offline {
                since_ms: T0 + 1_000,
            }
        } else {
            Presence::Online { until_ms: None }
        }
    };
    tick(&setup, &mut progress, T0 + 5_000, &gone);
    assert_eq!(next_deadline(&setup, &progress, &gone), Some(T0 + 31_000));
    tick(&setup, &mut progress, T0 + 31_000, &gone);
    let result = json!(progress.result.clone().expect("over"));
    assert_eq!(
        (result["reason"].clone(), result["winner"].clone()),
        (json!("disconnect"), json!(0))
    );
    // Both gone: nobody loses on that account.
    let mut quiet = started(&mut setup);
    play_first(&setup, &mut quiet, 0, T0 + 100);
    play_first(&setup, &mut quiet, 1, T0 + 100);
    let all_gone = |_: BotId| Presence::Offline { since_ms: T0 };
    tick(&setup, &mut quiet, T0 + 50_000, &all_gone);
    assert!(
        quiet
            .result
            .as_ref()
            .is_none_or(|r| r.reason != "disconnect")
    );
}

#[test]
fn resigning_loses_the_match() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = started(&mut setup);
    resign(&setup, &mut progress, 2, T0 + 10).expect("resign");
    let result = json!(progress.result.clone().expect("over"));
    assert_eq!(
        (result["reason"].clone(), result["winner"].clone()),
        (json!("resign"), json!(0))
    );
    assert_eq!(
        resign(&setup, &mut progress, 2, T0 + 10),
        Err(ArenaError::MatchNotRunning)
    );
}

#[test]
fn a_match_may_be_aborted_only_until_every_participant_has_moved() {
    let mut setup = setup(Format::Single, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    play_first(&setup, &mut progress, 0, T0 + 10);
    let mut aborted = progress.clone();
    abort(&setup, &mut aborted, 2, T0 + 20).expect("abortable after one side moved");
    assert_eq!(aborted.status, MatchStatus::Aborted);
    assert_eq!(json!(aborted.result)["reason"], json!("aborted"));
    let rebuilt = replay(&setup, MatchStatus::Aborted, &aborted.fresh).expect("replay");
    assert_eq!(rebuilt.result, aborted.result);
    play_first(&setup, &mut progress, 0, T0 + 30);
    assert!(matches!(
        abort(&setup, &mut progress, 2, T0 + 40),
        Err(ArenaError::InvalidRequest(_))
    ));
    assert_eq!(
        abort(&setup, &mut progress, 99, T0 + 40),
        Err(ArenaError::NotParticipant)
    );
}

#[test]
fn chat_lines_reach_their_room_and_are_counted_again_on_replay() {
    let mut setup = setup(Format::Single, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    assert_eq!(
        say(&setup, &mut progress, 1, ChatRoom::Players, "hi", T0),
        Err(ArenaError::MatchNotRunning)
    );
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    let before = progress.fresh.len();
    say(
        &setup,
        &mut progress,
        1,
        ChatRoom::Players,
        " good luck ",
        T0 + 1,
    )
    .expect("say");
    say(
        &setup,
        &mut progress,
        2,
        ChatRoom::Spectators,
        "hello all",
        T0 + 2,
    )
    .expect("say");
    let said: Vec<(Audience, Value)> = progress.fresh[before..]
        .iter()
        .map(|e| (e.audience, e.payload_value()))
        .collect();
    assert_eq!(
        said,
        [
            (
                Audience::Participant(0),
                json!({"participant": 0, "room": "players", "text": "good luck"})
            ),
            (
                Audience::Participant(1),
                json!({"participant": 0, "room": "players", "text": "good luck"})
            ),
            (
                Audience::Everyone,
                json!({"participant": 1, "room": "spectators", "text": "hello all"})
            ),
        ]
    );
    for bad in ["", "   ", "a\u{7}b", &"x".repeat(CHAT_MAX_CHARS + 1)] {
        assert!(matches!(
            say(&setup, &mut progress, 1, ChatRoom::Players, bad, T0),
            Err(ArenaError::InvalidRequest(_))
        ));
    }
    for _ in 1..CHAT_MAX_LINES {
        say(
            &setup,
            &mut progress,
            1,
            ChatRoom::Spectators,
            "again",
            T0 + 3,
        )
        .expect("say");
    }
    let rebuilt = replay(&setup, MatchStatus::Running, &progress.fresh).expect("replay");
    for mut p in [progress, rebuilt] {
        assert!(matches!(
            say(&setup, &mut p, 1, ChatRoom::Spectators, "once more", T0 + 4),
            Err(ArenaError::InvalidRequest(_))
        ));
        say(&setup, &mut p, 2, ChatRoom::Spectators, "my turn", T0 + 4).expect("the other may");
    }
}

#[test]
fn replaying_the_events_rebuilds_the_match() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    for i in 0..10 {
        play_first(
            &setup,
            &mut progress,
            i % 2,
            T0 + 100 * i64::try_from(i).expect("small"),
        );
    }
    let events = progress.fresh.clone();
    let rebuilt = replay(&setup, MatchStatus::Running, &events).expect("replay");
    assert_eq!(
        snapshot(&setup, &rebuilt, Reader::OMNISCIENT, T0 + 5_000),
        snapshot(&setup, &progress, Reader::OMNISCIENT, T0 + 5_000)
    );
    assert_eq!(rebuilt.seq, progress.seq);
}

#[test]
fn undoing_a_step_restores_the_match_exactly() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    progress.fresh.clear();
    // Undoing the start removes the legs it built.
    let before_start = progress.undo_point();
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    progress.undo(before_start);
    assert!(progress.legs.is_empty());
    assert_eq!(progress.status, MatchStatus::Pending);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    play_first(&setup, &mut progress, 0, T0 + 100);
    progress.fresh.clear();
    let view = |p: &Progress| snapshot(&setup, p, Reader::OMNISCIENT, T0 + 1_000);
    let before = view(&progress);
    let seq = progress.seq;
    let point = progress.undo_point();
    play_first(&setup, &mut progress, 1, T0 + 200);
    play_first(&setup, &mut progress, 0, T0 + 300);
    assert_ne!(view(&progress), before);
    progress.undo(point);
    assert_eq!(view(&progress), before);
    assert_eq!(progress.seq, seq);
    assert!(progress.fresh.is_empty());
    assert_eq!(progress.legs[0].moves.len(), 1);
    assert!(progress.legs[1].moves.is_empty());
    // The undone moves can be played again.
    play_first(&setup, &mut progress, 1, T0 + 200);
}

#[test]
fn events_naming_a_leg_that_does_not_exist_cannot_be_replayed() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let mut progress = challenge(&setup, T0);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    play_first(&setup, &mut progress, 0, T0);
    let good = progress.fresh.clone();
    let last = good.len() - 1;
    for (kind, payload) in [
        ("move", json!({"leg": 2, "seat": 0, "action": 19})),
        ("deadline", json!({"leg": 7})),
        ("leg_finished", json!({"leg": 9, "reason": "timeout"})),
        ("move", json!({"seat": 0, "action": 19})),
    ] {
        let mut events = good.clone();
        events[last].kind = kind.to_owned();
        events[last].payload = EventRecord::payload_of(&payload);
        let error = replay(&setup, MatchStatus::Running, &events).expect_err(kind);
        assert!(
            matches!(error, ArenaError::Unavailable(_)),
            "{kind}: {error}"
        );
    }
}

#[test]
fn a_spectator_and_a_participant_see_what_they_should() {
    let mut setup = setup(Format::Paired, TimeControl::default());
    let progress = started(&mut setup);
    let spectator = json!(snapshot(&setup, &progress, Reader::SPECTATOR, T0));
    assert!(spectator.get("turns").is_none() && spectator["seed"].is_null());
    let alpha = json!(snapshot(
        &setup,
        &progress,
        Reader {
            participants: Participants::only(0),
            omniscient: false,
        },
        T0,
    ));
    assert_eq!(alpha["you"], json!([0]));
    let turns = alpha["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 1, "participant 0 is Black only in leg 0");
    assert_eq!(turns[0]["request"]["budget_ms"], 10_000);
    assert_eq!(turns[0]["request"]["remaining_ms"], 60_000);
}

/// Goofspiel with three cards and one-second bids, so that the arena's handling of
/// simultaneous phases and rules-owned deadlines is exercised in a few steps.
pub(super) struct ThreeCards;

impl arbiter_plugin::MatchSetup for ThreeCards {
    fn variants(&self) -> &'static [arbiter_plugin::VariantSpec] {
        &[arbiter_plugin::VariantSpec {
            name: "standard",
            min_seats: 2,
            max_seats: 4,
            summary: "Three cards.",
        }]
    }

    fn leg_configs(
        &self,
        request: &LegRequest<'_>,
        _rng: &mut dyn arbiter_rules::Random,
    ) -> Result<Vec<Value>, arbiter_plugin::SetupError> {
        Ok(vec![
            json!({"players": request.seats, "cards": 3, "bid_ms": 1000});
            request.legs
        ])
    }
}

pub(super) static GOOFSPIEL: Family = Family {
    rules: &arbiter_goofspiel::RULES,
    setup: &ThreeCards,
    codec: &arbiter_plugin::JsonCodec,
    decisions: &arbiter_plugin::GenericDecisions,
    clock: arbiter_plugin::ClockPolicy::PerPhase,
    house: None,
    board: None,
    points: None,
    line: None,
    talk: None,
    record: None,
};

#[test]
fn simultaneous_phases_take_input_in_any_order_and_rules_deadlines_apply_defaults() {
    let mut setup = Setup {
        family: &GOOFSPIEL,
        variant: "standard".to_owned(),
        ..setup(Format::Single, TimeControl::default())
    };
    let mut progress = challenge(&setup, T0);
    accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
    assert!(matches!(
        progress.legs[0].state.to_act(),
        ToAct::Simultaneous { phase: 1, .. }
    ));
    // Both bid in round 1, quoting the same revision: in a simultaneous phase that is fine.
    submit(
        &setup,
        &mut progress,
        2,
        0,
        0,
        &json!({"round": 1, "card": 3}),
        T0 + 100,
    )
    .expect("participant 1 bids");
    assert_eq!(
        submit(
            &setup,
            &mut progress,
            2,
            0,
            1,
            &json!({"round": 1, "card": 2}),
            T0 + 150
        ),
        Err(ArenaError::NotYourTurn),
        "one bid per phase"
    );
    submit(
        &setup,
        &mut progress,
        1,
        0,
        0,
        &json!({"round": 1, "card": 1}),
        T0 + 200,
    )
    .expect("participant 0 bids");
    assert!(matches!(
        progress.legs[0].state.to_act(),
        ToAct::Simultaneous { phase: 2, .. }
    ));
    // A decision in a phase with a deadline may take half of what is left of the phase,
    // however many decisions the game still has.
    assert_eq!(
        progress.legs[0].decision_share_ms(Seat(0), T0 + 400, |left| left / 10),
        (T0 + 1_200 - (T0 + 400)) / 2
    );
    // Round 2: nobody bids; the rules' deadline bids the lowest cards for both.
    assert_eq!(next_deadline(&setup, &progress, &online), Some(T0 + 1_200));
    tick(&setup, &mut progress, T0 + 1_200, &online);
    assert!(
        progress.fresh.iter().any(|e| e.kind == "deadline"),
        "the deadline was applied"
    );
    tick(&setup, &mut progress, T0 + 2_200, &online);
    assert_eq!(
        progress.status,
        MatchStatus::Finished,
        "three rounds, three prizes"
    );
    let result = json!(progress.result.clone().expect("result"));
    assert_eq!(result["reason"], "score");
    let rebuilt = replay(&setup, MatchStatus::Finished, &progress.fresh).expect("replay");
    assert_eq!(
        rebuilt.legs[0].state.save(),
        progress.legs[0].state.save(),
        "replay reproduces the deadline rounds"
    );
}

#[test]
fn the_challenger_takes_the_seat_chosen_or_one_drawn_from_the_seed() {
    // The first seat of each leg, after the match started and after a replay of its events.
    let seats = |seat: SeatChoice, seed: &str| {
        let mut setup = Setup {
            seat,
            seed: ServerSeed::from_revealed(seed),
            ..setup(Format::Paired, TimeControl::default())
        };
        let mut progress = challenge(&setup, T0);
        accept(&mut setup, &mut progress, 2, false, String::new(), T0).expect("accept");
        let rebuilt = replay(&setup, MatchStatus::Running, &progress.fresh).expect("replay");
        let firsts = |p: &Progress| {
            p.legs
                .iter()
                .map(|l| l.first_seat_participant)
                .collect::<Vec<_>>()
        };
        assert_eq!(firsts(&rebuilt), firsts(&progress), "a replay agrees");
        firsts(&progress)
    };
    assert_eq!(seats(SeatChoice::First, "s"), vec![0, 1]);
    assert_eq!(seats(SeatChoice::Second, "s"), vec![1, 0]);
    let drawn: Vec<Vec<usize>> = (0..16)
        .map(|i| seats(SeatChoice::Random, &format!("seed-{i}")))
        .collect();
    assert!(
        drawn.contains(&vec![0, 1]) && drawn.contains(&vec![1, 0]),
        "{drawn:?}"
    );
    // The draw is the seed's: the same seed draws the same seat.
    assert_eq!(seats(SeatChoice::Random, "seed-3"), drawn[3]);
}
