//! What a language model is given to reword a [`Remark`] (seed 003 §09).
//!
//! The messages are a fixed front part (the system text with the bot's name and persona and
//! the five rules of rewording, then the family's example pairs of a line and its rewording,
//! with invented names) and a last part that changes with each request: the recent public
//! chat, for reference only, the bot's own recent lines, not to be reused, and the remark to
//! say. Nothing else is sent: no game state, no roles, no private pile; the remark carries
//! all of it, and the family chose it from the seat's own view. Keeping the front part fixed lets a server
//! such as Ollama reuse what it computed for it, so more examples cost almost no time.

use serde::{Deserialize, Serialize};

use arbiter_plugin::{
    ChatEntry, Examples, Language, OWN_LIMIT, Persona, RECENT_LIMIT, Remark, Voice,
};

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
fn last<T>(lines: &[T], limit: usize) -> &[T] {
    &lines[lines.len().saturating_sub(limit)..]
}

/// The request part that changes each time: the recent public chat (at most
/// [`RECENT_LIMIT`] lines, each with its speaker), the bot's own lines (at most
/// [`OWN_LIMIT`]) and the remark to say.
pub fn request_text(remark: &Remark, persona: Persona, language: Language) -> String {
    let list = |lines: Vec<String>, none: &str| {
        if lines.is_empty() {
            format!("{none}\n")
        } else {
            lines.iter().map(|l| format!("- {l}\n")).collect()
        }
    };
    let manner = persona_text(persona, language);
    let recent: Vec<String> = last(&remark.recent, RECENT_LIMIT)
        .iter()
        .map(|ChatEntry { speaker, text }| format!("{speaker}: {text}"))
        .collect();
    let own: Vec<String> = last(&remark.own, OWN_LIMIT).to_vec();
    match language {
        Language::English => format!(
            "Recent chat (for reference only):\n{}Your own recent lines (do not reuse them):\n{}\
             {} (polite, {manner}) /no_think",
            list(recent, "(none)"),
            list(own, "(none)"),
            line_request(&remark.text, language),
        ),
        Language::Korean => format!(
            "최근 채팅 (참고만 하세요):\n{}내가 이미 한 말 (다시 쓰지 마세요):\n{}\
             {} (존댓말, {manner}) /no_think",
            list(recent, "(없음)"),
            list(own, "(없음)"),
            line_request(&remark.text, language),
        ),
    }
}

/// Every message a model is sent to reword `remark` for `voice`: the system text, the
/// family's example pairs, then the request.
pub fn messages(remark: &Remark, voice: Voice<'_>, examples: Examples) -> Vec<Message> {
    let mut messages = vec![Message::new(
        Role::System,
        system_text(voice.name, voice.persona, voice.language),
    )];
    for example in examples.pairs {
        messages.push(Message::new(
            Role::User,
            line_request(example.line, voice.language),
        ));
        messages.push(Message::new(Role::Assistant, example.answer.to_owned()));
    }
    messages.push(Message::new(
        Role::User,
        request_text(remark, voice.persona, voice.language),
    ));
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remark(recent: usize, own: usize) -> Remark {
        Remark {
            kind: "accuse".to_owned(),
            text: "Mina looks like the Great Misfortune. Evidence: 3 bad tokens revealed."
                .to_owned(),
            numbers: vec![3],
            recent: (0..recent)
                .map(|i| ChatEntry {
                    speaker: format!("P{i}"),
                    text: format!("chat {i}"),
                })
                .collect(),
            own: (0..own).map(|i| format!("own {i}")).collect(),
        }
    }

    #[test]
    fn messages_are_system_examples_then_request() {
        for language in Language::ALL {
            let examples = arbiter_fate_tokens::talk::examples(language);
            let voice = Voice {
                name: "Bot 2",
                persona: Persona::Timid,
                language,
            };
            let sent = messages(&remark(20, 10), voice, examples);
            assert_eq!(sent.len(), 2 + 2 * examples.pairs.len());
            assert_eq!(sent[0].role, Role::System);
            assert!(sent[0].content.contains("Bot 2"));
            assert!(
                sent[0]
                    .content
                    .contains(persona_text(Persona::Timid, language))
            );
            let request = &sent[sent.len() - 1];
            assert_eq!(request.role, Role::User);
            assert!(request.content.contains(&remark(0, 0).text));
            assert!(!request.content.contains("P7: chat 7\n"));
            assert!(request.content.contains("- P8: chat 8\n"));
            assert!(request.content.contains("- P19: chat 19\n"));
            assert!(!request.content.contains("own 1\n"));
            assert!(request.content.contains("own 2\n"));
            assert!(request.content.contains("own 9\n"));
        }
    }
}
