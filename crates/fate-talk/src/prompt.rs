//! What a language model is given to reword a [`Line`] (seed 003 §09).
//!
//! The messages are a fixed front part (the system text with the bot's name and persona and
//! the five rules of rewording, then example pairs of a line and its rewording, with fictional
//! names) and a last part that changes with each request: the recent chat, for reference
//! only, the bot's own recent lines, not to be reused, and the line to say. Nothing else is
//! sent: no game state, no roles, no private pile. Keeping the front part fixed lets a server
//! such as Ollama reuse what it computed for it, so more examples cost almost no time.

use serde::{Deserialize, Serialize};

use crate::{Language, Line, Persona};

/// How many of the most recent chat lines a request carries.
pub const RECENT_LIMIT: usize = 12;

/// How many of the bot's own most recent lines a request carries.
pub const OWN_LIMIT: usize = 8;

/// Who a chat message to a model is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The fixed instructions.
    System,
    /// A request: a line to reword.
    User,
    /// A model's answer (here, an example's rewording).
    Assistant,
}

/// One chat message to a model, in the shape both Ollama and OpenAI-compatible servers take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who the message is from.
    pub role: Role,
    /// What it says.
    pub content: String,
}

impl Message {
    fn new(role: Role, content: String) -> Message {
        Message { role, content }
    }
}

/// An example pair: a line as the rules word it, and a good rewording of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// The line, as the template provider would say it.
    pub line: &'static str,
    /// A rewording that keeps its stance and numbers.
    pub answer: &'static str,
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

/// The example pairs for a language.
pub fn examples(language: Language) -> &'static [Example] {
    match language {
        Language::English => &ENGLISH_EXAMPLES,
        Language::Korean => &KOREAN_EXAMPLES,
    }
}

/// The fictional names a language's examples use.
pub fn example_names(language: Language) -> &'static [&'static str] {
    match language {
        Language::English => &ENGLISH_NAMES,
        Language::Korean => &KOREAN_NAMES,
    }
}

/// How a persona is described to the model.
pub fn persona_text(persona: Persona, language: Language) -> &'static str {
    match (language, persona) {
        (Language::English, Persona::Calm) => "calm and measured",
        (Language::English, Persona::Bright) => "bright and cheerful",
        (Language::English, Persona::Timid) => "timid and hesitant",
        (Language::English, Persona::Blunt) => "blunt and direct",
        (Language::Korean, Persona::Calm) => "차분하고 침착함",
        (Language::Korean, Persona::Bright) => "밝고 명랑함",
        (Language::Korean, Persona::Timid) => "소심하고 조심스러움",
        (Language::Korean, Persona::Blunt) => "직설적이고 단호함",
    }
}

/// The system text: who the bot is, its register and persona, and the five rules.
pub fn system_text(name: &str, persona: Persona, language: Language) -> String {
    let manner = persona_text(persona, language);
    match language {
        Language::English => format!(
            "You are {name}, a player in a board-game chat. Always speak politely. \
             Your manner is {manner}. You are given a line you have decided to say; \
             reword it in your own manner as one short chat message of at most 80 characters.\n\
             Rules:\n\
             1. Do not change the line's stance.\n\
             2. Do not invent facts or numbers; keep every number of the line, in digits.\n\
             3. Never say that you are an AI.\n\
             4. Do not repeat the recent chat or your own earlier lines.\n\
             5. Reply with one line only: the message itself."
        ),
        Language::Korean => format!(
            "당신은 보드게임 채팅에 참여한 플레이어 {name}입니다. 말투는 항상 존댓말입니다. \
             성격: {manner}. 정해 둔 할 말을 받으면, 그 뜻 그대로 당신의 말투로 \
             80자 안의 채팅 한 줄로 바꿔 말하세요.\n\
             규칙:\n\
             1. 할 말의 입장을 바꾸지 마세요.\n\
             2. 없는 사실과 숫자를 지어내지 마세요. 할 말의 숫자는 아라비아 숫자 그대로 쓰세요.\n\
             3. AI라고 말하지 마세요.\n\
             4. 최근 채팅이나 이미 한 말을 되풀이하지 마세요.\n\
             5. 대사 한 줄만 답하세요."
        ),
    }
}

/// The request for one example's line, in the same shape as a real request's last line.
fn line_request(text: &str, language: Language) -> String {
    match language {
        Language::English => format!("Line to say: \"{text}\""),
        Language::Korean => format!("할 말: \"{text}\""),
    }
}

/// The last `limit` entries of `lines`.
fn last(lines: &[String], limit: usize) -> &[String] {
    &lines[lines.len().saturating_sub(limit)..]
}

/// The request part that changes each time: the recent chat (at most [`RECENT_LIMIT`] lines),
/// the bot's own lines (at most [`OWN_LIMIT`]) and the line to say.
pub fn request_text(
    line: &Line,
    recent: &[String],
    own: &[String],
    persona: Persona,
    language: Language,
) -> String {
    let list = |lines: &[String], none: &str| {
        if lines.is_empty() {
            format!("{none}\n")
        } else {
            lines.iter().map(|l| format!("- {l}\n")).collect()
        }
    };
    let manner = persona_text(persona, language);
    let recent = last(recent, RECENT_LIMIT);
    let own = last(own, OWN_LIMIT);
    match language {
        Language::English => format!(
            "Recent chat (for reference only):\n{}Your own recent lines (do not reuse them):\n{}\
             {} (polite, {manner}) /no_think",
            list(recent, "(none)"),
            list(own, "(none)"),
            line_request(&line.text, language),
        ),
        Language::Korean => format!(
            "최근 채팅 (참고만 하세요):\n{}내가 이미 한 말 (다시 쓰지 마세요):\n{}\
             {} (존댓말, {manner}) /no_think",
            list(recent, "(없음)"),
            list(own, "(없음)"),
            line_request(&line.text, language),
        ),
    }
}

/// Every message a model is sent to reword `line` for the bot `name`: the system text, the
/// example pairs, then the request.
pub fn messages(
    line: &Line,
    recent: &[String],
    own: &[String],
    persona: Persona,
    name: &str,
    language: Language,
) -> Vec<Message> {
    let mut messages = vec![Message::new(
        Role::System,
        system_text(name, persona, language),
    )];
    for example in examples(language) {
        messages.push(Message::new(
            Role::User,
            line_request(example.line, language),
        ));
        messages.push(Message::new(Role::Assistant, example.answer.to_owned()));
    }
    messages.push(Message::new(
        Role::User,
        request_text(line, recent, own, persona, language),
    ));
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LineKind;

    fn line() -> Line {
        Line {
            kind: LineKind::Accuse,
            text: "Mina looks like the Great Misfortune. Evidence: 3 bad tokens revealed."
                .to_owned(),
            numbers: vec![3],
        }
    }

    #[test]
    fn messages_are_system_examples_then_request() {
        for language in [Language::English, Language::Korean] {
            let recent: Vec<String> = (0..20).map(|i| format!("chat {i}")).collect();
            let own: Vec<String> = (0..10).map(|i| format!("own {i}")).collect();
            let sent = messages(&line(), &recent, &own, Persona::Timid, "Bot 2", language);
            assert_eq!(sent.len(), 2 + 2 * examples(language).len());
            assert_eq!(sent[0].role, Role::System);
            assert!(sent[0].content.contains("Bot 2"));
            assert!(
                sent[0]
                    .content
                    .contains(persona_text(Persona::Timid, language))
            );
            let request = &sent[sent.len() - 1];
            assert_eq!(request.role, Role::User);
            assert!(request.content.contains(&line().text));
            assert!(!request.content.contains("chat 7\n"));
            assert!(request.content.contains("chat 8\n"));
            assert!(request.content.contains("chat 19\n"));
            assert!(!request.content.contains("own 1\n"));
            assert!(request.content.contains("own 2\n"));
            assert!(request.content.contains("own 9\n"));
        }
    }

    #[test]
    fn every_persona_has_a_seat() {
        let seats: Vec<Persona> = (0..4).map(Persona::for_seat).collect();
        assert_eq!(seats, Persona::ALL);
        assert_eq!(Persona::for_seat(5), Persona::for_seat(1));
    }
}
