//! Bot talk for Fate Tokens (seed 003 §06–09): rule bots that join the table's chat without
//! telling anything they know. Pure: no I/O, no clock but the one passed in.
//!
//! **What to say** is chosen by rules from the bot's own [`FateView`] and public evidence
//! only (revealed tokens, bag reveals, claims), with the same probabilities the rule bots
//! vote by, so that what a bot says and what it does agree ([`choose`]); when it may speak
//! at all is the throttles' ([`throttle`]). The result is a [`Line`]: one plain sentence in
//! the room's language, with the numbers it states. [`Talk`] is the family's part of the
//! plugin's talk seam: it turns a line into a [`Remark`] with the public chat a provider may
//! see, and gives the examples a model rewords by. **How to say it** is a wording service's,
//! outside the game.
//!
//! [`FateView`]: crate::FateView

use arbiter_plugin::{
    ChatEntry, Example, Examples, Language, OWN_LIMIT, RECENT_LIMIT, Remark, SeatView, Silence,
    TableTalk, TalkTable,
};
use arbiter_rules::Random;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Channel, FateAction, FateView, Life, PhaseKind};

pub mod choose;
pub mod throttle;

/// One thing a bot has decided to say, before any provider words it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// What kind of line it is (for logs and for the provider's examples).
    pub kind: LineKind,
    /// The line itself, a complete sentence in the room's language: what the template
    /// provider says, and what a model rewords.
    pub text: String,
    /// Every number the line states; a reworded line must state exactly these.
    pub numbers: Vec<u32>,
}

/// The kinds of line a bot says (seed 003 §06).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// "X looks like a Great Misfortune", with one piece of public evidence.
    Accuse,
    /// "Between X and Y, I suspect X more."
    Compare,
    /// "What do you all think of X?"
    AskOthers,
    /// "I agree with Z about X."
    Agree,
    /// "Let's watch X a little longer."
    Watch,
    /// "I can't tell yet."
    Unsure,
    /// "It isn't me" — a bot suspected or accused.
    Deny,
    /// "I'm innocent" — a bot on trial.
    Innocent,
    /// An answer to a question about the bot's private pile: honest, hidden or false.
    PrivateAnswer,
    /// For or against the accusation on trial.
    Stance,
}

impl LineKind {
    /// The kind's label, as the logs write it.
    pub fn label(self) -> &'static str {
        match self {
            LineKind::Accuse => "accuse",
            LineKind::Compare => "compare",
            LineKind::AskOthers => "ask_others",
            LineKind::Agree => "agree",
            LineKind::Watch => "watch",
            LineKind::Unsure => "unsure",
            LineKind::Deny => "deny",
            LineKind::Innocent => "innocent",
            LineKind::PrivateAnswer => "private_answer",
            LineKind::Stance => "stance",
        }
    }
}

/// How long a bot that may talk waits, at most, before it is asked again whether it has
/// something to say, when nothing happens at the table meanwhile: often enough that the
/// opening rolls give a quiet table a few lines a minute, seldom enough to cost nothing.
pub const TALK_TICK_MS: u64 = 4_000;

/// The remark `view`'s seat would make now: the [`choose`]n line, with the public chat a
/// provider may see (the last [`RECENT_LIMIT`] lines said by seats in the everyone channel,
/// and the seat's own last [`OWN_LIMIT`]).
pub fn remark(
    view: &FateView,
    table: &TalkTable<'_>,
    rng: &mut dyn Random,
) -> Result<Remark, Silence> {
    let line = choose::choose(view, table, rng)?;
    let me = view.own.as_ref().map(|own| own.seat);
    let seated: Vec<&crate::ChatLine> = view
        .everyone_chat
        .iter()
        .filter(|l| l.seat.is_some())
        .collect();
    let recent = seated[seated.len().saturating_sub(RECENT_LIMIT)..]
        .iter()
        .filter_map(|l| {
            let seat = l.seat?;
            let speaker = table
                .names
                .get(seat.index())
                .cloned()
                .unwrap_or_else(|| format!("{}", seat.0 + 1));
            Some(ChatEntry {
                speaker,
                text: l.text.clone(),
            })
        })
        .collect();
    let own: Vec<String> = seated
        .iter()
        .filter(|l| me.is_some() && l.seat == me)
        .map(|l| l.text.clone())
        .collect();
    let own = own[own.len().saturating_sub(OWN_LIMIT)..].to_vec();
    Ok(Remark {
        kind: line.kind.label().to_owned(),
        text: line.text,
        numbers: line.numbers,
        recent,
        own,
    })
}

/// When `view`'s seat should next be asked, if nothing happens before (see
/// [`TableTalk::next_talk_at`]): while it lives and its table talks (the discussion and the
/// trial), when the phase opens, then every [`TALK_TICK_MS`] until its deadline.
pub fn next_talk_at(view: &FateView, now_ms: u64) -> Option<u64> {
    let own = view.own.as_ref()?;
    let living = view.seats.get(own.seat.index()).map(|s| s.life) == Some(Life::Living);
    if !living
        || view.finish.is_some()
        || !matches!(view.phase, PhaseKind::Discussion | PhaseKind::Trial)
    {
        return None;
    }
    let at = if now_ms < view.opens_at_ms {
        view.opens_at_ms
    } else {
        now_ms + TALK_TICK_MS
    };
    view.deadline_ms.is_none_or(|d| at < d).then_some(at)
}

/// Fate Tokens' part of the talk seam.
pub struct Talk;

impl Talk {
    fn view(view: &SeatView<'_>) -> Option<FateView> {
        view.typed().downcast::<FateView>().ok().map(|v| *v)
    }
}

impl TableTalk for Talk {
    fn remark(
        &self,
        view: &SeatView<'_>,
        table: &TalkTable<'_>,
        rng: &mut dyn Random,
    ) -> Result<Remark, Silence> {
        let view = Talk::view(view).ok_or(Silence::Nothing)?;
        remark(&view, table, rng)
    }

    fn examples(&self, language: Language) -> Examples {
        examples(language)
    }

    fn chat_action(&self, text: &str) -> Value {
        serde_json::to_value(FateAction::Chat {
            channel: Channel::Everyone,
            text: text.to_owned(),
        })
        .unwrap_or(Value::Null)
    }

    fn next_talk_at(&self, view: &SeatView<'_>, now_ms: u64) -> Option<u64> {
        next_talk_at(&Talk::view(view)?, now_ms)
    }
}

/// The example pairs a model rewords by, and their invented names, in `language`.
pub fn examples(language: Language) -> Examples {
    match language {
        Language::English => Examples {
            pairs: &ENGLISH_EXAMPLES,
            names: &ENGLISH_NAMES,
        },
        Language::Korean => Examples {
            pairs: &KOREAN_EXAMPLES,
            names: &KOREAN_NAMES,
        },
    }
}

/// The fictional names the English examples use, none of them a bot's or a player's name.
pub const ENGLISH_NAMES: [&str; 4] = ["Avery", "Blake", "Casey", "Devon"];

/// The fictional names the Korean examples use.
pub const KOREAN_NAMES: [&str; 4] = ["가람", "나래", "다온", "새봄"];

const ENGLISH_EXAMPLES: [Example; 10] = [
    Example {
        line: "Avery looks like the Great Misfortune. Evidence: 2 bad tokens revealed.",
        answer: "Avery really looks like the Great Misfortune to me, with 2 bad tokens shown.",
    },
    Example {
        line: "Between Blake and Casey, I suspect Blake more.",
        answer: "If I had to pick between those two, Blake worries me more.",
    },
    Example {
        line: "What do you all think of Devon?",
        answer: "How is everyone reading Devon so far?",
    },
    Example {
        line: "I agree with Avery about Casey.",
        answer: "Avery has a point, Casey seems off to me as well.",
    },
    Example {
        line: "Let's watch Blake a little longer.",
        answer: "I'd keep an eye on Blake for a bit before deciding.",
    },
    Example {
        line: "I can't tell yet.",
        answer: "Honestly, I can't read this table yet.",
    },
    Example {
        line: "It isn't me.",
        answer: "That's not me, I promise you've got the wrong person.",
    },
    Example {
        line: "I'm innocent.",
        answer: "I'm innocent, please believe me.",
    },
    Example {
        line: "My private pile has 1 good token.",
        answer: "There's 1 good token in my private pile.",
    },
    Example {
        line: "I'm for this accusation.",
        answer: "I'll support this accusation.",
    },
];

const KOREAN_EXAMPLES: [Example; 10] = [
    Example {
        line: "가람님이 대흉 같습니다. 근거: 공개한 운세에 흉 2개.",
        answer: "가람님이 대흉 같아요. 공개한 운세에 흉이 2개나 있었잖아요.",
    },
    Example {
        line: "나래님과 다온님 중에서는 나래님이 더 의심됩니다.",
        answer: "둘 중에 고르라면 저는 나래님 쪽이 더 수상해 보여요.",
    },
    Example {
        line: "새봄님을 어떻게 생각하세요?",
        answer: "다들 새봄님은 어떻게 보세요?",
    },
    Example {
        line: "가람님 말에 동의합니다. 다온님이 수상합니다.",
        answer: "저도 가람님 생각과 같아요, 다온님이 좀 수상하네요.",
    },
    Example {
        line: "나래님을 조금 더 지켜봅시다.",
        answer: "나래님은 조금 더 두고 보는 게 좋겠어요.",
    },
    Example {
        line: "아직 잘 모르겠습니다.",
        answer: "솔직히 아직은 판단이 잘 안 서네요.",
    },
    Example {
        line: "저는 아닙니다.",
        answer: "저 아니에요, 오해하신 것 같아요.",
    },
    Example {
        line: "저는 결백합니다.",
        answer: "저는 정말 결백해요, 믿어 주세요.",
    },
    Example {
        line: "제 비공개 더미에는 길 1개가 있습니다.",
        answer: "제 비공개 더미엔 길이 1개 있어요.",
    },
    Example {
        line: "이 고발에 찬성합니다.",
        answer: "저는 이번 고발에 찬성할게요.",
    },
];

#[cfg(test)]
mod tests;
