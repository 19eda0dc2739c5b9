//! Chat: what a match's participants say, stored in its log beside the play (which no line
//! changes: replays and verification pass over them).

use super::*;

/// The longest chat line, in characters.
pub const CHAT_MAX_CHARS: usize = 140;

/// The most lines one participant may say in one match.
pub const CHAT_MAX_LINES: usize = 200;

/// Who hears a chat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    /// The match's participants only.
    Players,
    /// Everyone, spectators included.
    Spectators,
}

/// `bot` says `text` in `room`: a `chat` event (`participant`, `room`, `text`) for everyone,
/// or, in the players' room, one for each participant's bot (once for a bot playing
/// itself). Lines may be said while the match runs and after it ended.
pub(crate) fn say(
    setup: &Setup,
    progress: &mut Progress,
    bot: BotId,
    room: ChatRoom,
    text: &str,
    now_ms: i64,
) -> Result<(), ArenaError> {
    let Some(speaker) = setup.participants_of(bot).iter(setup.seats()).next() else {
        return Err(ArenaError::NotParticipant);
    };
    if progress.status == MatchStatus::Pending || progress.started_ms.is_none() {
        return Err(ArenaError::MatchNotRunning);
    }
    let text = text.trim();
    if text.is_empty()
        || text.chars().count() > CHAT_MAX_CHARS
        || text.chars().any(char::is_control)
    {
        return Err(ArenaError::InvalidRequest(format!(
            "a chat line is 1 to {CHAT_MAX_CHARS} characters, without control characters"
        )));
    }
    if progress.chat_lines[speaker] >= CHAT_MAX_LINES {
        return Err(ArenaError::InvalidRequest(format!(
            "a participant may say at most {CHAT_MAX_LINES} lines in a match"
        )));
    }
    let payload = json!({"participant": speaker, "room": room, "text": text});
    match room {
        ChatRoom::Spectators => {
            progress.emit(setup, now_ms, Audience::Everyone, "chat", payload);
        }
        ChatRoom::Players => {
            let mut heard: Vec<BotId> = Vec::new();
            for (participant, listener) in setup.bots.iter().enumerate() {
                if heard.contains(&listener.id) {
                    continue;
                }
                heard.push(listener.id);
                let audience = Audience::Participant(u8::try_from(participant).unwrap_or(u8::MAX));
                progress.emit(setup, now_ms, audience, "chat", payload.clone());
            }
        }
    }
    count_chat_line(progress, speaker);
    Ok(())
}

/// Counts a line `speaker` said, as saying it and replaying it do.
pub(crate) fn count_chat_line(progress: &mut Progress, speaker: usize) {
    if let Some(lines) = progress.chat_lines.get_mut(speaker) {
        *lines += 1;
    }
}
