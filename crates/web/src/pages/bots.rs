//! Bots as anyone sees them: the list of bots, a bot's page (with the challenge and play forms,
//! and its owner's manage menu) and its picture.

use askama::Template;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

use super::{Page, page, render};
use crate::WebState;
use crate::error::WebError;
use crate::paths::filters;
use crate::session::Visitor;
use crate::view::{BotRow, MatchRow, VariantChoice, rating_chart, rating_history, variant_key};

#[derive(Template)]
#[template(path = "bots.html")]
struct BotsPage {
    page: Page,
    bots: Vec<BotRow>,
}

/// `GET /bots`: every bot that can play, online ones first.
pub(crate) async fn bots(
    State(state): State<WebState>,
    visitor: Visitor,
) -> Result<Html<String>, WebError> {
    let mut listed = state.arena.list_bots();
    listed.retain(|(bot, _)| !bot.deleted && !bot.disabled && bot.kind.as_str() != "anonymous");
    listed.sort_by_key(|(bot, online)| (!online, bot.name.to_lowercase()));
    let mut rows = Vec::with_capacity(listed.len());
    for (bot, online) in &listed {
        rows.push(BotRow::of(&state.arena, bot, *online).await);
    }
    render(&BotsPage {
        page: page(&visitor, "Bots"),
        bots: rows,
    })
}

/// A bot's page; the manage forms and the match forms show it again when they refuse.
#[derive(Template)]
#[template(path = "bot.html")]
pub(super) struct BotPage {
    page: Page,
    bot: BotRow,
    mine: bool,
    matches: Vec<MatchRow>,
    variants: Vec<VariantChoice>,
    message: Option<String>,
    /// The visitor's bots that may challenge this one, each with the key of a variant both
    /// play.
    challengers: Vec<(String, String)>,
    /// The rating in the default mode over its last rated matches, as SVG.
    chart: Option<String>,
    /// Whether a person may play it now (a house bot, or a registered bot online).
    open_to_people: bool,
    /// The modes a person may play it in, as (key, label): every registered mode of two
    /// seats that it plays (for a house bot, those of the families with a house player), the
    /// default mode first.
    person_variants: Vec<(String, String)>,
    /// The variant XOT openings are for (the default mode's), if the bot plays it.
    xot_variant: Option<String>,
    /// Whether its owner may make it answer over HTTP here.
    webhooks_offered: bool,
    /// Its webhook, for its owner.
    webhook: Option<WebhookRow>,
    /// Where its submitted module stands, in a sentence, for its owner.
    module: Option<String>,
}

/// A bot's webhook as its owner's form shows it.
pub(super) struct WebhookRow {
    url: String,
    accept_challenges: bool,
    min_initial_s: i64,
}

/// Where a submitted module stands, in a sentence.
fn module_status(module: &arbiter_arena::Sandboxed) -> String {
    let digest = module.sha256.get(..12).unwrap_or(&module.sha256);
    let size = module.size.div_ceil(1024);
    let status = match &module.status {
        arbiter_arena::ModuleStatus::Validating => "is playing its validation games".to_owned(),
        arbiter_arena::ModuleStatus::Ready => "is ready and plays here".to_owned(),
        arbiter_arena::ModuleStatus::Rejected { reason } => format!("was rejected: {reason}"),
    };
    format!("Its WebAssembly module ({size} KiB, SHA-256 {digest}…) {status}.")
}

/// The page of the bot called `name` as `visitor` sees it, with `message` (why a form was
/// refused) when there is one.
pub(super) async fn bot_page_for(
    state: &WebState,
    visitor: &Visitor,
    name: &str,
    message: Option<String>,
) -> Result<BotPage, WebError> {
    let bot = state.arena.find_bot(name).map_err(|_| WebError::NotFound)?;
    if bot.deleted {
        return Err(WebError::NotFound);
    }
    let mine = visitor
        .account
        .as_ref()
        .is_some_and(|a| bot.profile.owner == Some(a.id));
    let games = state.arena.games();
    let default = games.default_mode();
    let mut matches = state.arena.closed_matches(Some(bot.id), 100).await?;
    let chart = default.and_then(|mode| rating_chart(&rating_history(&matches, bot.id, mode)));
    matches.truncate(20);
    let variants = VariantChoice::all(games);
    // A challenge from this page is one bot against another: a game of two seats.
    let two_seats = |c: &VariantChoice| {
        games
            .get(c.game)
            .and_then(|family| family.variant(c.variant))
            .is_some_and(|v| v.seats_allowed(2))
    };
    let challengers = match &visitor.account {
        Some(account) if !mine && !bot.disabled => state
            .arena
            .bots_of(account)
            .into_iter()
            .filter(|(own, _)| !own.disabled)
            .flat_map(|(own, _)| {
                variants
                    .iter()
                    .filter(|c| two_seats(c) && own.supports(&c.key) && bot.supports(&c.key))
                    .map(|c| (own.name.clone(), c.key.clone()))
                    .collect::<Vec<_>>()
            })
            .collect(),
        _ => Vec::new(),
    };
    let row = BotRow::of(&state.arena, &bot, state.arena.is_online(bot.id)).await;
    let house = bot.kind == arbiter_arena::BotKind::House;
    let person_variants = variants
        .iter()
        .filter(|c| row.offers(&c.key))
        // A person challenges one bot, so the game is one of two seats; house bots play only
        // the families that have a house player.
        .filter(|c| two_seats(c))
        .filter(|c| {
            !house
                || games
                    .get(c.game)
                    .is_some_and(|family| family.house.is_some())
        })
        .map(|c| (c.key.clone(), format!("{} {}", c.game, c.variant)))
        .collect();
    let xot_variant = default
        .map(|mode| variant_key(games, mode))
        .filter(|key| row.offers(key));
    Ok(BotPage {
        page: page(visitor, &bot.name),
        bot: row,
        mine,
        matches: matches.iter().map(MatchRow::of_closed).collect(),
        variants,
        message,
        challengers,
        chart,
        open_to_people: !bot.disabled
            && (bot.kind == arbiter_arena::BotKind::House
                || (bot.kind == arbiter_arena::BotKind::Registered
                    && state.arena.is_online(bot.id))),
        person_variants,
        xot_variant,
        webhooks_offered: mine && state.hosting.is_some(),
        webhook: bot
            .profile
            .webhook
            .as_ref()
            .filter(|_| mine)
            .map(|webhook| WebhookRow {
                url: webhook.url.clone(),
                accept_challenges: webhook.accept_challenges,
                min_initial_s: webhook.min_initial_ms / 1_000,
            }),
        module: bot
            .profile
            .sandboxed
            .as_ref()
            .filter(|_| mine)
            .map(module_status),
    })
}

/// `GET /bots/{name}`: a bot's profile, with its manage menu for its owner.
pub(crate) async fn bot_page(
    State(state): State<WebState>,
    visitor: Visitor,
    Path(name): Path<String>,
) -> Result<Html<String>, WebError> {
    render(&bot_page_for(&state, &visitor, &name, None).await?)
}

/// `GET /bots/{name}/photo`: the bot's picture as the server re-encoded it.
pub(crate) async fn photo(
    State(state): State<WebState>,
    Path(name): Path<String>,
) -> Result<Response, WebError> {
    let bot = state
        .arena
        .find_bot(&name)
        .map_err(|_| WebError::NotFound)?;
    let png = state.arena.photo(bot.id).await?.ok_or(WebError::NotFound)?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            // The address names the picture's version.
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        png,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_in_every_place_they_appear() {
        let page = BotsPage {
            page: Page {
                title: "<b>".to_owned(),
                account: Some("<script>".to_owned()),
                csrf: "\"><script>".to_owned(),
            },
            bots: Vec::new(),
        };
        let html = page.render().expect("render");
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&#60;script&#62;"), "{html}");
        assert!(
            !html.contains("\"><"),
            "an attribute cannot be closed: {html}"
        );
    }
}
