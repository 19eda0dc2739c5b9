//! Tests of [`choose`](super::choose), on views built from a real deal and then arranged, and
//! on rule-bot games.

use std::sync::{Mutex, PoisonError};

use crate::selfplay::{self, Players, RuleBots};
use crate::view::PublicTrial;
use crate::{
    Bag, ChatLine, Claim, FateAction, FateConfig, FateTokens, FateView, Life, PhaseKind, Role,
    Slot, Token,
};
use arbiter_rules::{Ctx, Game, Random, Seat, Viewer};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use super::*;

/// A seeded generator.
pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A generator that always draws `0`-based value `.0`: `below(n)` gives `.0 % n`, so the
/// opening roll passes (for small values) and a choice among kinds is fixed.
struct Fixed(u32);

impl Random for Fixed {
    fn next_u32(&mut self) -> u32 {
        self.0
    }
}

const NAMES: [&str; 8] = [
    "Minsu", "Bora", "Chulsoo", "Dana", "Jiwoo", "Farah", "Gyu", "Hana",
];

const ME: Seat = Seat(0);

/// Seat 0's view of a fresh `players`-player game, in round 2's discussion: open, without
/// a deadline, every revealed row `[Good, Good]`, no chat, an unawakened Common Fortune's
/// own part with a pile of two Neutral tokens.
pub(crate) fn base_view(players: u8) -> FateView {
    let config = FateConfig {
        players,
        ..FateConfig::default()
    };
    let mut r = rng(1);
    let started = FateTokens::start(&config, &mut Ctx::new(0, &mut r));
    let Ok((state, _)) = started else {
        panic!("the game starts");
    };
    let mut view = FateTokens::view(&state, Viewer::Seat(ME));
    view.round = 2;
    view.phase = PhaseKind::Discussion;
    view.opens_at_ms = 0;
    view.deadline_ms = None;
    view.everyone_chat.clear();
    for s in &mut view.seats {
        s.revealed = vec![Token::Good, Token::Good];
        s.pile_size = 2;
    }
    if let Some(own) = view.own.as_mut() {
        own.role = None;
        own.fellow_great_misfortunes.clear();
        own.pile = vec![
            Slot {
                round: 1,
                token: Token::Neutral,
            },
            Slot {
                round: 2,
                token: Token::Neutral,
            },
        ];
    }
    view
}

fn names(players: usize) -> Vec<String> {
    NAMES.iter().take(players).map(|s| s.to_string()).collect()
}

/// What the seat says on a pass at the cadence's tick.
fn say(
    view: &FateView,
    bots: &[bool],
    language: Language,
    r: &mut dyn Random,
) -> Result<Line, Silence> {
    say_on(view, bots, language, r, true)
}

/// What the seat says on a pass at a tick or after a change at the table.
fn say_on(
    view: &FateView,
    bots: &[bool],
    language: Language,
    r: &mut dyn Random,
    tick: bool,
) -> Result<Line, Silence> {
    let names = names(view.seats.len());
    let table = Table {
        names: &names,
        bots,
        language,
        persona: Persona::Calm,
        now_ms: 1,
        tick,
    };
    choose(view, &table, r)
}

fn chat(seat: u8, round: u32, text: &str) -> ChatLine {
    ChatLine {
        seat: Some(Seat(seat)),
        round,
        text: text.to_string(),
    }
}

fn reveal(view: &mut FateView, seat: u8, tokens: [Token; 2]) {
    view.seats[usize::from(seat)].revealed = tokens.to_vec();
}

fn trial(view: &mut FateView, accuser: u8, accused: u8) {
    view.phase = PhaseKind::Trial;
    view.trials.push(PublicTrial {
        round: view.round,
        accuser: Seat(accuser),
        accused: Seat(accused),
        price: Token::Neutral,
        totals: None,
        exiled: None,
        was_great_misfortune: None,
        counter: None,
    });
}

fn set_role(view: &mut FateView, role: Role, fellows: &[u8]) {
    if let Some(own) = view.own.as_mut() {
        own.role = Some(role);
        own.fellow_great_misfortunes = fellows.iter().copied().map(Seat).collect();
    }
}

const PEOPLE: [bool; 6] = [true, false, false, false, false, false];

#[test]
fn each_kind_is_chosen_where_it_fits() {
    type Arrange = fn(&mut FateView);
    let cases: Vec<(&str, Arrange, u32, LineKind, &str)> = vec![
        (
            "a suspect with Bad tokens",
            |v| reveal(v, 1, [Token::Bad, Token::Bad]),
            0,
            LineKind::Accuse,
            "Bora looks like the Great Misfortune to me, since they revealed 2 Bad.",
        ),
        (
            "two suspects a little above",
            |v| {
                reveal(v, 1, [Token::Neutral, Token::Neutral]);
                reveal(v, 2, [Token::Neutral, Token::Good]);
            },
            0,
            LineKind::Compare,
            "Between Bora and Chulsoo, I suspect Bora more.",
        ),
        (
            "asking the table",
            |v| {
                reveal(v, 1, [Token::Neutral, Token::Neutral]);
                reveal(v, 2, [Token::Neutral, Token::Good]);
            },
            1,
            LineKind::AskOthers,
            "What do you all think of Bora?",
        ),
        (
            "watching",
            |v| {
                reveal(v, 1, [Token::Neutral, Token::Neutral]);
                reveal(v, 2, [Token::Neutral, Token::Good]);
            },
            2,
            LineKind::Watch,
            "Let's watch Bora a little longer.",
        ),
        (
            "nothing to go on",
            |_| {},
            0,
            LineKind::Unsure,
            "I can't tell who it is yet.",
        ),
        (
            "a person suspects someone",
            |v| {
                reveal(v, 2, [Token::Neutral, Token::Neutral]);
                v.everyone_chat.push(chat(3, 2, "Chulsoo is suspicious"));
                v.everyone_chat.push(chat(4, 2, "hm"));
            },
            0,
            LineKind::Agree,
            "I agree with Dana, Chulsoo does look suspicious.",
        ),
        (
            "a person suspects me",
            |v| {
                v.everyone_chat
                    .push(chat(3, 2, "Minsu, you look suspicious"))
            },
            0,
            LineKind::Deny,
            "It isn't me, Dana, I'm on the good side.",
        ),
        (
            "a person asks about my pile",
            |v| {
                v.everyone_chat
                    .push(chat(3, 2, "Minsu, what is in your pile?"))
            },
            0,
            LineKind::PrivateAnswer,
            "",
        ),
        (
            "on trial",
            |v| trial(v, 1, 0),
            0,
            LineKind::Innocent,
            "I'm innocent, please vote no.",
        ),
        (
            "a stance for",
            |v| {
                reveal(v, 2, [Token::Bad, Token::Bad]);
                trial(v, 1, 2);
            },
            0,
            LineKind::Stance,
            "I'll vote to exile Chulsoo.",
        ),
        (
            "a stance against",
            |v| {
                reveal(v, 3, [Token::Bad, Token::Bad]);
                trial(v, 1, 2);
            },
            0,
            LineKind::Stance,
            "I'm not convinced about Chulsoo, so I'll vote no.",
        ),
    ];
    for (name, arrange, draw, kind, text) in cases {
        let mut view = base_view(6);
        arrange(&mut view);
        let line = say(&view, &PEOPLE, Language::English, &mut Fixed(draw));
        let Ok(line) = line else {
            panic!("{name}: silent: {line:?}");
        };
        assert_eq!(line.kind, kind, "{name}: {line:?}");
        if !text.is_empty() {
            assert_eq!(line.text, text, "{name}");
        }
        // The same view in Korean gives the same kind, politely.
        let korean = say(&view, &PEOPLE, Language::Korean, &mut Fixed(draw));
        let Ok(korean) = korean else {
            panic!("{name}: silent in Korean");
        };
        assert_eq!(korean.kind, kind, "{name}");
        assert_eq!(korean.numbers, line.numbers, "{name}");
        assert!(korean.text.contains('요'), "{name}: {}", korean.text);
    }
}

#[test]
fn only_a_living_bot_speaks_in_the_discussion_and_the_trial() {
    for phase in [
        PhaseKind::Draw,
        PhaseKind::Accusation,
        PhaseKind::Night,
        PhaseKind::Vote,
        PhaseKind::ClaimCounter,
    ] {
        let mut view = base_view(6);
        view.phase = phase;
        assert_eq!(
            say(&view, &PEOPLE, Language::English, &mut Fixed(0)),
            Err(Silence::Nothing)
        );
    }
    let mut view = base_view(6);
    view.seats[0].life = Life::Ghost;
    assert_eq!(
        say(&view, &PEOPLE, Language::English, &mut Fixed(0)),
        Err(Silence::Nothing)
    );
    let mut view = base_view(6);
    view.opens_at_ms = 10;
    assert_eq!(
        say(&view, &PEOPLE, Language::English, &mut Fixed(0)),
        Err(Silence::Throttled)
    );
}

#[test]
fn evidence_rotates_and_a_named_suspect_is_skipped() {
    let mut view = base_view(6);
    reveal(&mut view, 1, [Token::Bad, Token::Bad]);
    view.seats[1].marks = 1;
    // Chulsoo's odds equal Bora's; the seat number puts Bora first.
    reveal(&mut view, 2, [Token::Bad, Token::Bad]);
    let first = say(&view, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(first.map(|l| l.numbers), Ok(vec![2]));
    // After one line of the bot's own (an earlier round's, not naming anyone), the next piece.
    view.everyone_chat.push(chat(0, 1, "Hello."));
    view.everyone_chat.push(chat(2, 1, "Hi."));
    view.everyone_chat.push(chat(3, 1, "Hey."));
    let second = say(&view, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(
        second.map(|l| l.text),
        Ok("Bora looks like the Great Misfortune to me, since they carry 1 suspicion mark.".into())
    );
    // Having named Bora this round, the bot turns to the next candidate.
    view.everyone_chat.push(chat(0, 2, "Bora looks odd."));
    view.everyone_chat.push(chat(2, 2, "Hi."));
    view.everyone_chat.push(chat(3, 2, "Hey."));
    let third = say(&view, &PEOPLE, Language::English, &mut Fixed(0));
    let Ok(third) = third else {
        panic!("silent");
    };
    assert!(third.text.starts_with("Chulsoo"), "{}", third.text);
}

#[test]
fn a_great_misfortune_acts_on_its_scapegoat() {
    let mut view = base_view(6);
    set_role(&mut view, Role::GreatMisfortune, &[1]);
    // The fellow is the top public suspect; the scapegoat is the next.
    reveal(&mut view, 1, [Token::Bad, Token::Bad]);
    reveal(&mut view, 2, [Token::Bad, Token::Neutral]);
    let line = say(&view, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(
        line.map(|l| l.text),
        Ok("Chulsoo looks like the Great Misfortune to me, since they revealed 1 Bad.".into())
    );
    // It argues for exiling anyone but its fellow.
    let mut on_trial = view.clone();
    trial(&mut on_trial, 3, 1);
    let line = say(&on_trial, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(line.map(|l| l.kind), Ok(LineKind::Stance));
    let line = say(&on_trial, &PEOPLE, Language::English, &mut Fixed(0));
    assert!(line.is_ok_and(|l| l.text.contains("vote no")));
    let mut on_trial = view.clone();
    trial(&mut on_trial, 3, 4);
    let line = say(&on_trial, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(line.map(|l| l.text), Ok("I'll vote to exile Jiwoo.".into()));
    // Accused, it claims innocence; named as suspicious, it denies.
    let mut accused = view.clone();
    trial(&mut accused, 2, 0);
    let line = say(&accused, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(line.map(|l| l.kind), Ok(LineKind::Innocent));
    let mut named = view;
    named
        .everyone_chat
        .push(chat(2, 2, "Minsu is the misfortune"));
    let line = say(&named, &PEOPLE, Language::English, &mut Fixed(0));
    assert_eq!(line.map(|l| l.kind), Ok(LineKind::Deny));
}

/// Each line said is a change at the table; were opinions rolled after changes too, every
/// line would give every other bot another chance, and bots would talk in bursts.
#[test]
fn opinions_come_on_the_cadence_and_answers_at_any_pass() {
    let view = base_view(6);
    let on_tick = say_on(&view, &PEOPLE, Language::English, &mut Fixed(0), true);
    assert_eq!(on_tick.map(|l| l.kind), Ok(LineKind::Unsure));
    let after_change = say_on(&view, &PEOPLE, Language::English, &mut Fixed(0), false);
    assert_eq!(after_change.map(|l| l.kind), Err(Silence::Throttled));
    let mut asked = view.clone();
    asked
        .everyone_chat
        .push(chat(3, 2, "Minsu, what is in your pile?"));
    let answer = say_on(&asked, &PEOPLE, Language::English, &mut Fixed(999), false);
    assert_eq!(answer.map(|l| l.kind), Ok(LineKind::PrivateAnswer));
}

#[test]
fn bots_do_not_answer_bots() {
    let mut view = base_view(6);
    view.everyone_chat
        .push(chat(3, 2, "Minsu, what is in your pile?"));
    let all_bots = [true; 6];
    for draw in 0..3 {
        let line = say(&view, &all_bots, Language::English, &mut Fixed(draw));
        assert!(
            !matches!(&line, Ok(l) if l.kind == LineKind::PrivateAnswer),
            "{line:?}"
        );
    }
    // The same question from a person is answered, even on a failed opening roll.
    let line = say(&view, &PEOPLE, Language::English, &mut Fixed(999));
    assert_eq!(line.map(|l| l.kind), Ok(LineKind::PrivateAnswer));
}

fn own_with(role: Option<Role>, seat: u8, pile: &[Token]) -> crate::view::OwnView {
    let mut view = base_view(8);
    let Some(mut own) = view.own.take() else {
        panic!("a seat's view");
    };
    own.seat = Seat(seat);
    own.role = role;
    own.pile = pile
        .iter()
        .enumerate()
        .map(|(i, &token)| Slot {
            round: u32::try_from(i).unwrap_or(0) + 1,
            token,
        })
        .collect();
    own
}

#[test]
fn answers_keep_their_rates_and_lies_keep_the_total() {
    let pile = [
        Token::Good,
        Token::Good,
        Token::Neutral,
        Token::Bad,
        Token::Bad,
    ];
    for (role, rates) in [
        (None, [750, 200, 50]),
        (Some(Role::CommonFortune), [750, 200, 50]),
        (Some(Role::GreatFortune), [300, 300, 400]),
        (Some(Role::GreatMisfortune), [200, 300, 500]),
    ] {
        let mut seen = [0u32; 3];
        let mut n = 0;
        for seat in 0..8 {
            let own = own_with(role, seat, &pile);
            for round in 1..1000 {
                n += 1;
                match private_answer(&own, round) {
                    PileAnswer::Honest(c) => {
                        seen[0] += 1;
                        assert_eq!(c, [2, 1, 2]);
                    }
                    PileAnswer::Hide => seen[1] += 1,
                    PileAnswer::Lie(c) => {
                        seen[2] += 1;
                        assert_eq!(c.iter().sum::<u32>(), 5, "the public total");
                        if role == Some(Role::GreatFortune) {
                            assert!(c[0] < 2 && c[2] == 2, "{c:?}");
                        } else {
                            assert!(c[2] < 2 && c[0] == 2, "{c:?}");
                        }
                    }
                }
            }
        }
        for (i, rate) in rates.iter().enumerate() {
            let per_mille = seen[i] * 1000 / n;
            assert!(per_mille.abs_diff(*rate) < 30, "{role:?} {i}: {per_mille}");
        }
    }
}

#[test]
fn asked_again_in_a_round_a_bot_answers_the_same() {
    for round in 1..40 {
        let mut view = base_view(6);
        set_role(&mut view, Role::GreatMisfortune, &[]);
        view.round = round;
        if let Some(own) = view.own.as_mut() {
            own.pile[0].token = Token::Bad;
        }
        view.everyone_chat
            .push(chat(3, round, "Minsu, what did you keep in your pile?"));
        let Ok(first) = say(&view, &PEOPLE, Language::Korean, &mut rng(u64::from(round))) else {
            panic!("an answer");
        };
        view.everyone_chat.push(chat(0, round, &first.text));
        view.everyone_chat
            .push(chat(3, round, "Minsu 비공개 더미 다시 알려주세요"));
        let again = say(
            &view,
            &PEOPLE,
            Language::Korean,
            &mut rng(u64::from(round) + 99),
        );
        assert_eq!(again, Ok(first));
    }
}

/// Rule bots that keep the views they are asked to decide from in the discussion and trial.
struct Collect {
    views: Mutex<Vec<FateView>>,
}

impl Players for Collect {
    fn decide(&self, view: &FateView, rng: &mut dyn Random) -> Option<FateAction> {
        if matches!(view.phase, PhaseKind::Discussion | PhaseKind::Trial) {
            self.views
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(view.clone());
        }
        RuleBots.decide(view, rng)
    }

    fn claims(&self, view: &FateView, rng: &mut dyn Random) -> Vec<FateAction> {
        RuleBots.claims(view, rng)
    }
}

fn token(r: &mut dyn Random) -> Token {
    [Token::Good, Token::Neutral, Token::Bad][arbiter_rules::random::below(r, 3) as usize]
}

/// Changes every secret of the view's seat that a line may not use: its pile's tokens, bag,
/// draws, peeks and whispers, its night form and its own accusation and vote.
pub(crate) fn disguise(view: &FateView, r: &mut dyn Random) -> FateView {
    let mut view = view.clone();
    if let Some(own) = view.own.as_mut() {
        for slot in &mut own.pile {
            slot.token = token(r);
        }
        own.bag = Some(Bag::new(
            arbiter_rules::random::below(r, 9) as u16,
            arbiter_rules::random::below(r, 9) as u16,
            arbiter_rules::random::below(r, 9) as u16,
        ));
        own.drawn = None;
        own.results.clear();
        own.night_form = None;
        own.accused = None;
        own.vote = None;
    }
    view
}

/// Adds a few lines of chat from random seats, people and bots, that may name anyone.
fn chatter(view: &mut FateView, bots: &mut [bool], r: &mut dyn Random) {
    let n = view.seats.len() as u32;
    for b in bots.iter_mut() {
        *b = arbiter_rules::random::below(r, 2) == 0;
    }
    let frames = [
        "{}, what did you keep in your pile?",
        "{} is suspicious",
        "I think {} is the Great Misfortune",
        "hello all",
        "{}님 비공개 더미 알려주세요",
        "{}님 수상해요",
        "{} looks fine to me",
    ];
    for _ in 0..arbiter_rules::random::below(r, 6) {
        let seat = arbiter_rules::random::below(r, n);
        let named = NAMES[arbiter_rules::random::below(r, n) as usize];
        let frame = frames[arbiter_rules::random::below(r, frames.len() as u32) as usize];
        let round = view
            .round
            .saturating_sub(arbiter_rules::random::below(r, 2));
        view.everyone_chat
            .push(chat(seat as u8, round, &frame.replace("{}", named)));
    }
}

#[test]
fn no_line_tells_a_secret() {
    let collect = Collect {
        views: Mutex::new(Vec::new()),
    };
    for (i, players) in (4u8..=8).cycle().take(100).enumerate() {
        let report = selfplay::play(players, 1000 + i as u64, &collect);
        assert!(report.is_ok(), "{report:?}");
    }
    let views = collect
        .views
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    assert!(views.len() > 3000, "{} views", views.len());
    let mut r = rng(5);
    let mut spoken = 0;
    let mut kinds = std::collections::HashSet::new();
    for (i, view) in views.iter().enumerate() {
        let mut view = view.clone();
        let mut bots = vec![false; view.seats.len()];
        chatter(&mut view, &mut bots, &mut r);
        let names = names(view.seats.len());
        for language in [Language::English, Language::Korean] {
            let table = Table {
                names: &names,
                bots: &bots,
                language,
                persona: Persona::for_seat(i),
                now_ms: view.opens_at_ms,
                tick: true,
            };
            let seed = r.next_u32().into();
            let line = choose(&view, &table, &mut rng(seed));
            let masked = disguise(&view, &mut r);
            let again = choose(&masked, &table, &mut rng(seed));
            match &line {
                Ok(l) if l.kind == LineKind::PrivateAnswer => {
                    let size = view.own.as_ref().map_or(0, |o| o.pile.len());
                    if !l.numbers.is_empty() {
                        assert_eq!(l.numbers.iter().sum::<u32>() as usize, size, "{l:?}");
                    }
                    assert_eq!(again.map(|a| a.kind), Ok(LineKind::PrivateAnswer));
                }
                _ => assert_eq!(line, again, "view {i}"),
            }
            if let Ok(l) = &line {
                spoken += 1;
                kinds.insert(l.kind);
                for secret in [
                    "Great Fortune",
                    "Common Fortune",
                    "대길",
                    "평운",
                    "peek",
                    "whisper",
                ] {
                    assert!(!l.text.contains(secret), "{}", l.text);
                }
            }
        }
    }
    assert!(spoken > 1000, "{spoken} lines");
    assert!(kinds.len() >= 8, "{kinds:?}");
}

#[test]
fn claims_and_prices_are_evidence_in_both_languages() {
    let mut view = base_view(6);
    view.seats[1].revealed = vec![Token::Neutral, Token::Neutral];
    view.claims.push(Claim {
        round: 1,
        claimant: Seat(3),
        pair: [Seat(1), Seat(2)],
        bad: 2,
    });
    view.trials.push(PublicTrial {
        round: 1,
        accuser: Seat(1),
        accused: Seat(4),
        price: Token::Bad,
        totals: Some((1, 4)),
        exiled: Some(false),
        was_great_misfortune: None,
        counter: None,
    });
    // The bad price makes Bora the top public suspect; the bot cites the price first, then
    // the claim.
    let expected = [
        (
            Language::English,
            "Bora looks like the Great Misfortune to me, since they paid Bad from their bag 1 time to accuse.",
        ),
        (
            Language::Korean,
            "고발하면서 주머니에서 흉을 1번 냈으니까 Bora님이 대흉 같아요.",
        ),
    ];
    for (language, text) in expected {
        let line = say(&view, &PEOPLE, language, &mut Fixed(0));
        assert_eq!(line.map(|l| l.text), Ok(text.to_string()));
    }
    view.everyone_chat.push(chat(0, 1, "Hello."));
    view.everyone_chat.push(chat(2, 1, "Hi."));
    view.everyone_chat.push(chat(3, 1, "Hey."));
    let line = say(&view, &PEOPLE, Language::Korean, &mut Fixed(0));
    assert_eq!(
        line,
        Ok(Line {
            kind: LineKind::Accuse,
            text: "Dana님이 Bora님과 Chulsoo님 사이에 흉 2개를 선언해서 Bora님이 대흉 같아요."
                .into(),
            numbers: vec![2],
        })
    );
}
