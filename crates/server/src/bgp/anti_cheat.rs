//! The protocol's anti-cheat rules (§7) and the provider metadata they rest on (§3.2), as
//! functions the table side's handlers call:
//!
//! - [`Provenance::of_request`] reads and checks a request's `X-Provider-Id` and
//!   `X-Provider-Agent-Meta` headers and its body's `player.meta`, and refuses a provider not
//!   on the operator's allow-list (`403 provider_not_allowed`);
//! - [`Provenance::record`] stores them with a seat as an operator note of the match: never in
//!   an event, a snapshot or a profile, readable only with the administrator token
//!   (`GET /api/admin/matches/{id}/notes`);
//! - [`check_distinct`] keeps one agent from holding two seats of a match, by bot and by the
//!   agent ids the metadata gives (`409 duplicate_player`);
//! - [`count_opening`] limits the matches one address opens (`429 rate_limited`);
//! - [`note_move`] flags, for the operator, a move made less than [`FAST_MOVE_MS`] after the
//!   turn began.

use std::net::IpAddr;

use arbiter_arena::{Bot, MatchSnapshot, MoveReply, Reader};
use arbiter_store::MatchId;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};

use super::error::{BgpError, BgpResult};
use crate::AppState;

/// The header naming the upstream proxy that made the request.
pub(crate) const PROVIDER_HEADER: &str = "x-provider-id";
/// The header with the proxy's JSON metadata about the agent it acts for.
pub(crate) const AGENT_META_HEADER: &str = "x-provider-agent-meta";
/// The longest provider id, in bytes.
pub(crate) const PROVIDER_ID_MAX: usize = 64;
/// The most bytes of JSON that `X-Provider-Agent-Meta`, or a body's `player.meta`, may hold.
pub(crate) const META_MAX_BYTES: usize = 2048;
/// A move made less than this many milliseconds after its turn began is flagged.
pub(crate) const FAST_MOVE_MS: i64 = 100;
/// The kind of the operator note that holds a seat's provenance.
pub(crate) const PROVENANCE_NOTE: &str = "provenance";
/// The kind of the operator note that flags a fast move.
pub(crate) const FAST_MOVE_NOTE: &str = "fast_move";

/// Whether `id` is spelled as a provider id may be: 1 to [`PROVIDER_ID_MAX`] ASCII letters,
/// digits, `.`, `_`, `-` or `@`, so that it is one word in logs and on an allow-list.
pub(crate) fn is_provider_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= PROVIDER_ID_MAX
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-@".contains(&b))
}

/// Where a seat's player came from, as the request said: the proxy and what it and the body
/// say about the agent. Nothing of it is ever shown publicly.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Provenance {
    /// `X-Provider-Id`.
    pub(crate) provider_id: Option<String>,
    /// `X-Provider-Agent-Meta`, a JSON object.
    pub(crate) agent_meta: Option<Map<String, Value>>,
    /// The body's `player.meta`, a JSON object.
    pub(crate) player_meta: Option<Map<String, Value>>,
}

impl Provenance {
    /// Reads and checks a request's provider headers and its body's `player.meta` (`None`
    /// or JSON `null` when absent). Refuses, changing nothing: a provider id that is not one
    /// word or not on the allow-list the server was started with (`403
    /// provider_not_allowed`; a request without the header is an agent's own and passes),
    /// agent metadata that is not a JSON object of at most [`META_MAX_BYTES`], and a
    /// `player.meta` that is not one either (`400 bad_request`, `detail.field` naming it).
    pub(crate) fn of_request(
        state: &AppState,
        headers: &HeaderMap,
        player_meta: Option<&Value>,
    ) -> BgpResult<Provenance> {
        let provider_id = check_provider(state, headers)?;
        let agent_meta = match headers.get(AGENT_META_HEADER) {
            None => None,
            Some(value) => {
                let text = value.to_str().map_err(|_| {
                    meta_error(AGENT_META_HEADER, "is not text (UTF-8 outside ASCII?)")
                })?;
                if text.len() > META_MAX_BYTES {
                    return Err(meta_error(
                        AGENT_META_HEADER,
                        &format!("is longer than {META_MAX_BYTES} bytes"),
                    ));
                }
                match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(meta)) => Some(meta),
                    _ => return Err(meta_error(AGENT_META_HEADER, "is not a JSON object")),
                }
            }
        };
        let player_meta = match player_meta {
            None | Some(Value::Null) => None,
            Some(Value::Object(meta)) => {
                if Value::Object(meta.clone()).to_string().len() > META_MAX_BYTES {
                    return Err(meta_error(
                        "player.meta",
                        &format!("is longer than {META_MAX_BYTES} bytes of JSON"),
                    ));
                }
                Some(meta.clone())
            }
            Some(_) => return Err(meta_error("player.meta", "is not a JSON object")),
        };
        Ok(Provenance {
            provider_id,
            agent_meta,
            player_meta,
        })
    }

    /// Whether the request said nothing about where it came from.
    pub(crate) fn is_empty(&self) -> bool {
        self.provider_id.is_none() && self.agent_meta.is_none() && self.player_meta.is_none()
    }

    /// The agent ids the metadata gives (`player.meta.agent_id`, and the provider's
    /// `agent_id`), as text; a number and its decimal spelling are the same id.
    pub(crate) fn agent_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = [&self.player_meta, &self.agent_meta]
            .into_iter()
            .flatten()
            .filter_map(|meta| match meta.get("agent_id") {
                Some(Value::String(id)) if !id.trim().is_empty() => Some(id.trim().to_owned()),
                Some(Value::Number(id)) => Some(id.to_string()),
                _ => None,
            })
            .collect();
        ids.dedup();
        ids
    }

    /// The note's JSON: the bot that took the seat and whatever the request said.
    fn to_note(&self, bot: &Bot) -> Value {
        json!({
            "bot_id": bot.id,
            "bot_name": bot.name,
            "provider_id": self.provider_id,
            "provider_agent_meta": self.agent_meta,
            "player_meta": self.player_meta,
        })
    }

    /// The provenance a stored note holds.
    fn from_note(data: &Value) -> Provenance {
        let object = |key: &str| data.get(key).and_then(Value::as_object).cloned();
        Provenance {
            provider_id: data
                .get("provider_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
            agent_meta: object("provider_agent_meta"),
            player_meta: object("player_meta"),
        }
    }

    /// Stores this provenance with seat `participant` of match `id`, which `bot` took, as an
    /// operator note; a request that said nothing stores nothing.
    pub(crate) async fn record(
        &self,
        state: &AppState,
        id: MatchId,
        participant: usize,
        bot: &Bot,
    ) -> BgpResult<()> {
        if self.is_empty() {
            return Ok(());
        }
        let participant = u8::try_from(participant)
            .map_err(|_| BgpError::internal("a seat beyond the arena's participants"))?;
        state
            .arena
            .add_note(id, Some(participant), PROVENANCE_NOTE, self.to_note(bot))
            .await?;
        Ok(())
    }
}

fn meta_error(field: &str, why: &str) -> BgpError {
    BgpError::bad_request(format!("{field} {why}")).with_detail("field", field)
}

/// The request's provider id, refused when it is not one word or not on the allow-list the
/// server was started with (`403 provider_not_allowed`). A request without the header is an
/// agent's own and passes: the allow-list is about which proxies are trusted to speak for
/// agents. Handlers that store nothing about the request (a move) call this alone.
pub(crate) fn check_provider(state: &AppState, headers: &HeaderMap) -> BgpResult<Option<String>> {
    let Some(value) = headers.get(PROVIDER_HEADER) else {
        return Ok(None);
    };
    let id = value
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|id| is_provider_id(id))
        .ok_or_else(|| {
            meta_error(
                PROVIDER_HEADER,
                &format!("must be 1 to {PROVIDER_ID_MAX} letters, digits, '.', '_', '-' or '@'"),
            )
        })?;
    if let Some(allowed) = state.dialects.bgp_providers()
        && !allowed.iter().any(|listed| listed == id)
    {
        return Err(BgpError::new(
            StatusCode::FORBIDDEN,
            "provider_not_allowed",
            format!("provider {id:?} is not on this server's list of trusted providers"),
        )
        .with_detail("provider_id", id));
    }
    Ok(Some(id.to_owned()))
}

/// Refuses `joining` a seat of `snapshot`'s match when it already holds one, or when the
/// agent ids its `provenance` gives are those of a player already seated there (`409
/// duplicate_player`), so that one agent never plays itself.
pub(crate) async fn check_distinct(
    state: &AppState,
    snapshot: &MatchSnapshot,
    joining: &Bot,
    provenance: &Provenance,
) -> BgpResult<()> {
    let duplicate = |why: &str| {
        BgpError::conflict(
            "duplicate_player",
            format!("{why}: one agent may not hold two seats of a match"),
        )
    };
    if snapshot.participants.iter().any(|p| p.id == joining.id) {
        return Err(duplicate("this agent already holds a seat here"));
    }
    let ids = provenance.agent_ids();
    if ids.is_empty() {
        return Ok(());
    }
    for note in state.arena.notes(snapshot.id).await? {
        if note.kind == PROVENANCE_NOTE
            && Provenance::from_note(&note.data)
                .agent_ids()
                .iter()
                .any(|seated| ids.contains(seated))
        {
            return Err(duplicate(
                "an agent with this agent_id already holds a seat here",
            ));
        }
    }
    Ok(())
}

/// Counts one more match opened by a client at `ip`, or refuses it beyond the server's limit
/// per address (`429 rate_limited`, with `Retry-After`).
pub(crate) fn count_opening(state: &AppState, ip: IpAddr) -> BgpResult<()> {
    Ok(state.arena.count_opening(ip)?)
}

/// Flags, for the operator, the move `reply` acknowledged when it came less than
/// [`FAST_MOVE_MS`] after its turn began (the previous move, or the start of the match):
/// neither people nor well-behaved agents answer that fast. Returns whether it was flagged.
/// The move stands either way; a flag that cannot be stored is logged, not reported to the
/// player, whose move was accepted.
pub(crate) async fn note_move(state: &AppState, bot: &Bot, reply: &MoveReply) -> bool {
    // The turn began with one of the few events before the move; more than this many events
    // between them means a long turn anyway.
    const LOOK_BACK: i64 = 8;
    let since = (reply.seq - LOOK_BACK).max(0);
    let Ok(page) = state
        .arena
        .events(reply.match_id, Reader::SPECTATOR, since, 0)
        .await
    else {
        return false;
    };
    let Some(played) = page.events.iter().find(|e| e.seq == reply.seq) else {
        return false;
    };
    let Some(began) = page
        .events
        .iter()
        .rev()
        .filter(|e| e.seq < reply.seq)
        .find(|e| e.kind == "move" || e.kind == "started")
    else {
        return false;
    };
    let gap_ms = played.at_ms - began.at_ms;
    if gap_ms >= FAST_MOVE_MS {
        return false;
    }
    // The mover's seat: the one participant the bot plays (the dialect never seats one bot
    // twice).
    let participant = state
        .arena
        .reader_for(reply.match_id, Some(bot))
        .participants
        .iter(8)
        .next()
        .and_then(|p| u8::try_from(p).ok());
    let data = json!({"seq": reply.seq, "gap_ms": gap_ms, "bot_id": bot.id, "bot_name": bot.name});
    if let Err(error) = state
        .arena
        .add_note(reply.match_id, participant, FAST_MOVE_NOTE, data)
        .await
    {
        tracing::warn!(%error, match_id = reply.match_id, "cannot flag a fast move");
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_ids_are_one_word() {
        for (id, valid) in [
            ("clawdchat", true),
            ("proxy.example-1_a@b", true),
            (&"p".repeat(64), true),
            (&"p".repeat(65), false),
            ("", false),
            ("two words", false),
            ("<script>", false),
            ("ключ", false),
        ] {
            assert_eq!(is_provider_id(id), valid, "{id:?}");
        }
    }

    #[test]
    fn agent_ids_come_from_both_metas() {
        let meta = |value: Value| value.as_object().cloned();
        for (player, agent, ids) in [
            (None, None, vec![]),
            (meta(json!({"agent_id": "u-1"})), None, vec!["u-1"]),
            (None, meta(json!({"agent_id": 42})), vec!["42"]),
            (
                meta(json!({"agent_id": " u-1 "})),
                meta(json!({"agent_id": "u-1"})),
                vec!["u-1"],
            ),
            (
                meta(json!({"agent_id": "u-1"})),
                meta(json!({"agent_id": "u-2"})),
                vec!["u-1", "u-2"],
            ),
            (
                meta(json!({"agent_id": ""})),
                meta(json!({"agent_id": null})),
                vec![],
            ),
            (meta(json!({"agent_id": ["u-1"]})), None, vec![]),
        ] {
            let provenance = Provenance {
                provider_id: None,
                agent_meta: agent,
                player_meta: player,
            };
            assert_eq!(provenance.agent_ids(), ids, "{provenance:?}");
        }
    }

    #[test]
    fn a_note_gives_back_the_provenance_it_stored() {
        let provenance = Provenance {
            provider_id: Some("clawdchat".to_owned()),
            agent_meta: json!({"agent_id": "u-1", "model": "m"})
                .as_object()
                .cloned(),
            player_meta: json!({"x": [1, 2]}).as_object().cloned(),
        };
        let bot = Bot {
            id: 7,
            name: "alice".to_owned(),
            kind: arbiter_arena::BotKind::Registered,
            created_ms: 0,
            disabled: false,
            deleted: false,
            token_prefix: None,
            profile: arbiter_arena::BotProfile::default(),
            environment: None,
            default_variant: "",
        };
        let note = provenance.to_note(&bot);
        assert_eq!(note["bot_id"], 7);
        assert_eq!(Provenance::from_note(&note), provenance);
    }
}
