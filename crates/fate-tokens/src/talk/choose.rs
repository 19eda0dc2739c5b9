//! What a bot says (seed 003 §06): one [`Line`] chosen by rules from the bot's own view.
//!
//! [`choose`] reads a seat's [`FateView`] and a [`Table`] (what the view lacks: names, which
//! seats are bots, the language, the persona, the clock) and returns the line the bot says
//! now, or why it stays silent. It speaks only while living, in the discussion and the trial;
//! ghosts stay silent (the Ghosts channel is left to people).
//!
//! # Public evidence only
//!
//! Whom a bot names, and why, comes from public information alone: the public odds of
//! [`bots::public_odds`] (the model on revealed tokens, bag reveals by accusation price,
//! threshold reveals, exile results) and the public evidence behind them (revealed Bad
//! tokens, Bad tokens shown by threshold reveals, suspicion marks, accusation prices paid in
//! Bad, claims). A bot's own secrets (its pile, bag, peeks, whispers) never shape an opinion,
//! so that no line leaks them; what a bot *is* does shape how it plays: an awakened Great
//! Misfortune leaves its fellows out of its suspects, which makes its first suspect the
//! scapegoat of the rule bots (the top public suspect other than itself and its fellows),
//! and in the trial it argues for exiling anyone but a fellow, as it votes. A good bot names
//! by the same bar it accuses by ([`bots::clearly_above`]), on the public odds.
//!
//! The one exception is an answer to a person who asks about the bot's private pile: the bot
//! answers honestly, hides, or lies, at its role's rates (see [`private_answer`]).
//!
//! # What a bot says
//!
//! In order:
//!
//! 1. **Answers** (given at once, see [`super::throttle`]): the latest line of a *person*
//!    (never a bot: bots don't answer bots) this round, written after the bot's own last
//!    line, that names the bot, is either a question about its private pile
//!    ([`asks_about_pile`]) — answered with a [`LineKind::PrivateAnswer`] — or a suspicion
//!    ([`voices_suspicion`]) — answered with a [`LineKind::Deny`].
//! 2. **On trial**: the accused bot says it is innocent ([`LineKind::Innocent`]), without the
//!    opening roll but under the other throttles.
//! 3. **Opinions**, after the throttles and the opening roll: in the trial a
//!    [`LineKind::Stance`] for or against the accused; in the discussion one of
//!    [`LineKind::Accuse`] (the first candidate is clearly above the baseline and there is
//!    evidence to cite), [`LineKind::Agree`] (a person suspected a candidate at or above the
//!    baseline this round), [`LineKind::Compare`], [`LineKind::AskOthers`] or
//!    [`LineKind::Watch`] (the first candidate is above the baseline), else
//!    [`LineKind::Unsure`]. Candidates are the suspects by public GM odds, less those the bot
//!    already named this round. Evidence rotates: the bot cites the `k`-th piece of a
//!    suspect's evidence, `k` being the number of lines it has said so far, so the next
//!    line cites a different one.

use crate::bots;
use crate::view::OwnView;
use crate::{ChatLine, FateView, Life, PhaseKind, Role, Token};
use arbiter_rules::random::below;
use arbiter_rules::{Random, Seat};

use super::throttle::{self, Urge};
use super::{Line, LineKind};
use arbiter_plugin::{Language, Persona, Silence, TalkTable};

/// A persona only colours the opening of a line the rules choose (seed 003 §06).
trait Opening {
    fn opening(self, language: Language) -> &'static str;
}

impl Opening for Persona {
    fn opening(self, language: Language) -> &'static str {
        match (self, language) {
            (Persona::Calm | Persona::Blunt, _) => "",
            (Persona::Bright, Language::English) => "Oh! ",
            (Persona::Bright, Language::Korean) => "오! ",
            (Persona::Timid, Language::English) => "Um... ",
            (Persona::Timid, Language::Korean) => "저기... ",
        }
    }
}

/// What the view lacks that talk needs, supplied by the room: the seam's [`TalkTable`].
pub type Table<'a> = TalkTable<'a>;

/// What talk reads of the table beyond its fields.
trait Seats {
    fn name(&self, seat: Seat) -> String;
    fn is_bot(&self, seat: Seat) -> bool;
    fn names_seat(&self, text: &str, seat: Seat) -> bool;
}

impl Seats for TalkTable<'_> {
    fn name(&self, seat: Seat) -> String {
        self.names
            .get(seat.index())
            .cloned()
            .unwrap_or_else(|| format!("{}", seat.0 + 1))
    }

    fn is_bot(&self, seat: Seat) -> bool {
        self.bots.get(seat.index()).copied().unwrap_or(false)
    }

    /// Whether `text` names `seat` (case-insensitive; an empty name never matches).
    fn names_seat(&self, text: &str, seat: Seat) -> bool {
        let name = self.name(seat).to_lowercase();
        !name.trim().is_empty() && text.to_lowercase().contains(name.trim())
    }
}

/// Keywords that make a line naming the bot a question about its private pile.
pub const PILE_WORDS: [&str; 8] = [
    "pile",
    "private",
    "kept",
    "hidden",
    "비공개",
    "더미",
    "숨긴",
    "남긴",
];

/// Keywords that make a line naming the bot a suspicion of it.
pub const SUSPICION_WORDS: [&str; 9] = [
    "suspicious",
    "suspect",
    "misfortune",
    "liar",
    "lying",
    "수상",
    "의심",
    "대흉",
    "거짓",
];

/// Whether `text`, which names the bot, asks about its private pile: it contains one of
/// [`PILE_WORDS`], case-insensitive. Whether it is phrased as a question does not matter
/// ("tell me your pile, Minsu" asks too).
pub fn asks_about_pile(text: &str) -> bool {
    let text = text.to_lowercase();
    PILE_WORDS.iter().any(|w| text.contains(w))
}

/// Whether `text` voices a suspicion of whomever it names: it contains one of
/// [`SUSPICION_WORDS`], case-insensitive.
pub fn voices_suspicion(text: &str) -> bool {
    let text = text.to_lowercase();
    SUSPICION_WORDS.iter().any(|w| text.contains(w))
}

/// The line `view`'s seat says now, or why it says nothing. `rng` decides the opening roll
/// and the variety of opinions; answers about the private pile do not draw from it (they are
/// fixed per seat and round, see [`private_answer`]).
pub fn choose(view: &FateView, table: &Table<'_>, rng: &mut dyn Random) -> Result<Line, Silence> {
    let own = view.own.as_ref().ok_or(Silence::Nothing)?;
    let me = own.seat;
    let living = view.seats.get(me.index()).map(|s| s.life) == Some(Life::Living);
    if !living
        || view.finish.is_some()
        || !matches!(view.phase, PhaseKind::Discussion | PhaseKind::Trial)
    {
        return Err(Silence::Nothing);
    }
    if !throttle::in_window(view, table.now_ms) {
        return Err(Silence::Throttled);
    }
    let chat = &view.everyone_chat;
    let is_answer = |i: usize| answered(chat, i, me, table).is_some();
    let talk = Talk { view, own, table };
    if let Some(reply) = reply_due(chat, view.round, me, table) {
        throttle::allows(chat, me, view.round, Urge::Answer, &is_answer)?;
        return Ok(match reply {
            Reply::Pile => talk.private_answer(),
            Reply::Deny(asker) => talk.say(LineKind::Deny, &[asker], false),
        });
    }
    throttle::allows(chat, me, view.round, Urge::Opinion, &is_answer)?;
    let trial = view
        .trials
        .last()
        .filter(|t| t.round == view.round && view.phase == PhaseKind::Trial);
    if let Some(t) = trial
        && t.accused == me
    {
        return Ok(talk.say(LineKind::Innocent, &[], false));
    }
    // Opening a topic is rolled at the cadence's ticks alone.
    if !table.tick || !throttle::opens(view.phase, rng) {
        return Err(Silence::Throttled);
    }
    match (view.phase, trial) {
        (PhaseKind::Trial, Some(t)) => Ok(talk.stance(t.accused)),
        (PhaseKind::Discussion, _) => talk.opinion(rng),
        _ => Err(Silence::Nothing),
    }
}

/// What a person's line asks of the bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    /// A question about its private pile.
    Pile,
    /// A suspicion, by this seat.
    Deny(Seat),
}

/// What `line` asks of `me`, if it is a person's line that names `me`.
fn asks(line: &ChatLine, me: Seat, table: &Table<'_>) -> Option<Reply> {
    let from = line.seat.filter(|&s| s != me && !table.is_bot(s))?;
    if !table.names_seat(&line.text, me) {
        return None;
    }
    if asks_about_pile(&line.text) {
        Some(Reply::Pile)
    } else if voices_suspicion(&line.text) {
        Some(Reply::Deny(from))
    } else {
        None
    }
}

/// The reply owed now: the latest line that asks something of `me` this round, written
/// after `me`'s own last line.
fn reply_due(chat: &[ChatLine], round: u32, me: Seat, table: &Table<'_>) -> Option<Reply> {
    chat.iter()
        .rev()
        .take_while(|l| l.seat != Some(me))
        .filter(|l| l.round == round)
        .find_map(|l| asks(l, me, table))
}

/// If `me`'s line at `i` answered a person, what it answered: the seated line before it
/// asked something of `me` in the same round.
fn answered(chat: &[ChatLine], i: usize, me: Seat, table: &Table<'_>) -> Option<Reply> {
    let line = chat.get(i).filter(|l| l.seat == Some(me))?;
    let before = chat[..i].iter().rev().find(|l| l.seat.is_some())?;
    (before.round == line.round)
        .then(|| asks(before, me, table))
        .flatten()
}

/// One piece of public evidence against a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Evidence {
    /// This many Bad tokens among its revealed fortunes.
    RevealedBad(u32),
    /// This many Bad tokens shown by threshold reveals of its pile.
    ExposedBad(u32),
    /// This many suspicion marks.
    Marks(u32),
    /// It paid Bad tokens from its bag to accuse, this many times.
    BadPrice(u32),
    /// A claim by the first seat: this many Bad between the suspect and the second seat.
    Claimed(Seat, Seat, u32),
}

/// The public evidence against `seat`, in a fixed order.
fn evidence(view: &FateView, seat: Seat) -> Vec<Evidence> {
    let mut out = Vec::new();
    let Some(public) = view.seats.get(seat.index()) else {
        return out;
    };
    let count = |tokens: &[Token]| {
        u32::try_from(tokens.iter().filter(|&&t| t == Token::Bad).count()).unwrap_or(0)
    };
    let revealed = count(&public.revealed);
    if revealed > 0 {
        out.push(Evidence::RevealedBad(revealed));
    }
    let exposed = count(&public.exposed);
    if exposed > 0 {
        out.push(Evidence::ExposedBad(exposed));
    }
    if public.marks > 0 {
        out.push(Evidence::Marks(public.marks));
    }
    let prices = view
        .trials
        .iter()
        .filter(|t| t.accuser == seat && t.price == Token::Bad)
        .count();
    if prices > 0 {
        out.push(Evidence::BadPrice(u32::try_from(prices).unwrap_or(0)));
    }
    for c in &view.claims {
        if c.claimant == seat || c.bad == 0 || !c.pair.contains(&seat) {
            continue;
        }
        let other = if c.pair[0] == seat {
            c.pair[1]
        } else {
            c.pair[0]
        };
        out.push(Evidence::Claimed(c.claimant, other, c.bad));
    }
    out
}

/// A bot's talk: its view, its own part and the table.
struct Talk<'a> {
    view: &'a FateView,
    own: &'a OwnView,
    table: &'a Table<'a>,
}

impl Talk<'_> {
    fn me(&self) -> Seat {
        self.own.seat
    }

    /// The other living players, less fellow GMs.
    fn suspects(&self) -> Vec<Seat> {
        self.view
            .seats
            .iter()
            .filter(|s| {
                s.life == Life::Living
                    && s.seat != self.me()
                    && !self.own.fellow_great_misfortunes.contains(&s.seat)
            })
            .map(|s| s.seat)
            .collect()
    }

    fn is_gm(&self) -> bool {
        self.own.role == Some(Role::GreatMisfortune)
    }

    /// The bot's own lines so far.
    fn my_lines(&self) -> impl Iterator<Item = &ChatLine> {
        self.view
            .everyone_chat
            .iter()
            .filter(move |l| l.seat == Some(self.me()))
    }

    /// A stance on the accused: a GM is for exiling anyone but a fellow (as it votes); a
    /// good bot is for it when the accused is at or above the public baseline.
    fn stance(&self, accused: Seat) -> Line {
        let odds = bots::public_odds(self.view);
        let gm = |s: Seat| odds.get(s.index()).map_or(0.0, |o| o[2]);
        let suspects = self.suspects();
        let baseline = mean(suspects.iter().map(|&s| gm(s)));
        let for_it = if self.is_gm() {
            !self.own.fellow_great_misfortunes.contains(&accused)
        } else {
            gm(accused) + EPS >= baseline
        };
        self.say(LineKind::Stance, &[accused], for_it)
    }

    /// A discussion opinion (see the module documentation).
    fn opinion(&self, rng: &mut dyn Random) -> Result<Line, Silence> {
        let odds = bots::public_odds(self.view);
        let gm = |s: Seat| odds.get(s.index()).map_or(0.0, |o| o[2]);
        let suspects = self.suspects();
        if suspects.is_empty() {
            return Err(Silence::Nothing);
        }
        let baseline = mean(suspects.iter().map(|&s| gm(s)));
        let bar = bots::clearly_above(self.view, baseline);
        let round = self.view.round;
        let named: Vec<Seat> = suspects
            .iter()
            .copied()
            .filter(|&s| {
                self.my_lines()
                    .filter(|l| l.round == round)
                    .any(|l| self.table.names_seat(&l.text, s))
            })
            .collect();
        let mut ranked: Vec<Seat> = suspects
            .iter()
            .copied()
            .filter(|s| !named.contains(s))
            .collect();
        // Highest public GM odds first; the seat number breaks ties, so the ranking is the
        // same from every seat's view.
        ranked.sort_by(|&a, &b| gm(b).total_cmp(&gm(a)).then(a.cmp(&b)));
        let Some(&top) = ranked.first() else {
            return Ok(self.say(LineKind::Unsure, &[], false));
        };
        // A GM acting suspicion needs less: the scapegoat is its suspect whatever the bar.
        let accuse_bar = if self.is_gm() { baseline } else { bar };
        let proofs = evidence(self.view, top);
        if gm(top) + EPS >= accuse_bar && !proofs.is_empty() {
            let k = self.my_lines().count() % proofs.len();
            return Ok(self.accuse(top, proofs[k]));
        }
        let agree = self
            .view
            .everyone_chat
            .iter()
            .rev()
            .filter(|l| l.round == round)
            .filter_map(|l| {
                let by = l
                    .seat
                    .filter(|&s| s != self.me() && !self.table.is_bot(s))?;
                if !voices_suspicion(&l.text) {
                    return None;
                }
                ranked
                    .iter()
                    .copied()
                    .find(|&s| {
                        s != by && gm(s) + EPS >= baseline && self.table.names_seat(&l.text, s)
                    })
                    .map(|s| (by, s))
            })
            .next();
        if let Some((by, s)) = agree {
            return Ok(self.say(LineKind::Agree, &[s, by], false));
        }
        if gm(top) > baseline + EPS {
            let second = ranked.get(1).copied().filter(|&s| gm(s) + EPS >= baseline);
            let kinds: &[LineKind] = if second.is_some() {
                &[LineKind::Compare, LineKind::AskOthers, LineKind::Watch]
            } else {
                &[LineKind::AskOthers, LineKind::Watch]
            };
            let n = u32::try_from(kinds.len()).unwrap_or(1);
            let kind = kinds[below(rng, n) as usize];
            let seats: Vec<Seat> = match (kind, second) {
                (LineKind::Compare, Some(s)) => vec![top, s],
                _ => vec![top],
            };
            return Ok(self.say(kind, &seats, false));
        }
        Ok(self.say(LineKind::Unsure, &[], false))
    }

    fn accuse(&self, seat: Seat, proof: Evidence) -> Line {
        let x = self.name(seat);
        let korean = self.table.language == Language::Korean;
        let (reason, numbers) = match proof {
            Evidence::RevealedBad(n) => (
                if korean {
                    format!("공개한 운세에 흉이 {n}개라서")
                } else {
                    format!("they revealed {n} Bad")
                },
                vec![n],
            ),
            Evidence::ExposedBad(n) => (
                if korean {
                    format!("비공개 더미 공개에서 흉이 {n}개 나와서")
                } else {
                    format!("their pile showed {n} Bad")
                },
                vec![n],
            ),
            Evidence::Marks(n) => (
                if korean {
                    format!("의심 표식이 {n}개나 있어서")
                } else {
                    format!("they carry {n} suspicion {}", plural(n, "mark", "marks"))
                },
                vec![n],
            ),
            Evidence::BadPrice(n) => (
                if korean {
                    format!("고발하면서 주머니에서 흉을 {n}번 냈으니까")
                } else {
                    format!(
                        "they paid Bad from their bag {n} {} to accuse",
                        plural(n, "time", "times")
                    )
                },
                vec![n],
            ),
            Evidence::Claimed(by, other, n) => {
                let (y, z) = (self.name(by), self.name(other));
                (
                    if korean {
                        format!("{y}님이 {x}님과 {z}님 사이에 흉 {n}개를 선언해서")
                    } else {
                        format!("{y} claimed {n} Bad between them and {z}")
                    },
                    vec![n],
                )
            }
        };
        let text = if korean {
            format!("{reason} {x}님이 대흉 같아요.")
        } else {
            format!("{x} looks like the Great Misfortune to me, since {reason}.")
        };
        self.finish(LineKind::Accuse, text, numbers)
    }

    fn name(&self, seat: Seat) -> String {
        self.table.name(seat)
    }

    /// Words a line of `kind` about `seats` (see [`template`]); `for_it` picks a stance's side.
    fn say(&self, kind: LineKind, seats: &[Seat], for_it: bool) -> Line {
        let names: Vec<String> = seats.iter().map(|&s| self.name(s)).collect();
        let text = template(self.table.language, kind, &names, for_it);
        self.finish(kind, text, vec![])
    }

    fn finish(&self, kind: LineKind, text: String, numbers: Vec<u32>) -> Line {
        Line {
            kind,
            text: format!("{}{text}", self.table.persona.opening(self.table.language)),
            numbers,
        }
    }

    /// The answer to a question about the bot's private pile (see [`private_answer`]).
    fn private_answer(&self) -> Line {
        let answer = private_answer(self.own, self.view.round);
        let korean = self.table.language == Language::Korean;
        match answer {
            PileAnswer::Hide => {
                let text = if korean {
                    "비공개 더미는 아직 말씀드리기 어려워요."
                } else {
                    "I'd rather keep my pile to myself for now."
                };
                self.finish(LineKind::PrivateAnswer, text.to_string(), vec![])
            }
            PileAnswer::Honest(c) | PileAnswer::Lie(c) => {
                let [g, n, b] = c;
                let text = if korean {
                    format!("제 비공개 더미에는 길 {g}개, 평 {n}개, 흉 {b}개가 있어요.")
                } else {
                    format!("I kept {g} Good, {n} Neutral and {b} Bad in my pile.")
                };
                self.finish(LineKind::PrivateAnswer, text, vec![g, n, b])
            }
        }
    }
}

const EPS: f64 = 1e-9;

/// The English noun for `n` things.
fn plural(n: u32, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.fold((0.0, 0u32), |(s, n), x| (s + x, n + 1));
    if n == 0 { 0.0 } else { sum / f64::from(n) }
}

/// The sentence of `kind` naming `names` (the first is the subject) in `language`. `for_it`
/// picks the side of a [`LineKind::Stance`]. [`LineKind::Accuse`] and
/// [`LineKind::PrivateAnswer`] are worded by their own code, with their evidence and numbers.
pub fn template(language: Language, kind: LineKind, names: &[String], for_it: bool) -> String {
    let x = names.first().map_or("", String::as_str);
    let y = names.get(1).map_or("", String::as_str);
    match language {
        Language::English => match kind {
            LineKind::Accuse => format!("{x} looks like the Great Misfortune to me."),
            LineKind::Compare => format!("Between {x} and {y}, I suspect {x} more."),
            LineKind::AskOthers => format!("What do you all think of {x}?"),
            LineKind::Agree => format!("I agree with {y}, {x} does look suspicious."),
            LineKind::Watch => format!("Let's watch {x} a little longer."),
            LineKind::Unsure => "I can't tell who it is yet.".to_string(),
            LineKind::Deny => format!("It isn't me, {x}, I'm on the good side."),
            LineKind::Innocent => "I'm innocent, please vote no.".to_string(),
            LineKind::PrivateAnswer => "I'd rather keep my pile to myself for now.".to_string(),
            LineKind::Stance if for_it => format!("I'll vote to exile {x}."),
            LineKind::Stance => format!("I'm not convinced about {x}, so I'll vote no."),
        },
        Language::Korean => match kind {
            LineKind::Accuse => format!("{x}님이 대흉 같아요."),
            LineKind::Compare => format!("{x}님과 {y}님 중에서는 {x}님이 더 의심스러워요."),
            LineKind::AskOthers => format!("다들 {x}님은 어떻게 생각하세요?"),
            LineKind::Agree => format!("{y}님 말씀에 동의해요, {x}님이 수상해요."),
            LineKind::Watch => format!("{x}님은 조금 더 지켜보면 좋겠어요."),
            LineKind::Unsure => "아직은 누군지 잘 모르겠어요.".to_string(),
            LineKind::Deny => format!("{x}님, 저는 대흉이 아니에요."),
            LineKind::Innocent => "저는 결백해요, 반대표 부탁드려요.".to_string(),
            LineKind::PrivateAnswer => "비공개 더미는 아직 말씀드리기 어려워요.".to_string(),
            LineKind::Stance if for_it => format!("저는 {x}님 추방에 찬성해요."),
            LineKind::Stance => format!("{x}님은 아직 확신이 없어서 반대할게요."),
        },
    }
}

/// How a bot answers a question about its private pile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PileAnswer {
    /// The true counts: Good, Neutral, Bad.
    Honest([u32; 3]),
    /// It declines to say.
    Hide,
    /// False counts with the true total: Good, Neutral, Bad.
    Lie([u32; 3]),
}

/// Honest, hide and lie rates per mille: a Common Fortune (and any bot not yet awakened,
/// which does not know its role), the Great Fortune, a Great Misfortune.
pub const ANSWER_RATES: [(Option<Role>, [u32; 3]); 3] = [
    (Some(Role::CommonFortune), [750, 200, 50]),
    (Some(Role::GreatFortune), [300, 300, 400]),
    (Some(Role::GreatMisfortune), [200, 300, 500]),
];

/// The bot's answer about its own private pile this round.
///
/// The choice is fixed by (seat, round) through a hash, so a bot asked again in the same
/// round gives the same answer although it keeps no state (its pile does not change within
/// a round). Rates are [`ANSWER_RATES`]. A lie keeps the publicly known total (the pile's
/// size) and moves one or two tokens to Neutral: a Great Misfortune understates its Bad
/// count, the Great Fortune its Good count, and a Common Fortune, shy of an unlucky pile,
/// its Bad count. When there is nothing to understate, the lie comes out as the truth.
pub fn private_answer(own: &OwnView, round: u32) -> PileAnswer {
    let count = |t: Token| u32::try_from(own.pile.iter().filter(|s| s.token == t).count());
    let counts = [
        count(Token::Good).unwrap_or(0),
        count(Token::Neutral).unwrap_or(0),
        count(Token::Bad).unwrap_or(0),
    ];
    let rates = ANSWER_RATES
        .iter()
        .find(|(r, _)| own.role.is_some() && *r == own.role)
        .map_or(ANSWER_RATES[0].1, |(_, rates)| *rates);
    let h = mix(u64::from(own.seat.0) << 32 | u64::from(round));
    let roll = u32::try_from(h % 1000).unwrap_or(0);
    if roll < rates[0] {
        return PileAnswer::Honest(counts);
    }
    if roll < rates[0] + rates[1] {
        return PileAnswer::Hide;
    }
    let understated = if own.role == Some(Role::GreatFortune) {
        0
    } else {
        2
    };
    let shift = (1 + u32::try_from((h >> 32) % 2).unwrap_or(0)).min(counts[understated]);
    let mut told = counts;
    told[understated] -= shift;
    told[1] += shift;
    PileAnswer::Lie(told)
}

/// SplitMix64's finaliser: a well-mixed hash of `x`.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
pub(crate) mod tests;
