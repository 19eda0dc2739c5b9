//! The request and response bodies of the native API, with their OpenAPI schemas.

use arbiter_arena::{Bot, BotProfile, Environment, Format, Games, Language, Opening, TimeControl};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::{IntoParams, PartialSchema, ToSchema};

/// A variant of a game the arena runs, in the document: one of the names the registered
/// families offer, filled in by [`VariantName::schema_for`] when the document is built.
pub struct VariantName;

impl VariantName {
    /// The schema listing the variants of `games`.
    pub fn schema_for(games: &Games) -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(games.variant_names()))
            .description(Some(format!(
                "A variant of a game this server runs ({}).",
                games
                    .modes()
                    .iter()
                    .map(|mode| mode.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
            .into()
    }
}

impl PartialSchema for VariantName {
    fn schema() -> RefOr<Schema> {
        VariantName::schema_for(&Games::new())
    }
}

impl ToSchema for VariantName {}

/// A game the arena runs, in the document, filled in by [`GameName::schema_for`].
pub struct GameName;

impl GameName {
    /// The schema listing the games of `games`.
    pub fn schema_for(games: &Games) -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(games.ids()))
            .description(Some("A game this server runs."))
            .into()
    }
}

impl PartialSchema for GameName {
    fn schema() -> RefOr<Schema> {
        GameName::schema_for(&Games::new())
    }
}

impl ToSchema for GameName {}

/// An opponent, in the document: a bot's name or its id.
pub struct Opponent;

impl PartialSchema for Opponent {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .min_length(Some(1)),
            )
            .item(ObjectBuilder::new().schema_type(Type::Integer))
            .description(Some("A bot's name, or its id."))
            .into()
    }
}

impl ToSchema for Opponent {}

/// One opponent, or several for a game of more than two, in the document.
pub struct Opponents;

impl PartialSchema for Opponents {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(Opponent::schema())
            .item(
                utoipa::openapi::schema::ArrayBuilder::new()
                    .items(Opponent::schema())
                    .min_items(Some(1))
                    .max_items(Some(7)),
            )
            .description(Some(
                "A bot's name or id, or a list of them for a game of more than two.",
            ))
            .into()
    }
}

impl ToSchema for Opponents {}

/// An action, in the document: any JSON value, in the game's spelling.
pub struct MoveSpelling;

impl PartialSchema for MoveSpelling {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .description(Some(
                "An action in the game's spelling: one of the decision's `legal_actions` as it \
                 lists them; board games also take their usual spellings (a square index \
                 such as `19`, a coordinate such as `\"d3\"`, or a pass: `-1`, `\"pass\"`).",
            ))
            .into()
    }
}

impl ToSchema for MoveSpelling {}

/// A bot as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct BotView {
    /// Identifier.
    pub id: i64,
    /// Name (anonymous bots are named `anon:…`, house bots `house-…`).
    pub name: String,
    /// `registered`, `anonymous` or `house`.
    #[schema(pattern = "^(registered|anonymous|house)$")]
    pub kind: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// Whether it is connected now (an open stream, or a request in the last 10 s).
    pub online: bool,
    /// The variants of the games this server runs that it plays.
    #[schema(value_type = Vec<VariantName>)]
    pub supported_variants: Vec<String>,
    /// Whether it may be rated.
    pub ranked: bool,
    /// The first characters of its token (only in a bot's own profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_prefix: Option<String>,
    /// Whether it is disabled (only in a bot's own profile and to the administrator).
    pub disabled: bool,
    /// Whether the arena offers it games when it is online and idle (registered bots).
    pub auto_match: bool,
    /// Its ratings by game mode (`game:variant`, …), in a single bot's profile: the rating
    /// system, rating, deviation, volatility (Glicko-2 only), games, wins, losses, draws, highest rating, streaks, and whether
    /// it is still provisional with its progress towards an official rating.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub ratings: Option<Value>,
    /// What its connected engine last reported (`POST /api/v1/bots/me/environment`); `null`
    /// when it has not reported since the server started.
    #[schema(required = true)]
    pub environment: Option<EnvironmentView>,
    /// Where the server calls it for its decisions, if it answers over HTTP (only in a bot's
    /// own profile; never its secret).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookView>,
    /// The WebAssembly module the server runs for it, if it was submitted to run here (only
    /// in a bot's own profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<ModuleView>,
}

/// A bot's environment report as the API shows it: public, like FlipSight's
/// `bots[].environment`.
#[derive(Debug, Serialize, ToSchema)]
pub struct EnvironmentView {
    /// The engine's name and version, such as `Edax 4.6`; `null` if not reported.
    #[schema(required = true)]
    pub engine: Option<String>,
    /// The processor the engine runs on; `null` if not reported.
    #[schema(required = true)]
    pub cpu: Option<String>,
    /// The operating system; `null` if not reported.
    #[schema(required = true)]
    pub os: Option<String>,
    /// Whether the bot is practising: its matches against other bots are then unrated.
    pub practice: bool,
    /// The variants the connected engine plays; `null` when it did not say, which restricts
    /// nothing. Challenges in other variants are refused with `unsupported_variant`.
    #[schema(required = true, value_type = Option<Vec<VariantName>>)]
    pub variants: Option<Vec<String>>,
}

impl EnvironmentView {
    /// The view of a report.
    pub fn of(environment: &Environment) -> EnvironmentView {
        EnvironmentView {
            engine: environment.engine.clone(),
            cpu: environment.cpu.clone(),
            os: environment.os.clone(),
            practice: environment.practice,
            variants: environment.variants.clone(),
        }
    }
}

/// A bot's report of the engine it has connected, sent on every connect. Every field is
/// optional; each report replaces the previous one entirely.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct EnvironmentReport {
    /// The engine's name and version (at most 120 characters; trimmed, empty means absent).
    #[schema(max_length = 120)]
    pub engine: Option<String>,
    /// The processor (at most 120 characters; trimmed, empty means absent).
    #[schema(max_length = 120)]
    pub cpu: Option<String>,
    /// The operating system (at most 120 characters; trimmed, empty means absent).
    #[schema(max_length = 120)]
    pub os: Option<String>,
    /// Practice mode (default `false`): while set, the bot's matches against other bots are
    /// unrated.
    pub practice: bool,
    /// The variants the connected engine can play, among the variants of the games this server
    /// runs; absent for no restriction, and never empty. Challenges in other variants are
    /// refused.
    #[schema(value_type = Option<Vec<VariantName>>, min_items = 1)]
    pub variants: Option<Vec<String>>,
}

impl EnvironmentReport {
    /// The report, for the arena to check and keep.
    pub fn into_environment(self) -> Environment {
        Environment {
            engine: self.engine,
            cpu: self.cpu,
            os: self.os,
            practice: self.practice,
            variants: self.variants,
        }
    }
}

/// The variants house bots play: every variant of every game in `games` that has a house
/// player, each name once.
fn house_variants(games: &Games) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for family in games.families().filter(|f| f.house.is_some()) {
        for variant in family.setup.variants() {
            if !names.iter().any(|name| name == variant.name) {
                names.push(variant.name.to_owned());
            }
        }
    }
    names
}

impl BotView {
    /// The public view of a bot on a server running `games`.
    pub fn public(bot: &Bot, online: bool, games: &Games) -> BotView {
        let supported_variants = if bot.kind == arbiter_store::BotKind::House {
            house_variants(games)
        } else if bot.profile.supported_variants.is_empty() {
            // A profile that lists no variants offers the server's default mode's.
            vec![bot.default_variant.to_owned()]
        } else {
            bot.profile.supported_variants.clone()
        };
        BotView {
            id: bot.id,
            name: bot.name.clone(),
            kind: bot.kind.as_str().to_owned(),
            created_ms: bot.created_ms,
            online,
            supported_variants,
            ranked: bot.kind == arbiter_store::BotKind::Registered,
            token_prefix: None,
            disabled: bot.disabled,
            auto_match: bot.kind == arbiter_store::BotKind::Registered
                && !bot.profile.auto_match_off,
            ratings: None,
            environment: bot.environment.as_ref().map(EnvironmentView::of),
            webhook: None,
            module: None,
        }
    }

    /// The view a bot has of itself on a server running `games`.
    pub fn own(bot: &Bot, online: bool, games: &Games) -> BotView {
        BotView {
            token_prefix: bot.token_prefix.clone(),
            webhook: bot.profile.webhook.as_ref().map(|webhook| WebhookView {
                url: webhook.url.clone(),
                accept_challenges: webhook.accept_challenges,
                min_initial_ms: webhook.min_initial_ms,
                secret: None,
            }),
            module: bot.profile.sandboxed.as_ref().map(ModuleView::of),
            ..BotView::public(bot, online, games)
        }
    }
}

/// A new bot and its token, which is shown this once and never again.
#[derive(Debug, Serialize, ToSchema)]
pub struct NewBot {
    /// The bot.
    pub bot: BotView,
    /// The token: send it as `Authorization: Bearer <token>`; store it like a password.
    pub token: String,
}

/// Minting an anonymous bot.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct AnonymousRequest {
    /// An optional label shown in the bot's name (`anon:<label>#<id>`): 2 to 24 letters,
    /// digits, `_`, `-` or `.`, neither only digits nor only dots.
    #[schema(min_length = 2, max_length = 24, pattern = r"^[\w.-]{2,24}$")]
    pub name: Option<String>,
    /// The variants of the games this server runs that it plays, at least one (default: all
    /// of them).
    #[schema(value_type = Option<Vec<VariantName>>, min_items = 1)]
    pub supported_variants: Option<Vec<String>>,
}

/// Registering a bot (administrator).
#[derive(Debug, Deserialize, ToSchema)]
pub struct RegisterRequest {
    /// 2 to 24 letters, digits, `_`, `-` or `.`, neither only digits nor only dots, not
    /// starting with `house-`, not `me` or `anon`, and unique regardless of case and of
    /// letters that look alike (Unicode's confusable skeletons): `hоuse-easy` with a Cyrillic
    /// `о` is refused. In the pattern, `\w` stands for letters and digits of any script and `_`.
    #[schema(min_length = 2, max_length = 24, pattern = r"^[\w.-]{2,24}$")]
    pub name: String,
    /// The variants of the games this server runs that it plays, at least one (default: the
    /// variant of the server's default mode).
    #[serde(default)]
    #[schema(value_type = Option<Vec<VariantName>>, min_items = 1)]
    pub supported_variants: Option<Vec<String>>,
    /// How many matches it may play at once, 1 to 16 (default 2).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 16)]
    pub concurrency: Option<u32>,
}

impl RegisterRequest {
    /// The profile it asks for on a server running `games`, which the arena checks.
    pub fn profile(&self, games: &Games) -> BotProfile {
        BotProfile {
            supported_variants: self.supported_variants.clone().unwrap_or_else(|| {
                // With no game at all there is no default: the arena refuses the empty list.
                games
                    .default_mode()
                    .map(|mode| vec![mode.variant.to_owned()])
                    .unwrap_or_default()
            }),
            concurrency: self.concurrency,
            ..BotProfile::default()
        }
    }
}

/// Replacing the variants a bot offers (administrator).
#[derive(Debug, Deserialize, ToSchema)]
pub struct VariantsRequest {
    /// The variants of the games this server runs that it plays; at least one.
    #[schema(value_type = Vec<VariantName>, min_items = 1)]
    pub variants: Vec<String>,
}

/// Switching a bot's auto-matching (administrator).
#[derive(Debug, Deserialize, ToSchema)]
pub struct AutoMatchRequest {
    /// `true` to let the arena offer the bot games when it is idle, `false` to stop it.
    pub enabled: bool,
}

/// Switching bot talk (administrator).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TalkSwitch {
    /// `true` to let house bots talk, `false` to silence them all at once.
    pub enabled: bool,
}

/// Whether house bots talk, and who words their lines.
#[derive(Debug, Serialize, ToSchema)]
pub struct TalkState {
    /// Whether house bots talk now.
    pub enabled: bool,
    /// Who words their lines (`template`, `ollama · qwen3:8b`), or `off`; never an address
    /// or a key.
    pub provider: String,
}

impl TalkState {
    /// The arena's bot talk now.
    pub fn of(arena: &arbiter_arena::Arena) -> TalkState {
        TalkState {
            enabled: arena.talk_enabled(),
            provider: arena.talk_provider(),
        }
    }
}

/// Disabling or enabling a bot (administrator).
#[derive(Debug, Deserialize, ToSchema)]
pub struct DisableRequest {
    /// `true` to disable, `false` to enable again.
    #[serde(default = "yes")]
    pub disabled: bool,
}

fn yes() -> bool {
    true
}

/// A challenge.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ChallengeBody {
    /// The opponent's name or id, or a list of them for a game of more than two (each must
    /// accept; any refusal cancels the challenge). Your own name gives an unrated self-play
    /// match; a house bot (`house-random`, `house-greedy`, `house-easy`, `house-medium`,
    /// `house-hard`) starts at once.
    #[schema(value_type = Opponents)]
    pub opponent: Value,
    /// The game (default: the server's default game).
    #[serde(default)]
    #[schema(value_type = Option<GameName>)]
    pub game: Option<String>,
    /// The variant, one of the game's (default: the game's default variant).
    #[serde(default)]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// `paired` (two legs from one opening, colours swapped) or `single`; by default the
    /// game's own: paired, except in a game played one game a match.
    #[serde(default)]
    pub format: Option<MatchFormat>,
    /// Clocks (default 60 s per leg per side, no increment).
    #[serde(default)]
    pub time_control: TimeControlBody,
    /// Whether the result should count for ratings (default true; only between registered
    /// bots, never in self-play).
    #[serde(default = "yes")]
    pub rated: bool,
    /// Where the legs start (default `random`); paired legs share the start.
    #[serde(default)]
    pub opening: MatchOpening,
    /// Your client seed: entropy of your own, mixed into every random draw of the match
    /// (dice, openings) with the server's committed seed (`docs/fairness.md`).
    #[serde(default)]
    #[schema(pattern = "^[A-Za-z0-9._-]{0,64}$", max_length = 64)]
    pub client_seed: Option<String>,
}

/// What a bot may add when it accepts a challenge or takes a seat at a table.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct SeedBody {
    /// Your client seed: entropy of your own, mixed into every random draw of the match
    /// (dice, openings) with the server's committed seed (`docs/fairness.md`).
    #[serde(default)]
    #[schema(pattern = "^[A-Za-z0-9._-]{0,64}$", max_length = 64)]
    pub client_seed: Option<String>,
}

/// Where a match's legs start; what each choice means is the game's.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchOpening {
    /// A random start drawn from the match seed, or the game's own start where it has no
    /// random ones.
    #[default]
    Random,
    /// The game's own start.
    Start,
    /// A start from the game's list of balanced openings, for the games and variants that
    /// have one (others refuse the match when it starts).
    Balanced,
}

impl From<MatchOpening> for Opening {
    fn from(opening: MatchOpening) -> Opening {
        match opening {
            MatchOpening::Random => Opening::Random,
            MatchOpening::Start => Opening::Start,
            MatchOpening::Balanced => Opening::Balanced,
        }
    }
}

/// Opening a table.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TableBody {
    /// The game (default: the server's default game).
    #[serde(default)]
    #[schema(value_type = Option<GameName>)]
    pub game: Option<String>,
    /// The variant, one of the game's (default: the game's default variant).
    #[serde(default)]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// How many seats, yours included: 2 to 8, as the variant allows.
    #[schema(minimum = 2, maximum = 8)]
    pub seats: usize,
    /// `single` (default: one leg) or `paired` (one leg per seat, every participant taking
    /// every seat once).
    #[serde(default = "single")]
    pub format: MatchFormat,
    /// Clocks (default 60 s per leg per side, no increment).
    #[serde(default)]
    pub time_control: TimeControlBody,
    /// Your client seed: entropy of your own, mixed into every random draw of the match.
    #[serde(default)]
    #[schema(pattern = "^[A-Za-z0-9._-]{0,64}$", max_length = 64)]
    pub client_seed: Option<String>,
    /// The language the room talks in (default `en`): house bots of a game whose house
    /// players talk speak it.
    #[serde(default)]
    pub language: Option<RoomLanguage>,
}

/// The language a room talks in.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema)]
pub enum RoomLanguage {
    /// English.
    #[default]
    #[serde(rename = "en")]
    En,
    /// Korean, in the polite register.
    #[serde(rename = "ko")]
    Ko,
}

impl From<RoomLanguage> for Language {
    fn from(language: RoomLanguage) -> Language {
        match language {
            RoomLanguage::En => Language::English,
            RoomLanguage::Ko => Language::Korean,
        }
    }
}

fn single() -> MatchFormat {
    MatchFormat::Single
}

/// How many legs a match has.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchFormat {
    /// Two legs from one opening, colours swapped, played at once and scored together.
    #[default]
    Paired,
    /// One leg.
    Single,
}

impl From<MatchFormat> for Format {
    fn from(format: MatchFormat) -> Format {
        match format {
            MatchFormat::Paired => Format::Paired,
            MatchFormat::Single => Format::Single,
        }
    }
}

/// A match's clocks; every field is optional.
#[derive(Clone, Copy, Debug, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct TimeControlBody {
    /// Each side's clock per leg at the start, in milliseconds (default 60,000).
    #[schema(minimum = 1_000, maximum = 86_400_000)]
    pub initial_ms: Option<i64>,
    /// Added to a side's clock after each of its moves, in milliseconds (default 0).
    #[schema(minimum = 0, maximum = 3_600_000)]
    pub increment_ms: Option<i64>,
    /// A limit on every single turn, in milliseconds; `null` (default) for none.
    #[schema(minimum = 1_000, maximum = 86_400_000)]
    pub per_turn_ms: Option<i64>,
}

impl From<TimeControlBody> for TimeControl {
    fn from(body: TimeControlBody) -> TimeControl {
        let default = TimeControl::default();
        TimeControl {
            initial_ms: body.initial_ms.unwrap_or(default.initial_ms),
            increment_ms: body.increment_ms.unwrap_or(default.increment_ms),
            per_turn_ms: body.per_turn_ms.or(default.per_turn_ms),
        }
    }
}

/// A move.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MoveBody {
    /// The leg, from 0 (a match has at most one leg per seat).
    #[schema(maximum = 7)]
    pub leg: u8,
    /// The leg's revision the move was computed for.
    pub revision: u64,
    /// The action, in the game's spelling (see `MoveSpelling`).
    #[serde(rename = "move")]
    #[schema(value_type = MoveSpelling)]
    pub mv: Value,
}

/// Query of a long-poll.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The last seq already seen (0 for all).
    #[param(minimum = 0)]
    pub since: i64,
    /// Seconds to wait for an event when there is none yet (0 returns at once; at most 60).
    #[param(minimum = 0, maximum = 60)]
    pub wait: i64,
}

/// Query of the turns long-poll.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct TurnsQuery {
    /// Seconds to wait for a decision when there is none yet (0 returns at once; at most 60).
    #[param(minimum = 0, maximum = 60)]
    pub wait: i64,
    /// `json` (default) or `text`: one line per decision, for shell scripts.
    #[param(inline)]
    pub format: OutputFormat,
}

/// Query of the event stream.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Also follow the lobby: a `tables` line with every open table at once, and again
    /// whenever the list changes.
    pub lobby: bool,
}

/// Query of lists that can be narrowed to one game.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct GameFilter {
    /// Only this game's (every game's when left out).
    #[param(value_type = Option<GameName>)]
    pub game: Option<String>,
}

impl GameFilter {
    /// Whether `game` passes the filter.
    pub fn admits(&self, game: &str) -> bool {
        self.game.as_deref().is_none_or(|wanted| wanted == game)
    }
}

/// Query of the leaderboard.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// The game (default: the server's default game).
    #[param(value_type = Option<GameName>)]
    pub game: Option<String>,
    /// The variant (default: the game's default variant).
    #[param(value_type = Option<VariantName>)]
    pub variant: Option<String>,
}

impl LeaderboardQuery {
    /// The game and variant asked for, with the defaults of a server running `games` filled
    /// in. An unknown game is passed on as it is, for the arena to refuse.
    pub fn mode(self, games: &Games) -> (String, String) {
        let game = self.game.unwrap_or_else(|| {
            games
                .default_mode()
                .map(|mode| mode.game.to_owned())
                .unwrap_or_default()
        });
        let variant = self.variant.unwrap_or_else(|| {
            games
                .get(&game)
                .map(|family| family.default_variant().name.to_owned())
                .unwrap_or_default()
        });
        (game, variant)
    }
}

/// Query of the endpoints that can also answer in plain text.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct FormatQuery {
    /// `json` (default) or `text`: the one value a shell script needs, on one line.
    #[param(inline)]
    pub format: OutputFormat,
}

/// How a response is written. The text form exists so that a bot can be played with
/// nothing but `curl` and a shell loop; errors stay JSON either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// The API's JSON.
    #[default]
    Json,
    /// Plain text lines.
    Text,
}

/// The answer of the liveness probe.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `true`.
    pub ok: bool,
    /// The server's clock, milliseconds since the Unix epoch.
    pub server_now_ms: i64,
}

/// Creating a tournament.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TournamentBody {
    /// Its name, 1 to 64 characters.
    #[schema(min_length = 1, max_length = 64)]
    pub name: String,
    /// The game (default: the server's default game); it must be playable by two.
    #[serde(default)]
    #[schema(value_type = Option<GameName>)]
    pub game: Option<String>,
    /// The variant, one of the game's (default: the game's default variant).
    #[serde(default)]
    #[schema(value_type = Option<VariantName>)]
    pub variant: Option<String>,
    /// How entrants are paired.
    pub format: TournamentFormatBody,
    /// Every game's clocks (default 60 s per leg per side, no increment).
    #[serde(default)]
    pub time_control: TimeControlBody,
    /// Whether its games count for ratings (default false).
    #[serde(default)]
    pub rated: bool,
    /// Whether people may enter from the web pages as well as bots (default false).
    #[serde(default)]
    pub people: bool,
}

/// A tournament's format.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TournamentFormatBody {
    /// Everyone meets everyone once a cycle; 2 cycles swap the seats.
    RoundRobin {
        /// Cycles, 1 (default) or 2.
        #[serde(default = "one_cycle")]
        #[schema(minimum = 1, maximum = 2)]
        cycles: u8,
    },
    /// Swiss rounds: no repeat pairings, balanced seats, a bye for an odd one out.
    Swiss {
        /// Rounds, fewer than the entrants.
        #[schema(minimum = 1, maximum = 50)]
        rounds: u32,
    },
    /// Free entrants paired as soon as they are free, for a number of minutes from the start.
    Arena {
        /// The window's length in minutes.
        #[schema(minimum = 1, maximum = 1440)]
        minutes: u32,
    },
    /// Rounds of games for more than two: entrants seated at tables by points, each seat
    /// scoring by its place (1 for first down to 0 for last).
    Tables {
        /// Rounds.
        #[schema(minimum = 1, maximum = 50)]
        rounds: u32,
        /// The most seats at a table, as the variant allows.
        #[schema(minimum = 2, maximum = 8)]
        seats: u8,
    },
}

fn one_cycle() -> u8 {
    1
}

impl From<TournamentFormatBody> for arbiter_arena::TournamentFormat {
    fn from(body: TournamentFormatBody) -> Self {
        match body {
            TournamentFormatBody::RoundRobin { cycles } => Self::RoundRobin { cycles },
            TournamentFormatBody::Swiss { rounds } => Self::Swiss { rounds },
            TournamentFormatBody::Arena { minutes } => Self::Arena { minutes },
            TournamentFormatBody::Tables { rounds, seats } => Self::Tables { rounds, seats },
        }
    }
}

/// An entrant the organiser names.
#[derive(Debug, Deserialize, ToSchema)]
pub struct EntrantBody {
    /// A house bot's name (or any entrant's, to withdraw it).
    pub bot: String,
}

/// Where the server calls a bot that answers over HTTP.
#[derive(Debug, Deserialize, ToSchema)]
pub struct WebhookBody {
    /// The URL each decision is POSTed to: https (http only where the server allows it), at
    /// a public address unless the server allows the range.
    #[schema(max_length = 2048)]
    pub url: String,
    /// Whether challenges are accepted on the bot's behalf (default true); declined if not.
    #[serde(default)]
    pub accept_challenges: Option<bool>,
    /// The shortest initial clock, in milliseconds, of a challenge accepted on the bot's
    /// behalf (default 10,000).
    #[serde(default)]
    #[schema(minimum = 1_000, maximum = 86_400_000)]
    pub min_initial_ms: Option<i64>,
    /// Whether to make a new signing secret (the old one then signs nothing); a bot's first
    /// webhook always gets one.
    #[serde(default)]
    pub rotate_secret: bool,
}

/// How a submitted module plays, as query parameters of its upload.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ModuleSettings {
    /// Whether challenges are accepted on the bot's behalf once the module is ready (default
    /// true); declined if not.
    #[serde(default)]
    pub accept_challenges: Option<bool>,
    /// The shortest initial clock, in milliseconds, of a challenge accepted on the bot's
    /// behalf (default 10,000).
    #[serde(default)]
    #[param(minimum = 1_000, maximum = 86_400_000)]
    pub min_initial_ms: Option<i64>,
}

/// A bot's submitted module as it now is.
#[derive(Debug, Serialize, ToSchema)]
pub struct ModuleView {
    /// The module's SHA-256 in lowercase hex.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// When it was uploaded, in milliseconds since the Unix epoch.
    pub uploaded_ms: i64,
    /// `validating` (playing its validation match against a house bot), `ready` (playing)
    /// or `rejected` (playing nothing; `rejected_because` says why).
    pub status: String,
    /// Why it was rejected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected_because: Option<String>,
    /// Whether challenges are accepted on the bot's behalf once it is ready.
    pub accept_challenges: bool,
    /// The shortest initial clock of a challenge accepted on its behalf, in milliseconds.
    pub min_initial_ms: i64,
    /// Why its last failed decision failed (out of fuel, past its deadline, a trap, …), with
    /// the match, if one has failed since it was uploaded; only from `GET
    /// /api/v1/bots/me/module`, and kept in memory only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
}

impl ModuleView {
    /// The view of a bot's module settings.
    pub fn of(sandboxed: &arbiter_arena::Sandboxed) -> ModuleView {
        let (status, rejected_because) = match &sandboxed.status {
            arbiter_arena::ModuleStatus::Validating => ("validating", None),
            arbiter_arena::ModuleStatus::Ready => ("ready", None),
            arbiter_arena::ModuleStatus::Rejected { reason } => ("rejected", Some(reason.clone())),
        };
        ModuleView {
            sha256: sandboxed.sha256.clone(),
            size: sandboxed.size,
            uploaded_ms: sandboxed.uploaded_ms,
            status: status.to_owned(),
            rejected_because,
            accept_challenges: sandboxed.accept_challenges,
            min_initial_ms: sandboxed.min_initial_ms,
            last_failure: None,
        }
    }
}

/// A bot's webhook as it now is.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookView {
    /// The URL decisions are POSTed to.
    pub url: String,
    /// Whether challenges are accepted on the bot's behalf.
    pub accept_challenges: bool,
    /// The shortest initial clock of a challenge accepted on its behalf, in milliseconds.
    pub min_initial_ms: i64,
    /// The signing secret, shown only when it is new: keep it, it is not shown again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}
