//! The arena's one error type; the server maps [`ErrorClass`] to HTTP statuses and each
//! dialect maps [`ArenaError::code`] to its own strings.

/// What kind of failure an error is, independent of any protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// The request is malformed or names something impossible.
    BadRequest,
    /// No valid credential.
    Unauthenticated,
    /// A valid credential without the right to do this.
    Forbidden,
    /// The thing named does not exist.
    NotFound,
    /// The request conflicts with the current state (a stale revision, an illegal move).
    Conflict,
    /// Too many requests or connections; `retry_after_s` says when to try again.
    TooMany,
    /// The server cannot serve the request now (storage down, shutting down).
    Unavailable,
}

/// Why the arena refused or failed a request. A refused request changed nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    /// The bearer token is missing, malformed, unknown, rotated away or disabled.
    #[error("the bot token is missing or invalid")]
    InvalidToken,
    /// Only the administrator may do this.
    #[error("this needs the administrator token")]
    AdminOnly,
    /// Signing in failed: no such account, or not its password (which one is not said).
    #[error("wrong name or password")]
    WrongPassword,
    /// The bot belongs to another account.
    #[error("{0} belongs to another account")]
    NotYourBot(String),
    /// The request is malformed; the text says how.
    #[error("{0}")]
    InvalidRequest(String),
    /// A name breaks the naming rule ([`crate::NAME_RULE`]); the text says how.
    #[error("{0}")]
    InvalidName(String),
    /// An environment report is malformed (a text too long, an unknown variant); the text
    /// says which field.
    #[error("{0}")]
    InvalidEnvironment(String),
    /// No bot with this id or name.
    #[error("no bot named {0:?}")]
    BotNotFound(String),
    /// No match with this id.
    #[error("no match with id {0}")]
    MatchNotFound(i64),
    /// No tournament with this id.
    #[error("no tournament with id {0}")]
    TournamentNotFound(i64),
    /// Only the tournament's organiser (or the administrator) may do this.
    #[error("only the tournament's organiser may do that")]
    NotOrganiser,
    /// The tournament cannot do this in its present state; the text says why.
    #[error("{0}")]
    TournamentRefused(String),
    /// The name is taken or reserved: names are unique regardless of case and of letters
    /// that look alike (their confusable skeletons differ).
    #[error("the name {0:?} is already taken")]
    NameTaken(String),
    /// The name differs from a taken one only by case or by letters that look alike.
    #[error("the name {name:?} is too like {taken:?}, which is taken")]
    NameTooLike {
        /// The name asked for.
        name: String,
        /// The name it could be mistaken for.
        taken: String,
    },
    /// The bot cannot be challenged (disabled, deleted or expired).
    #[error("{0} cannot play now")]
    BotUnavailable(String),
    /// The game or variant is not offered, or a bot does not support it.
    #[error("{0}")]
    UnsupportedVariant(String),
    /// The challenge has already been answered, cancelled or has expired.
    #[error("the challenge has expired or was already answered")]
    ChallengeNotPending,
    /// This bot is not the one who may answer or cancel the challenge.
    #[error("only {0} may do that")]
    NotYourChallenge(&'static str),
    /// A bot is already playing as many matches as it may.
    #[error("{0} is already playing its maximum number of matches")]
    BotBusy(String),
    /// A change that must wait until the bot has no pending or running match.
    #[error("{0} has a pending or running match; try again when it has none")]
    HasOpenMatches(String),
    /// The house bots are already playing their maximum of variant matches.
    #[error("the house bots' variant matches are full; try again shortly")]
    HouseVariantsFull,
    /// The match is not running (pending, finished or aborted).
    #[error("the match is not running")]
    MatchNotRunning,
    /// The bot does not play in this match.
    #[error("this bot does not play in this match")]
    NotParticipant,
    /// The match has no such leg.
    #[error("the match has no leg {0}")]
    NoSuchLeg(u8),
    /// The leg has ended (played out or lost on time).
    #[error("leg {0} has finished")]
    LegFinished(u8),
    /// The revision is not the leg's current one (and the request is not a repeat of the
    /// move that was accepted at that revision).
    #[error("revision {given} is stale; the leg is at revision {current}")]
    StaleRevision {
        /// The revision sent.
        given: u64,
        /// The leg's revision.
        current: u64,
    },
    /// The other side is to move in this leg.
    #[error("it is not your turn in this leg")]
    NotYourTurn,
    /// The move's spelling names no square.
    #[error("invalid move coordinate: {0}")]
    InvalidCoordinate(String),
    /// The move names a square outside the board.
    #[error("move outside board: {0}")]
    OutsideBoard(String),
    /// The rules forbid the move; the text says which rule.
    #[error("illegal move: {0}")]
    IllegalMove(String),
    /// The value sent does not describe an action of the match's game.
    #[error("malformed action: {0}")]
    MalformedAction(String),
    /// The bot has as many event streams open as it may.
    #[error("too many streams are open for this bot (at most {0})")]
    TooManyStreams(usize),
    /// Too many requests of this kind; retry after the given seconds.
    #[error("too many requests; retry in {retry_after_s} s")]
    RateLimited {
        /// Seconds until a retry can succeed.
        retry_after_s: u64,
    },
    /// Storage failed; nothing was changed.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
}

impl ArenaError {
    /// A stable snake_case code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            ArenaError::InvalidToken => "invalid_token",
            ArenaError::AdminOnly => "admin_only",
            ArenaError::WrongPassword => "wrong_password",
            ArenaError::NotYourBot(_) => "not_your_bot",
            ArenaError::InvalidRequest(_) => "invalid_request",
            ArenaError::InvalidName(_) => "invalid_name",
            ArenaError::InvalidEnvironment(_) => "invalid_environment",
            ArenaError::BotNotFound(_) => "bot_not_found",
            ArenaError::MatchNotFound(_) => "match_not_found",
            ArenaError::TournamentNotFound(_) => "tournament_not_found",
            ArenaError::NotOrganiser => "not_organiser",
            ArenaError::TournamentRefused(_) => "tournament_refused",
            ArenaError::NameTaken(_) | ArenaError::NameTooLike { .. } => "name_taken",
            ArenaError::BotUnavailable(_) => "bot_unavailable",
            ArenaError::UnsupportedVariant(_) => "unsupported_variant",
            ArenaError::ChallengeNotPending => "challenge_not_pending",
            ArenaError::NotYourChallenge(_) => "not_your_challenge",
            ArenaError::BotBusy(_) => "bot_busy",
            ArenaError::HasOpenMatches(_) => "has_open_matches",
            ArenaError::HouseVariantsFull => "site_bot_variant_matches_full",
            ArenaError::MatchNotRunning => "match_not_running",
            ArenaError::NotParticipant => "not_a_participant",
            ArenaError::NoSuchLeg(_) => "invalid_leg",
            ArenaError::LegFinished(_) => "leg_finished",
            ArenaError::StaleRevision { .. } => "stale_revision",
            ArenaError::NotYourTurn => "not_your_turn",
            ArenaError::InvalidCoordinate(_) => "invalid_move_coordinate",
            ArenaError::OutsideBoard(_) => "move_outside_board",
            ArenaError::IllegalMove(_) => "illegal_move",
            ArenaError::MalformedAction(_) => "malformed_action",
            ArenaError::TooManyStreams(_) => "too_many_streams",
            ArenaError::RateLimited { .. } => "rate_limited",
            ArenaError::Unavailable(_) => "storage_unavailable",
            ArenaError::ShuttingDown => "shutting_down",
        }
    }

    /// The kind of failure.
    pub fn class(&self) -> ErrorClass {
        match self {
            ArenaError::InvalidRequest(_)
            | ArenaError::InvalidName(_)
            | ArenaError::InvalidEnvironment(_)
            | ArenaError::NoSuchLeg(_)
            | ArenaError::MalformedAction(_) => ErrorClass::BadRequest,
            ArenaError::InvalidToken | ArenaError::WrongPassword => ErrorClass::Unauthenticated,
            ArenaError::AdminOnly
            | ArenaError::NotYourBot(_)
            | ArenaError::NotParticipant
            | ArenaError::NotOrganiser
            | ArenaError::NotYourChallenge(_) => ErrorClass::Forbidden,
            ArenaError::BotNotFound(_)
            | ArenaError::MatchNotFound(_)
            | ArenaError::TournamentNotFound(_) => ErrorClass::NotFound,
            ArenaError::TooManyStreams(_) | ArenaError::RateLimited { .. } => ErrorClass::TooMany,
            ArenaError::Unavailable(_) | ArenaError::ShuttingDown => ErrorClass::Unavailable,
            _ => ErrorClass::Conflict,
        }
    }

    /// Seconds a client should wait before retrying, for rate limits.
    pub fn retry_after_s(&self) -> Option<u64> {
        match self {
            ArenaError::RateLimited { retry_after_s } => Some(*retry_after_s),
            _ => None,
        }
    }
}

impl From<arbiter_store::WriterError> for ArenaError {
    fn from(error: arbiter_store::WriterError) -> Self {
        match error {
            arbiter_store::WriterError::Closed => ArenaError::ShuttingDown,
            arbiter_store::WriterError::Unavailable(text) => ArenaError::Unavailable(text),
        }
    }
}

impl From<arbiter_store::StoreError> for ArenaError {
    fn from(error: arbiter_store::StoreError) -> Self {
        ArenaError::Unavailable(error.to_string())
    }
}

impl From<arbiter_plugin::SetupError> for ArenaError {
    fn from(error: arbiter_plugin::SetupError) -> Self {
        ArenaError::UnsupportedVariant(error.to_string())
    }
}

impl From<arbiter_plugin::CodecError> for ArenaError {
    fn from(error: arbiter_plugin::CodecError) -> Self {
        match error {
            arbiter_plugin::CodecError::InvalidCoordinate(text) => {
                ArenaError::InvalidCoordinate(text)
            }
            arbiter_plugin::CodecError::OutsideBoard(text) => ArenaError::OutsideBoard(text),
            arbiter_plugin::CodecError::Malformed(text) => ArenaError::MalformedAction(text),
        }
    }
}

impl From<arbiter_plugin::UnknownMode> for ArenaError {
    fn from(error: arbiter_plugin::UnknownMode) -> Self {
        ArenaError::UnsupportedVariant(error.0)
    }
}
