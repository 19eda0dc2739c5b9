//! Notes about matches for the operator alone: where a seat's player came from, suspicions
//! about its play. They are stored beside a match, never in its events, so that no snapshot,
//! event page, stream or export can carry them; only whoever asks for them by match (the
//! administrator's door) reads them.

use arbiter_store::{MatchId, NoteRecord, Write};
use serde_json::Value;

use crate::ArenaError;
use crate::context::Context;

/// The most bytes of JSON one note may hold; a door's own checks should keep well below it.
pub const NOTE_MAX_BYTES: usize = 16 * 1024;

/// Adds a note of `kind` about match `id` (and one of its participants, if given), durably.
pub(crate) async fn add(
    context: &Context,
    id: MatchId,
    participant: Option<u8>,
    kind: &str,
    data: Value,
) -> Result<(), ArenaError> {
    if kind.is_empty() || kind.len() > 64 {
        return Err(ArenaError::InvalidRequest(
            "a note's kind has 1 to 64 bytes".to_owned(),
        ));
    }
    if data.to_string().len() > NOTE_MAX_BYTES {
        return Err(ArenaError::InvalidRequest(format!(
            "a note holds at most {NOTE_MAX_BYTES} bytes of JSON"
        )));
    }
    let note = NoteRecord {
        match_id: id,
        participant,
        kind: kind.to_owned(),
        data,
        at_ms: context.now(),
    };
    context.writer.write(vec![Write::AddNote(note)]).await?;
    Ok(())
}

/// The notes about match `id`, in the order they were added.
pub(crate) async fn of(context: &Context, id: MatchId) -> Result<Vec<NoteRecord>, ArenaError> {
    Ok(context.store.notes(id).await?)
}
