//! Tournaments on the pages: organised, filled with house bots, started and followed through
//! the forms a signed-in person sees, entered by people where the organiser allows them, and
//! refused with the arena's reason where it says no.

use super::*;

/// The create form's fields: a round robin of Goofspiel's `short` variant called `name`,
/// with `extra` fields replacing or adding to the defaults.
fn create_fields(csrf: &str, name: &str, extra: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = [
        ("csrf", csrf),
        ("name", name),
        ("mode", "short"),
        ("kind", "round_robin"),
        ("cycles", "1"),
        ("rounds", "3"),
        ("minutes", "30"),
        ("initial", "60"),
        ("increment", "0"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    for (key, value) in extra {
        fields.retain(|(k, _)| k != key);
        fields.push(((*key).to_owned(), (*value).to_owned()));
    }
    fields
}

impl Browser {
    /// Posts `fields` to `path`.
    async fn send(&self, path: &str, fields: &[(String, String)]) -> Page {
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        self.post(path, &fields).await
    }

    /// Creates a tournament through the form; returns its id.
    async fn organise(&self, csrf: &str, name: &str, extra: &[(&str, &str)]) -> i64 {
        let created = self
            .send("/tournaments", &create_fields(csrf, name, extra))
            .await;
        assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.html);
        created
            .location
            .expect("to the tournament")
            .trim_start_matches("/tournaments/")
            .parse()
            .expect("a tournament id")
    }
}

/// Waits, round by round, until every game under way in tournament `id` has ended, then
/// drives the tournament as the heartbeat does.
async fn play_round(app: &TestApp, id: i64) {
    let tournament = app.arena.tournament(id).await.expect("the tournament");
    let live: Vec<i64> = tournament.live_games().map(|(_, g)| g.match_id).collect();
    for match_id in live {
        // House bots play on their own; their games end without the clock moving.
        for _ in 0..2_000 {
            if app.snapshot(match_id).await["status"] != "running" {
                break;
            }
            settle().await;
        }
        assert_eq!(
            app.snapshot(match_id).await["status"],
            "finished",
            "match {match_id}"
        );
    }
    app.arena.drive_tournaments().await;
}

#[tokio::test]
async fn a_member_organises_a_round_robin_of_house_bots_and_follows_it() {
    let app = spawn_app().await;
    let organiser = Browser::new(&app);
    let csrf = organiser.sign_up("ada").await;
    let list = organiser.get("/tournaments").await;
    assert_eq!(list.status, StatusCode::OK);
    for text in [
        "href=\"/tournaments\"",
        "No tournament has been organised yet",
        "<option value=\"short\">goofspiel short</option>",
        "action=\"/tournaments\"",
    ] {
        assert!(list.html.contains(text), "{text}: {}", list.html);
    }

    // A refused form says why, and keeps what was typed: (name, fields changed, reason).
    type Refusal = (
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static str,
    );
    let refusals: [Refusal; 5] = [
        ("", &[], "a tournament&#39;s name has 1 to 64 characters"),
        (
            "Cup",
            &[("kind", "knockout")],
            "choose one of the formats offered",
        ),
        (
            "Cup",
            &[("kind", "swiss"), ("rounds", "0")],
            "A Swiss tournament&#39;s rounds must be a whole number from 1 to 50",
        ),
        (
            "Cup",
            &[("initial", "")],
            "The initial clock in seconds must be a whole number from 1 to 86400",
        ),
        ("Cup", &[("mode", "nonesuch")], "nonesuch"),
    ];
    for (name, extra, reason) in refusals {
        let page = organiser
            .send("/tournaments", &create_fields(&csrf, name, extra))
            .await;
        assert_eq!(
            page.status,
            StatusCode::BAD_REQUEST,
            "{extra:?}: {}",
            page.html
        );
        assert!(page.html.contains(reason), "{extra:?}: {}", page.html);
        assert!(
            page.html
                .contains(&format!("name=\"name\" value=\"{name}\"")),
            "{extra:?}: the form keeps the name"
        );
    }
    assert!(app.arena.tournaments().await.expect("list").is_empty());

    let id = organiser.organise(&csrf, "Club night", &[]).await;
    let visitor = Browser::new(&app);
    let listed = visitor.get("/tournaments").await;
    for text in [
        format!("<a href=\"/tournaments/{id}\">Club night</a>"),
        "goofspiel short".to_owned(),
        "round robin".to_owned(),
        "<td>open</td>".to_owned(),
        "unrated".to_owned(),
        "2026-11-28".to_owned(),
        "Sign in</a> to organise a tournament".to_owned(),
    ] {
        assert!(listed.html.contains(&text), "{text}: {}", listed.html);
    }

    // The organiser enters three house bots, one form each.
    let own = format!("/tournaments/{id}");
    let path = |action: &str| format!("{own}/{action}");
    let page = organiser.get(&own).await;
    assert!(page.html.contains("<dd>ada</dd>"), "{}", page.html);
    assert!(
        page.html.contains("<option value=\"house-easy\">"),
        "{}",
        page.html
    );
    for bot in ["house-random", "house-greedy", "house-easy"] {
        let entered = organiser
            .post(&path("house"), &[("csrf", &csrf), ("bot", bot)])
            .await;
        assert_eq!(entered.status, StatusCode::SEE_OTHER, "{}", entered.html);
        assert_eq!(entered.location.as_deref(), Some(own.as_str()));
    }
    let again = organiser
        .post(&path("house"), &[("csrf", &csrf), ("bot", "house-easy")])
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(again.html.contains("already entered"), "{}", again.html);

    // Someone else may neither start it nor enter bots, and is told why; nobody without the
    // visitor's CSRF value may either.
    let other = Browser::new(&app);
    let other_csrf = other.sign_up("bob").await;
    let seen = other.get(&own).await;
    assert!(!seen.html.contains(&path("control")), "no buttons for bob");
    // (who, the form, the fields sent, the reason shown), each refused with 403.
    let attempts = [
        (
            &other,
            "control",
            [("csrf", other_csrf.as_str()), ("action", "start")],
            "organiser may do that",
        ),
        (
            &other,
            "house",
            [("csrf", other_csrf.as_str()), ("bot", "house-medium")],
            "organiser may do that",
        ),
        (
            &organiser,
            "control",
            [("csrf", "forged"), ("action", "start")],
            "invalid csrf",
        ),
    ];
    for (browser, action, fields, reason) in attempts {
        let refused = browser.post(&path(action), &fields).await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "{action}: {}",
            refused.html
        );
        assert!(refused.html.contains(reason), "{action}: {}", refused.html);
    }
    let tournament = app.arena.tournament(id).await.expect("the tournament");
    assert_eq!(tournament.status.as_str(), "open");
    assert_eq!(tournament.entrants.len(), 3);

    // The organiser starts it: the first round is paired at once, sealed.
    let started = organiser
        .post(&path("control"), &[("csrf", &csrf), ("action", "start")])
        .await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.html);
    let tournament = app.arena.tournament(id).await.expect("the tournament");
    let round = &tournament.rounds[0];
    let game = round.games[0];
    let page = visitor.get(&own).await;
    for text in [
        "Running.".to_owned(),
        "<h2>Standings</h2>".to_owned(),
        "<h2>Crosstable</h2>".to_owned(),
        "<h3>Round 1 <span class=\"quiet\">under way</span></h3>".to_owned(),
        format!("<code>{}</code>", round.commitment),
        "revealed once every game of the round has ended".to_owned(),
        format!("playing <a href=\"/matches/{}\">", game.match_id),
        format!("data-refresh=\"/tournaments/{id}/live\""),
        "Bye: ".to_owned(),
    ] {
        assert!(page.html.contains(&text), "{text}: {}", page.html);
    }
    let match_page = visitor.get(&format!("/matches/{}", game.match_id)).await;
    assert!(
        match_page.html.contains(&format!(
            "<a href=\"/tournaments/{id}\">Round 1 of Club night</a>"
        )),
        "{}",
        match_page.html
    );
    let fragment = visitor.get(&path("live")).await;
    assert_eq!(fragment.cache_control.as_deref(), Some("no-store"));
    let signature = |html: &str| hidden_attribute(html, "data-signature");
    let before = signature(&fragment.html);

    // Once the round's game has ended and the tournament is driven, its seed is shown.
    play_round(&app, id).await;
    let tournament = app.arena.tournament(id).await.expect("the tournament");
    let seed = tournament.rounds[0].seed.clone().expect("revealed");
    let page = visitor.get(&own).await;
    assert!(
        page.html.contains(&format!("<code>{seed}</code>")),
        "{}",
        page.html
    );
    assert!(
        page.html
            .contains("each game's replay page checks its moves against it")
    );
    assert_ne!(signature(&visitor.get(&path("live")).await.html), before);

    // Played to the end, every pair has met once and the page stops refreshing itself.
    for _ in 0..3 {
        if app
            .arena
            .tournament(id)
            .await
            .expect("the tournament")
            .status
            .as_str()
            == "finished"
        {
            break;
        }
        play_round(&app, id).await;
    }
    let done = app.arena.tournament(id).await.expect("the tournament");
    assert_eq!(done.status.as_str(), "finished");
    let page = visitor.get(&own).await;
    assert!(page.html.contains("Finished."), "{}", page.html);
    assert!(!page.html.contains("data-refresh=\"/tournaments/"));
    for standing in done.standings() {
        assert!(
            page.html
                .contains(&format!("<a href=\"/bots/{0}\">{0}</a>", standing.name)),
            "{}",
            page.html
        );
    }
    let crosstable = page
        .html
        .split("<table class=\"crosstable\">")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("a crosstable");
    assert_eq!(crosstable.matches("<td class=\"self\"").count(), 3);
    assert_eq!(
        crosstable.matches("<td></td>").count(),
        0,
        "every pair has played: {crosstable}"
    );
    assert!(organiser.get(&own).await.html.contains("<dt>Ended</dt>"));
    // A game's replay names its round too, beside the seed it checks.
    let replay = visitor
        .get(&format!("/matches/{}/replay", game.match_id))
        .await;
    assert!(
        replay
            .html
            .contains(&format!("<a href=\"{own}\">Round 1 of Club night</a>")),
        "{}",
        replay.html
    );
    assert!(replay.html.contains(&seed), "{}", replay.html);
}

/// The value of the first `attribute="…"` in `html`.
fn hidden_attribute(html: &str, attribute: &str) -> String {
    let marker = format!("{attribute}=\"");
    let start = html.find(&marker).expect("the attribute") + marker.len();
    html[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn people_enter_where_the_organiser_lets_them_and_only_when_signed_in() {
    let app = spawn_app().await;
    let organiser = Browser::new(&app);
    let csrf = organiser.sign_up("ada").await;
    let person = Browser::new(&app);
    let person_csrf = person.sign_up("bob").await;
    let guest = Browser::new(&app);
    let guest_csrf = guest.csrf().await;
    // (people allowed, what bob's entry gets, what the page says after)
    let cases = [
        (true, StatusCode::SEE_OTHER, "@bob"),
        (
            false,
            StatusCode::CONFLICT,
            "this tournament is for bots only",
        ),
    ];
    for (people, status, shown) in cases {
        let extra: &[(&str, &str)] = if people { &[("people", "true")] } else { &[] };
        let id = organiser
            .organise(&csrf, &format!("People {people}"), extra)
            .await;
        let path = format!("/tournaments/{id}");
        let page = person.get(&path).await;
        assert_eq!(
            page.html.contains(&format!("action=\"{path}/join\"")),
            people,
            "the Enter button only where people may enter: {}",
            page.html
        );
        assert_eq!(
            guest
                .get(&path)
                .await
                .html
                .contains("to enter this tournament yourself"),
            people
        );
        // A guest is sent to sign in.
        let refused = guest
            .post(&format!("{path}/join"), &[("csrf", &guest_csrf)])
            .await;
        assert_eq!(refused.location.as_deref(), Some("/signin"));

        let entered = person
            .post(&format!("{path}/join"), &[("csrf", &person_csrf)])
            .await;
        assert_eq!(entered.status, status, "{}", entered.html);
        let page = match entered.status {
            StatusCode::SEE_OTHER => person.get(&path).await,
            _ => entered,
        };
        assert!(page.html.contains(shown), "{shown}: {}", page.html);
        let entrants = app.arena.tournament(id).await.expect("it").entrants;
        assert_eq!(entrants.len(), usize::from(people));
        if people {
            assert!(page.html.contains("<span class=\"tag\">person</span>"));
            assert!(page.html.contains(&format!("action=\"{path}/withdraw\"")));
            let left = person
                .post(&format!("{path}/withdraw"), &[("csrf", &person_csrf)])
                .await;
            assert_eq!(left.status, StatusCode::SEE_OTHER, "{}", left.html);
            let entrants = app.arena.tournament(id).await.expect("it").entrants;
            assert!(
                entrants.is_empty(),
                "an entry before the start is taken back"
            );
        }
    }
}

#[tokio::test]
async fn a_tournament_s_name_is_escaped_wherever_it_is_shown() {
    let app = spawn_app().await;
    let organiser = Browser::new(&app);
    let csrf = organiser.sign_up("ada").await;
    let name = "<script>alert(1)</script>";
    let id = organiser.organise(&csrf, name, &[]).await;
    for path in ["/tournaments".to_owned(), format!("/tournaments/{id}")] {
        let page = Browser::new(&app).get(&path).await;
        assert_eq!(page.status, StatusCode::OK);
        assert!(!page.html.contains(name), "{path}: {}", page.html);
        assert!(
            page.html
                .contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
            "{path}: {}",
            page.html
        );
    }
    assert_eq!(
        Browser::new(&app).get("/tournaments/999").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_tournament_at_tables_shows_each_seat_s_place() {
    let app = spawn_app().await;
    let organiser = Browser::new(&app);
    let csrf = organiser.sign_up("tabby").await;
    // Goofspiel seats at most four: a table of six is refused with the arena's reason.
    let refused = organiser
        .send(
            "/tournaments",
            &create_fields(&csrf, "Big table", &[("kind", "tables"), ("seats", "6")]),
        )
        .await;
    assert!(
        refused.html.contains("is not played at tables of 6"),
        "{}",
        refused.html
    );
    let id = organiser
        .organise(
            &csrf,
            "Table night",
            &[("kind", "tables"), ("rounds", "1"), ("seats", "3")],
        )
        .await;
    let path = |action: &str| format!("/tournaments/{id}/{action}");
    for bot in ["house-random", "house-greedy", "house-easy"] {
        organiser
            .post(&path("house"), &[("csrf", &csrf), ("bot", bot)])
            .await;
    }
    organiser
        .post(&path("control"), &[("csrf", &csrf), ("action", "start")])
        .await;
    let tournament = app.arena.tournament(id).await.expect("the tournament");
    assert_eq!(tournament.rounds[0].tables.len(), 1, "{tournament:?}");
    let match_id = tournament.rounds[0].tables[0].match_id;
    for _ in 0..2_000 {
        if app.snapshot(match_id).await["status"] != "running" {
            break;
        }
        settle().await;
    }
    app.arena.drive_tournaments().await;
    let page = organiser.get(&format!("/tournaments/{id}")).await;
    assert!(page.html.contains("Finished."), "{}", page.html);
    assert!(page.html.contains("<strong>1st</strong>"), "{}", page.html);
    assert!(
        !page.html.contains("<h2>Crosstable</h2>"),
        "no crosstable at tables"
    );
    assert!(
        page.html.contains("1 round at tables of up to 3"),
        "{}",
        page.html
    );
}
