//! The dialect's one error shape, `{"error": "code_snake_case", "message": "…", "detail": {}}`,
//! with the status and the code of the protocol's error table.

use arbiter_arena::ArenaError;
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value};

/// A refusal or failure as the dialect answers it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub(crate) struct BgpError {
    /// The HTTP status.
    pub(crate) status: StatusCode,
    /// The protocol's stable snake_case code.
    pub(crate) code: &'static str,
    /// A human-readable explanation.
    pub(crate) message: String,
    /// Structured details (an object, empty when there are none).
    pub(crate) detail: Map<String, Value>,
    /// Seconds to wait before retrying, for rate limits.
    retry_after_s: Option<u64>,
}

/// The body of every error response.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    message: &'a str,
    detail: &'a Map<String, Value>,
}

impl BgpError {
    /// An error with a status, a code and a message, and no detail.
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        BgpError {
            status,
            code,
            message: message.into(),
            detail: Map::new(),
            retry_after_s: None,
        }
    }

    /// This error with `key` set to `value` in its detail.
    pub(crate) fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.detail.insert(key.to_owned(), value.into());
        self
    }

    /// `400 bad_request`: the request does not parse or names something impossible.
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        BgpError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// `401 invalid_token`: the credential is missing or does not match.
    pub(crate) fn invalid_token(message: impl Into<String>) -> Self {
        BgpError::new(StatusCode::UNAUTHORIZED, "invalid_token", message)
    }

    /// `403 wrong_seat`: the credential belongs to another seat or match.
    pub(crate) fn wrong_seat(message: impl Into<String>) -> Self {
        BgpError::new(StatusCode::FORBIDDEN, "wrong_seat", message)
    }

    /// `404 match_not_found`.
    pub(crate) fn match_not_found(id: &str) -> Self {
        BgpError::new(
            StatusCode::NOT_FOUND,
            "match_not_found",
            format!("no match with id {id:?}"),
        )
    }

    /// `409` with one of the protocol's conflict codes.
    pub(crate) fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        BgpError::new(StatusCode::CONFLICT, code, message)
    }

    /// `422 invalid_move` with the detail's `reason` (`out_of_board`, `occupied`,
    /// `forbidden`, `illegal`, …) and its explanation.
    pub(crate) fn invalid_move(reason: &str, explanation: impl Into<String>) -> Self {
        let explanation = explanation.into();
        BgpError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_move",
            format!("the move is not allowed: {explanation}"),
        )
        .with_detail("reason", reason)
        .with_detail("explanation", explanation)
    }

    /// `500 internal_error`.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        BgpError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", message)
    }

    /// A refusal made before a request reaches the dialect (a body too large or too slow,
    /// too many requests from one address), in the dialect's shape.
    pub(crate) fn refusal(status: StatusCode) -> Self {
        match status {
            StatusCode::TOO_MANY_REQUESTS => BgpError::new(
                status,
                "rate_limited",
                "too many requests; try again shortly",
            ),
            StatusCode::PAYLOAD_TOO_LARGE => {
                BgpError::new(status, "bad_request", "the request body is too large")
            }
            StatusCode::REQUEST_TIMEOUT => {
                BgpError::new(status, "bad_request", "the request took too long to arrive")
            }
            _ => BgpError::new(status, "bad_request", "the request was refused"),
        }
    }
}

impl From<ArenaError> for BgpError {
    fn from(error: ArenaError) -> Self {
        let message = error.to_string();
        let mut mapped = match &error {
            ArenaError::InvalidToken | ArenaError::WrongPassword => {
                BgpError::invalid_token(message)
            }
            ArenaError::AdminOnly
            | ArenaError::NotYourBot(_)
            | ArenaError::NotParticipant
            | ArenaError::NotOrganiser
            | ArenaError::NotYourChallenge(_) => BgpError::wrong_seat(message),
            ArenaError::InvalidRequest(_)
            | ArenaError::InvalidName(_)
            | ArenaError::InvalidEnvironment(_)
            | ArenaError::NoSuchLeg(_)
            | ArenaError::MalformedAction(_)
            | ArenaError::InvalidCoordinate(_)
            | ArenaError::UnsupportedVariant(_)
            // The protocol has no tournaments: these reach it from no route.
            | ArenaError::TournamentNotFound(_)
            | ArenaError::TournamentRefused(_) => BgpError::bad_request(message),
            ArenaError::BotNotFound(_) => {
                BgpError::new(StatusCode::NOT_FOUND, "agent_not_found", message)
            }
            ArenaError::MatchNotFound(id) => BgpError::match_not_found(&id.to_string()),
            ArenaError::NameTaken(_) | ArenaError::NameTooLike { .. } => {
                BgpError::conflict("name_taken", message)
            }
            ArenaError::ChallengeNotPending => BgpError::conflict("match_not_waiting", message),
            ArenaError::MatchNotRunning | ArenaError::LegFinished(_) => {
                BgpError::conflict("match_finished", message)
            }
            ArenaError::NotYourTurn | ArenaError::StaleRevision { .. } => {
                BgpError::conflict("not_your_turn", message)
            }
            ArenaError::OutsideBoard(text) => BgpError::invalid_move("out_of_board", text.clone()),
            ArenaError::IllegalMove(text) => BgpError::invalid_move("illegal", text.clone()),
            ArenaError::BotUnavailable(_)
            | ArenaError::BotBusy(_)
            | ArenaError::HasOpenMatches(_)
            | ArenaError::HouseVariantsFull => BgpError::conflict("agent_busy", message),
            ArenaError::TooManyStreams(_) | ArenaError::RateLimited { .. } => {
                BgpError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message)
            }
            ArenaError::Unavailable(_) | ArenaError::ShuttingDown => {
                BgpError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
            }
        };
        mapped.retry_after_s = error.retry_after_s();
        mapped
    }
}

impl IntoResponse for BgpError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::warn!(code = %self.code, message = %self.message, "request failed");
        }
        let body = ErrorBody {
            error: self.code,
            message: &self.message,
            detail: &self.detail,
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(seconds) = self.retry_after_s
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// The result of a handler of the dialect.
pub(crate) type BgpResult<T> = Result<T, BgpError>;
