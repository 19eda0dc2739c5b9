//! Tests every backend must pass, run by each backend's own test suite.

use std::sync::Arc;

use serde_json::json;

use crate::{
    AccountRecord, Audience, BotKind, BotRecord, Claim, EventRecord, IdKind, LeaseRecord,
    MatchRecord, MatchStatus, MaxIds, ModuleRecord, NoteRecord, PhotoRecord, RatingRecord,
    SessionRecord, Store, TournamentRecord, Write, Writer,
};

fn bot(id: i64, name: &str) -> BotRecord {
    BotRecord {
        id,
        name: name.to_owned(),
        kind: BotKind::Registered,
        token_hash: Some(format!("hash-{id}")),
        token_prefix: Some("arbb_x".to_owned()),
        created_ms: 1_000 + id,
        last_seen_ms: 0,
        disabled: false,
        deleted: false,
        profile: json!({"supported": ["main"]}),
    }
}

/// A match of a made-up game: the store keeps games, variants and modes as opaque text.
fn a_match(id: i64, status: MatchStatus) -> MatchRecord {
    MatchRecord {
        id,
        participants: vec![1, 2],
        game: "board".to_owned(),
        status,
        created_ms: 5_000,
        seed: format!("seed-{id}"),
        details: json!({"variant": "main", "format": "paired"}),
    }
}

fn rating(bot: i64, mode: &str, value: f64) -> RatingRecord {
    RatingRecord {
        bot,
        mode: mode.to_owned(),
        rating: json!({"rating": value, "games": 1}),
        updated_ms: 20_000 + bot,
    }
}

fn event(match_id: i64, seq: i64) -> EventRecord {
    EventRecord {
        match_id,
        seq,
        at_ms: 10_000 + seq,
        audience: if seq % 3 == 0 {
            Audience::Participant(1)
        } else {
            Audience::Everyone
        },
        kind: "move".to_owned(),
        payload: EventRecord::payload_of(&json!({"move": seq})),
    }
}

/// Runs every check against an empty store.
pub async fn check_all(store: Arc<dyn Store>) {
    round_trips(store.as_ref()).await;
    ratings_are_kept_per_bot_and_mode(store.as_ref()).await;
    closed_matches_come_newest_first(store.as_ref()).await;
    matches_of_more_participants_round_trip(store.as_ref()).await;
    accounts_sessions_and_photos_round_trip(store.as_ref()).await;
    modules_are_replaced_and_deleted(store.as_ref()).await;
    accounts_change_and_are_deleted(store.as_ref()).await;
    batches_are_atomic(store.as_ref()).await;
    notes_are_kept_per_match_in_order(store.as_ref()).await;
    tournaments_are_kept_whole_newest_first(store.as_ref()).await;
    the_writer_commits_in_order(store.clone()).await;
    ids_are_reserved_above_every_used_one(store.clone()).await;
    leases_hand_matches_to_one_node_at_a_time(store.clone()).await;
    duties_are_held_by_one_node_at_a_time(store.as_ref()).await;
}

async fn duties_are_held_by_one_node_at_a_time(store: &dyn Store) {
    let hold = |name: &'static str, node: &'static str, now: i64| async move {
        store
            .hold_duty(name, node, now, now + 1_000)
            .await
            .expect("duty")
    };
    assert!(hold("automatch", "a", 100).await, "a free duty is taken");
    assert!(!hold("automatch", "b", 500).await, "and held");
    assert!(hold("sweep", "b", 500).await, "duties are apart");
    assert!(hold("automatch", "a", 900).await, "kept by its holder");
    assert!(!hold("automatch", "b", 1_899).await);
    assert!(hold("automatch", "b", 1_900).await, "taken once lapsed");
    assert!(!hold("automatch", "a", 2_000).await);
    store
        .write_batch(&[Write::ReleaseLeases {
            node: "b".to_owned(),
            at_ms: 2_100,
        }])
        .await
        .expect("batch");
    assert!(
        hold("automatch", "a", 2_100).await,
        "released with the leases"
    );
}

async fn notes_are_kept_per_match_in_order(store: &dyn Store) {
    let note = |match_id, participant, kind: &str, n: i64| NoteRecord {
        match_id,
        participant,
        kind: kind.to_owned(),
        data: json!({"n": n, "text": "a \"quoted\" note"}),
        at_ms: 30_000 - n,
    };
    assert!(store.notes(40).await.expect("notes").is_empty());
    let notes = [
        note(40, Some(1), "second-kind", 1),
        note(41, None, "first-kind", 2),
        note(40, None, "first-kind", 3),
        note(40, Some(0), "first-kind", 4),
    ];
    // Added over two batches: the order is the order of adding, not of time or kind.
    store
        .write_batch(&[Write::AddNote(notes[0].clone())])
        .await
        .expect("first note");
    store
        .write_batch(
            &notes[1..]
                .iter()
                .cloned()
                .map(Write::AddNote)
                .collect::<Vec<_>>(),
        )
        .await
        .expect("more notes");
    assert_eq!(
        store.notes(40).await.expect("notes"),
        vec![notes[0].clone(), notes[2].clone(), notes[3].clone()]
    );
    assert_eq!(
        store.notes(41).await.expect("notes"),
        vec![notes[1].clone()]
    );
}

fn tournament(id: i64, status: &str, updated_ms: i64) -> TournamentRecord {
    TournamentRecord {
        id,
        status: status.to_owned(),
        created_ms: 40_000 + id,
        updated_ms,
        data: json!({
            "name": format!("Cup \"{id}\" ♛"),
            "entrants": [1, 2, 3],
            "rounds": [],
            "points": {"1": 1.5, "2": 0.25},
        }),
    }
}

/// Runs before `ids_are_reserved_above_every_used_one`, on tournaments of its own: no other
/// check stores one.
async fn tournaments_are_kept_whole_newest_first(store: &dyn Store) {
    let before = store.max_ids().await.expect("max ids");
    assert_eq!(before.tournament, 0, "no tournament yet");
    assert!(store.tournaments().await.expect("tournaments").is_empty());
    assert_eq!(store.tournament(3).await.expect("tournament"), None);

    // Stored out of the order of their ids, over two batches: they are listed by id.
    let third = tournament(3, "finished", 40_100);
    let fifth = tournament(5, "open", 40_200);
    let fourth = tournament(4, "running", 40_300);
    store
        .write_batch(&[
            Write::PutTournament(third.clone()),
            Write::PutTournament(fifth.clone()),
        ])
        .await
        .expect("batch");
    store
        .write_batch(&[Write::PutTournament(fourth.clone())])
        .await
        .expect("batch");
    assert_eq!(
        store.tournaments().await.expect("tournaments"),
        vec![fifth.clone(), fourth.clone(), third.clone()],
        "newest first"
    );
    assert_eq!(
        store.tournament(4).await.expect("tournament"),
        Some(fourth.clone())
    );
    assert_eq!(store.tournament(6).await.expect("tournament"), None);
    assert_eq!(store.max_ids().await.expect("max ids").tournament, 5);

    // A put replaces the whole tournament; of two puts in one batch, the later stands.
    let started = TournamentRecord {
        status: "running".to_owned(),
        updated_ms: 40_400,
        data: json!({"entrants": [1, 2], "rounds": [[{"match": 7, "pair": [1, 2]}]]}),
        ..fifth.clone()
    };
    let ended = TournamentRecord {
        status: "finished".to_owned(),
        updated_ms: 40_500,
        data: json!({"entrants": [1, 2], "rounds": [[{"match": 7}]], "winner": 1}),
        ..fifth.clone()
    };
    store
        .write_batch(&[
            Write::PutTournament(started),
            Write::PutTournament(ended.clone()),
        ])
        .await
        .expect("batch");
    assert_eq!(
        store.tournament(5).await.expect("tournament"),
        Some(ended.clone())
    );
    assert_eq!(
        store.tournaments().await.expect("tournaments"),
        vec![ended.clone(), fourth.clone(), third.clone()],
        "still one row each"
    );
    // Read by status, newest first; a status no tournament has finds none.
    assert_eq!(
        store
            .tournaments_with_status(&["finished"])
            .await
            .expect("tournaments"),
        vec![ended.clone(), third.clone()]
    );
    assert_eq!(
        store
            .tournaments_with_status(&["running", "paused"])
            .await
            .expect("tournaments"),
        vec![fourth]
    );
    assert!(
        store
            .tournaments_with_status(&["open"])
            .await
            .expect("tournaments")
            .is_empty()
    );

    // Reservations come after every tournament stored or reserved, and count as used.
    let first = store
        .reserve_ids(IdKind::Tournament, 2)
        .await
        .expect("reserved");
    assert!(first > 5, "{first} after the stored 5");
    assert!(
        store.max_ids().await.expect("max ids").tournament > first,
        "both ids reserved count as used"
    );
    // One stored with an id of its own past the counter moves reservations past it.
    store
        .write_batch(&[Write::PutTournament(tournament(first + 10, "open", 40_600))])
        .await
        .expect("batch");
    assert_eq!(
        store.max_ids().await.expect("max ids").tournament,
        first + 10
    );
    let next = store
        .reserve_ids(IdKind::Tournament, 1)
        .await
        .expect("reserved");
    assert!(next > first + 10, "{next} after the stored {}", first + 10);

    // Ids taken by a copy move the counter on; a smaller one takes nothing back.
    let taken = |tournament| {
        Write::IdsTaken(MaxIds {
            tournament,
            ..MaxIds::default()
        })
    };
    store.write_batch(&[taken(500)]).await.expect("batch");
    assert_eq!(store.max_ids().await.expect("max ids").tournament, 500);
    store.write_batch(&[taken(10)]).await.expect("batch");
    assert_eq!(store.max_ids().await.expect("max ids").tournament, 500);
    assert!(
        store
            .reserve_ids(IdKind::Tournament, 1)
            .await
            .expect("reserved")
            > 500
    );

    // Tournaments' ids are counted apart from the other kinds'.
    let after = store.max_ids().await.expect("max ids");
    assert_eq!(
        after,
        MaxIds {
            tournament: after.tournament,
            ..before
        }
    );
}

async fn round_trips(store: &dyn Store) {
    assert_eq!(store.max_ids().await.expect("max ids"), MaxIds::default());
    assert_eq!(store.last_heartbeat().await.expect("heartbeat"), None);
    let mut writes = vec![
        Write::PutBot(bot(1, "Alpha")),
        Write::PutBot(bot(2, "beta")),
    ];
    writes.push(Write::PutMatch(a_match(7, MatchStatus::Running)));
    writes.push(Write::PutMatch(a_match(8, MatchStatus::Finished)));
    writes.push(Write::PutMatch(a_match(9, MatchStatus::Pending)));
    writes.extend((1..=5).map(|seq| Write::AppendEvent(Arc::new(event(7, seq)))));
    writes.push(Write::Heartbeat(42));
    store.write_batch(&writes).await.expect("batch");

    let mut bots = store.bots().await.expect("bots");
    bots.sort_by_key(|b| b.id);
    assert_eq!(bots, vec![bot(1, "Alpha"), bot(2, "beta")]);
    assert_eq!(store.bot(2).await.expect("bot"), Some(bot(2, "beta")));
    assert_eq!(store.bot(3).await.expect("bot"), None);
    assert_eq!(
        store.max_ids().await.expect("max ids"),
        MaxIds {
            bot: 2,
            r#match: 9,
            account: 0,
            tournament: 0,
        }
    );
    assert_eq!(store.last_heartbeat().await.expect("heartbeat"), Some(42));
    assert_eq!(
        store.match_by_id(8).await.expect("match"),
        Some(a_match(8, MatchStatus::Finished))
    );
    assert_eq!(store.match_by_id(99).await.expect("match"), None);
    let mut open: Vec<i64> = store
        .open_matches()
        .await
        .expect("open")
        .iter()
        .map(|m| m.id)
        .collect();
    open.sort_unstable();
    assert_eq!(open, vec![7, 9]);

    assert_eq!(
        store.events(7, 0, 100).await.expect("events"),
        (1..=5).map(|s| event(7, s)).collect::<Vec<_>>()
    );
    assert_eq!(
        store.events(7, 2, 2).await.expect("events"),
        vec![event(7, 3), event(7, 4)]
    );
    assert!(store.events(8, 0, 10).await.expect("events").is_empty());

    // Puts replace.
    let mut renamed = bot(2, "Beta");
    renamed.disabled = true;
    let finished = a_match(7, MatchStatus::Finished);
    store
        .write_batch(&[
            Write::PutBot(renamed.clone()),
            Write::PutMatch(finished.clone()),
            Write::Heartbeat(43),
        ])
        .await
        .expect("batch");
    let bots = store.bots().await.expect("bots");
    assert!(bots.contains(&renamed));
    assert_eq!(store.match_by_id(7).await.expect("match"), Some(finished));
    assert_eq!(store.last_heartbeat().await.expect("heartbeat"), Some(43));

    // A sighting moves only `last_seen_ms`, and only forward; one of no bot is nothing.
    let seen = |bot, at_ms| Write::BotSeen { bot, at_ms };
    store
        .write_batch(&[seen(2, 500), seen(2, 300), seen(99, 700)])
        .await
        .expect("batch");
    assert_eq!(
        store.bot(2).await.expect("bot"),
        Some(BotRecord {
            last_seen_ms: 500,
            ..renamed
        })
    );
    assert_eq!(store.bot(99).await.expect("bot"), None);
}

async fn ratings_are_kept_per_bot_and_mode(store: &dyn Store) {
    assert!(store.ratings().await.expect("ratings").is_empty());
    let writes = [
        Write::PutRating(rating(2, "board:main", 1510.5)),
        Write::PutRating(rating(1, "board:main", 1490.0)),
        Write::PutRating(rating(1, "board:inverse", 1500.0)),
    ];
    store.write_batch(&writes).await.expect("batch");
    // A put replaces the bot's rating in that mode only.
    store
        .write_batch(&[Write::PutRating(rating(1, "board:main", 1477.25))])
        .await
        .expect("batch");
    assert_eq!(
        store.ratings().await.expect("ratings"),
        vec![
            rating(1, "board:inverse", 1500.0),
            rating(1, "board:main", 1477.25),
            rating(2, "board:main", 1510.5),
        ]
    );
    assert_eq!(
        store.ratings_of(1).await.expect("ratings"),
        vec![
            rating(1, "board:inverse", 1500.0),
            rating(1, "board:main", 1477.25),
        ]
    );
    assert!(store.ratings_of(3).await.expect("ratings").is_empty());
}

async fn closed_matches_come_newest_first(store: &dyn Store) {
    // After `round_trips`: 7 and 8 are finished, 9 is pending; 10 is bots 3 and 2's.
    let mut other = a_match(10, MatchStatus::Expired);
    other.participants[0] = 3;
    store
        .write_batch(&[Write::PutMatch(other)])
        .await
        .expect("batch");
    let ids = |matches: Vec<MatchRecord>| matches.iter().map(|m| m.id).collect::<Vec<_>>();
    let closed = |bot, limit| store.closed_matches(bot, limit);
    assert_eq!(ids(closed(None, 10).await.expect("closed")), vec![10, 8, 7]);
    assert_eq!(ids(closed(None, 2).await.expect("closed")), vec![10, 8]);
    assert_eq!(ids(closed(Some(1), 10).await.expect("closed")), vec![8, 7]);
    assert_eq!(ids(closed(Some(3), 10).await.expect("closed")), vec![10]);
    assert!(closed(Some(4), 10).await.expect("closed").is_empty());
}

/// Runs after `closed_matches_come_newest_first`: closed matches 7, 8 (bots 1 and 2) and 10
/// (bots 3 and 2) exist.
async fn matches_of_more_participants_round_trip(store: &dyn Store) {
    let with = |id, status, participants: &[i64]| MatchRecord {
        participants: participants.to_vec(),
        ..a_match(id, status)
    };
    let three = with(11, MatchStatus::Running, &[3, 1, 5]);
    let four = with(12, MatchStatus::Finished, &[4, 6, 5, 2]);
    // Self-play: one bot in both seats.
    let itself = with(13, MatchStatus::Aborted, &[7, 7]);
    store
        .write_batch(&[
            Write::PutMatch(three.clone()),
            Write::PutMatch(four.clone()),
            Write::PutMatch(itself.clone()),
        ])
        .await
        .expect("batch");
    assert_eq!(
        store.match_by_id(11).await.expect("match"),
        Some(three.clone())
    );
    assert_eq!(
        store.match_by_id(12).await.expect("match"),
        Some(four.clone())
    );
    let open = store.open_matches().await.expect("open");
    assert_eq!(
        open.iter().find(|m| m.id == 11),
        Some(&three),
        "participants in order in a list of matches too"
    );

    assert_eq!(
        store.open_matches_of(5).await.expect("open"),
        vec![11],
        "found by its third participant"
    );
    let of_one = store.open_matches_of(1).await.expect("open");
    assert!(of_one.contains(&11) && !of_one.contains(&8), "{of_one:?}");
    assert!(store.open_matches_of(6).await.expect("open").is_empty());

    let closed = |bot, limit| store.closed_matches(bot, limit);
    assert_eq!(
        closed(Some(5), 10).await.expect("closed"),
        vec![four.clone()],
        "found by its third participant; the running match 11 is not closed"
    );
    assert_eq!(
        closed(Some(4), 10).await.expect("closed"),
        vec![four.clone()]
    );
    assert_eq!(
        closed(Some(7), 10).await.expect("closed"),
        vec![itself.clone()],
        "a bot in two seats took part in one match"
    );
    let ids = |matches: Vec<MatchRecord>| matches.iter().map(|m| m.id).collect::<Vec<_>>();
    assert_eq!(
        ids(closed(Some(2), 10).await.expect("closed")),
        vec![12, 10, 8, 7]
    );
    assert_eq!(ids(closed(Some(2), 2).await.expect("closed")), vec![12, 10]);
    assert_eq!(
        ids(closed(None, 10).await.expect("closed")),
        vec![13, 12, 10, 8, 7]
    );

    // A put of an existing match keeps its participants.
    let ended = with(11, MatchStatus::Finished, &[3, 1, 5]);
    store
        .write_batch(&[Write::PutMatch(ended.clone())])
        .await
        .expect("batch");
    assert_eq!(
        store.match_by_id(11).await.expect("match"),
        Some(ended.clone())
    );
    assert_eq!(closed(Some(5), 1).await.expect("closed"), vec![four]);
    assert_eq!(
        closed(Some(3), 1).await.expect("closed"),
        vec![ended.clone()]
    );

    // Every match, a page at a time, whatever its status.
    let all = store.matches_after(0, 1_000).await.expect("matches");
    let all_ids = ids(all.clone());
    assert!(all_ids.windows(2).all(|w| w[0] < w[1]), "{all_ids:?}");
    for id in 7..=13 {
        assert!(all_ids.contains(&id), "{id} in {all_ids:?}");
    }
    assert!(all.contains(&ended), "with their participants");
    assert_eq!(
        store.matches_after(all_ids[1], 2).await.expect("page"),
        all[2..4].to_vec()
    );
    assert!(
        store
            .matches_after(all_ids[all_ids.len() - 1], 10)
            .await
            .expect("page")
            .is_empty()
    );
}

fn account(id: i64, name: &str) -> AccountRecord {
    AccountRecord {
        id,
        name: name.to_owned(),
        password_hash: format!("$argon2id$v=19$m=19456,t=2,p=1$salt{id}$hash"),
        created_ms: 3_000 + id,
    }
}

fn session(hash: &str, account: i64, expires_ms: i64) -> SessionRecord {
    SessionRecord {
        token_hash: hash.to_owned(),
        account,
        created_ms: 4_000,
        expires_ms,
    }
}

/// The token hashes of the sessions live at `now`, sorted.
async fn live_sessions(store: &dyn Store, now: i64) -> Vec<String> {
    let mut hashes: Vec<String> = store
        .sessions(now)
        .await
        .expect("sessions")
        .into_iter()
        .map(|s| s.token_hash)
        .collect();
    hashes.sort();
    hashes
}

async fn accounts_sessions_and_photos_round_trip(store: &dyn Store) {
    let photo = |bot: i64, png: &[u8]| PhotoRecord {
        bot,
        png: png.to_vec(),
        updated_ms: 6_000 + i64::from(png[0]),
    };
    assert!(store.accounts().await.expect("accounts").is_empty());
    store
        .write_batch(&[
            Write::PutAccount(account(1, "Ada")),
            Write::PutAccount(account(2, "grace")),
            Write::PutSession(session("s1", 1, 9_000)),
            Write::PutSession(session("s2", 2, 8_000)),
            Write::PutSession(session("s3", 1, 9_500)),
            Write::PutPhoto(Arc::new(photo(1, &[1, 2, 3]))),
        ])
        .await
        .expect("batch");
    assert_eq!(
        store.accounts().await.expect("accounts"),
        vec![account(1, "Ada"), account(2, "grace")]
    );
    assert_eq!(store.max_ids().await.expect("max ids").account, 2);
    // A name is unique whatever its case.
    assert!(
        store
            .write_batch(&[Write::PutAccount(account(3, "ADA"))])
            .await
            .is_err()
    );
    let live = |now| live_sessions(store, now);
    assert_eq!(live(8_500).await, vec!["s1", "s3"], "s2 has ended");
    store
        .write_batch(&[Write::DeleteSession("s1".to_owned())])
        .await
        .expect("batch");
    assert_eq!(live(0).await, vec!["s2", "s3"]);
    assert_eq!(
        store.sessions(0).await.expect("sessions")[0],
        session("s2", 2, 8_000)
    );

    assert_eq!(
        store.photo(1).await.expect("photo"),
        Some(photo(1, &[1, 2, 3]))
    );
    store
        .write_batch(&[Write::PutPhoto(Arc::new(photo(1, &[9, 9])))])
        .await
        .expect("batch");
    assert_eq!(
        store.photo(1).await.expect("photo"),
        Some(photo(1, &[9, 9]))
    );
    assert_eq!(store.photo(2).await.expect("photo"), None);
}

async fn modules_are_replaced_and_deleted(store: &dyn Store) {
    let module = |bot: i64, wasm: &[u8], uploaded_ms: i64| ModuleRecord {
        bot,
        wasm: wasm.to_vec(),
        sha256: format!("{:02x}", wasm[0]).repeat(32),
        uploaded_ms,
    };
    assert_eq!(store.module(1).await.expect("module"), None);
    let first = module(1, &[0, b'a', b's', b'm', 1, 0, 0, 0], 7_000);
    store
        .write_batch(&[Write::PutModule(Arc::new(first.clone()))])
        .await
        .expect("batch");
    assert_eq!(store.module(1).await.expect("module"), Some(first));
    let second = module(1, &[255, 0, 1], 7_100);
    store
        .write_batch(&[Write::PutModule(Arc::new(second.clone()))])
        .await
        .expect("batch");
    assert_eq!(
        store.module(1).await.expect("module"),
        Some(second),
        "a new module replaces the old"
    );
    assert_eq!(
        store.module(2).await.expect("module"),
        None,
        "another bot has none"
    );
    store
        .write_batch(&[Write::DeleteModule(1), Write::DeleteModule(2)])
        .await
        .expect("deleting a module that is not there is no error");
    assert_eq!(store.module(1).await.expect("module"), None);
    assert_eq!(
        store.photo(1).await.expect("photo").map(|p| p.png),
        Some(vec![9, 9]),
        "the bot's picture stays"
    );
}

/// Runs after `accounts_sessions_and_photos_round_trip`: accounts 1 (Ada, session s3) and 2
/// (grace, session s2) exist.
async fn accounts_change_and_are_deleted(store: &dyn Store) {
    let renewed = AccountRecord {
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$new$hash".to_owned(),
        ..account(1, "Ada")
    };
    store
        .write_batch(&[
            Write::PutSession(session("s4", 1, 9_000)),
            Write::PutSession(session("s5", 1, 9_000)),
            Write::PutAccount(renewed.clone()),
            Write::DeleteSessionsOf {
                account: 1,
                except: Some("s4".to_owned()),
            },
        ])
        .await
        .expect("batch");
    assert_eq!(
        store.accounts().await.expect("accounts")[0],
        renewed,
        "a new password replaces the old hash"
    );
    assert_eq!(
        live_sessions(store, 0).await,
        vec!["s2", "s4"],
        "Ada's other sessions ended, grace's kept"
    );
    store
        .write_batch(&[Write::DeleteSessionsOf {
            account: 1,
            except: None,
        }])
        .await
        .expect("batch");
    assert_eq!(live_sessions(store, 0).await, vec!["s2"]);

    store
        .write_batch(&[
            Write::PutSession(session("s6", 2, 9_000)),
            Write::DeleteAccount(2),
            Write::DeleteAccount(99),
        ])
        .await
        .expect("batch");
    assert_eq!(
        store.accounts().await.expect("accounts"),
        vec![renewed.clone()]
    );
    assert_eq!(
        store.account(1).await.expect("account"),
        Some(renewed.clone())
    );
    assert_eq!(store.account(2).await.expect("account"), None, "deleted");
    let of = |account| async move {
        let mut hashes: Vec<String> = store
            .sessions_of(account, 0)
            .await
            .expect("sessions")
            .into_iter()
            .map(|s| s.token_hash)
            .collect();
        hashes.sort();
        hashes
    };
    assert_eq!(of(1).await, Vec::<String>::new());
    assert!(
        of(2).await.is_empty(),
        "a deleted account's sessions end with it"
    );
    store
        .write_batch(&[
            Write::PutSession(session("s7", 1, 9_000)),
            Write::PutSession(session("s8", 1, 100)),
        ])
        .await
        .expect("batch");
    assert_eq!(of(1).await, ["s7", "s8"]);
    assert_eq!(
        store
            .sessions_of(1, 100)
            .await
            .expect("sessions")
            .iter()
            .map(|s| s.token_hash.as_str())
            .collect::<Vec<_>>(),
        ["s7"],
        "only the live ones"
    );
    store
        .write_batch(&[Write::DeleteAccount(1)])
        .await
        .expect("batch");
    assert!(store.accounts().await.expect("accounts").is_empty());
    assert_eq!(
        store.max_ids().await.expect("max ids").account,
        2,
        "a deleted account's id is never used again"
    );
    assert!(
        live_sessions(store, 0).await.is_empty(),
        "a deleted account's sessions end with it"
    );
    // Its name is free again, whatever its case.
    store
        .write_batch(&[Write::PutAccount(account(3, "Grace"))])
        .await
        .expect("the name is free");
}

async fn batches_are_atomic(store: &dyn Store) {
    // The second append repeats an existing (match, seq): the whole batch must fail.
    let writes = [
        Write::AppendEvent(Arc::new(event(9, 1))),
        Write::AppendEvent(Arc::new(event(7, 1))),
        Write::PutBot(bot(3, "Gamma")),
    ];
    assert!(store.write_batch(&writes).await.is_err());
    assert!(store.events(9, 0, 10).await.expect("events").is_empty());
    assert!(!store.bots().await.expect("bots").iter().any(|b| b.id == 3));
    // A batch of appends alone (which a store may send as one statement) is atomic too.
    let appends = [
        Write::AppendEvent(Arc::new(event(9, 1))),
        Write::AppendEvent(Arc::new(event(9, 2))),
        Write::AppendEvent(Arc::new(event(7, 1))),
    ];
    assert!(store.write_batch(&appends).await.is_err());
    assert!(store.events(9, 0, 10).await.expect("events").is_empty());
    // And the empty batch commits nothing, without failing.
    store.write_batch(&[]).await.expect("an empty batch");
}

async fn the_writer_commits_in_order(store: Arc<dyn Store>) {
    let (writer, _task) = Writer::start(store.clone());
    let mut handles = Vec::new();
    for seq in 1..=200 {
        let writer = writer.clone();
        handles.push(tokio::spawn(async move {
            writer
                .write(vec![Write::AppendEvent(Arc::new(event(9, seq)))])
                .await
        }));
    }
    for handle in handles {
        handle.await.expect("task").expect("durable");
    }
    let stored = store.events(9, 0, 1_000).await.expect("events");
    assert_eq!(stored.len(), 200);
    // A failing request does not fail others committed alongside it.
    let bad = writer.write(vec![Write::AppendEvent(Arc::new(event(9, 1)))]);
    let good = writer.write(vec![Write::AppendEvent(Arc::new(event(9, 201)))]);
    let (bad, good) = tokio::join!(bad, good);
    assert!(bad.is_err());
    assert_eq!(good, Ok(()));
}

/// Runs last: account 3 ("Grace") is the only account, accounts 1 and 2 were deleted.
async fn ids_are_reserved_above_every_used_one(store: Arc<dyn Store>) {
    store
        .write_batch(&[Write::DeleteAccount(3)])
        .await
        .expect("batch");
    let before = store.max_ids().await.expect("max ids");
    assert_eq!(before.account, 3, "deleted accounts' ids count");
    let reserve = |kind, count| {
        let store = store.clone();
        async move { store.reserve_ids(kind, count).await.expect("reserved") }
    };
    for kind in IdKind::ALL {
        let first = reserve(kind, 5).await;
        assert!(
            first > kind.of(&before),
            "{kind:?}: {first} after {before:?}"
        );
        let next = reserve(kind, 1).await;
        assert!(
            next >= first + 5,
            "{kind:?}: {next} after {first}..{}",
            first + 5
        );
        let after = store.max_ids().await.expect("max ids");
        assert!(
            kind.of(&after) >= next,
            "{kind:?}: reservations count as used"
        );
    }

    // Rows stored with ids of their own (a bot made while the server is stopped) move
    // reservations past them.
    store
        .write_batch(&[
            Write::PutBot(bot(1_000, "Kilo")),
            Write::PutMatch(a_match(2_000, MatchStatus::Finished)),
        ])
        .await
        .expect("batch");
    assert!(reserve(IdKind::Bot, 1).await > 1_000);
    let next_match = reserve(IdKind::Match, 1).await;
    assert!(next_match > 2_000);

    // Ids taken by a copy; a smaller one takes nothing back.
    store
        .write_batch(&[Write::IdsTaken(MaxIds {
            bot: 5_000,
            r#match: 10,
            account: 7_000,
            tournament: 9_000,
        })])
        .await
        .expect("batch");
    assert!(reserve(IdKind::Bot, 1).await > 5_000);
    assert!(reserve(IdKind::Match, 1).await > next_match);
    assert!(reserve(IdKind::Account, 1).await > 7_000);
    assert!(reserve(IdKind::Tournament, 1).await > 9_000);

    // Reservations made at once never overlap.
    let mut handles = Vec::new();
    for _ in 0..20 {
        handles.push(tokio::spawn(reserve(IdKind::Match, 3)));
    }
    let mut firsts = Vec::new();
    for handle in handles {
        firsts.push(handle.await.expect("task"));
    }
    firsts.sort_unstable();
    for pair in firsts.windows(2) {
        assert!(
            pair[1] >= pair[0] + 3,
            "overlapping reservations: {firsts:?}"
        );
    }
}

/// Copies [`crate::copy::fill_sample`] from `from` into `to` (both empty) and checks the copy:
/// every kind counted, the summaries equal, the deleted account's id still taken, a second
/// copy refused, and a changed record seen in the summary.
pub async fn check_copy(from: Arc<dyn Store>, to: Arc<dyn Store>) {
    use crate::copy::{CopyError, copy, fill_sample, summarize};
    fill_sample(from.as_ref()).await.expect("sample");
    let now = 5_000;
    let mut written = 0;
    let summary = copy(from.as_ref(), to.as_ref(), now, |n| written += n)
        .await
        .expect("copied and verified");
    let counts: Vec<(&str, u64)> = summary.kinds.iter().map(|(k, s)| (*k, s.count)).collect();
    assert_eq!(
        counts,
        [
            ("bots", 2),
            ("accounts", 1),
            ("sessions", 1),
            ("ratings", 1),
            ("photos", 1),
            ("modules", 1),
            ("matches", 2),
            ("events", 2_503),
            ("notes", 2),
            ("tournaments", 2),
            ("heartbeat", 1),
            ("ids", 1),
        ]
    );
    assert_eq!(written, 2 + 1 + 1 + 1 + 1 + 1 + 2 + 2_503 + 2 + 2 + 1 + 1);
    assert_eq!(summarize(to.as_ref(), now).await.expect("summary"), summary);
    assert_eq!(
        to.events(3, 2_499, 10).await.expect("events"),
        from.events(3, 2_499, 10).await.expect("events")
    );
    assert!(to.module(1).await.expect("module").is_some());
    assert_eq!(
        to.module(1).await.expect("module"),
        from.module(1).await.expect("module")
    );
    let copied = to.tournaments().await.expect("tournaments");
    assert_eq!(copied, from.tournaments().await.expect("tournaments"));
    assert_eq!(
        copied.iter().map(|t| t.id).collect::<Vec<_>>(),
        [2, 1],
        "newest first"
    );
    assert_eq!(
        to.max_ids().await.expect("max ids").tournament,
        2,
        "the tournaments' ids are taken"
    );

    // One more event, and the summaries differ in events alone.
    to.write_batch(&[Write::AppendEvent(Arc::new(event(4, 4)))])
        .await
        .expect("event");
    let changed = summarize(to.as_ref(), now).await.expect("summary");
    let differing: Vec<&str> = summary
        .kinds
        .iter()
        .zip(&changed.kinds)
        .filter(|(a, b)| a != b)
        .map(|((kind, _), _)| *kind)
        .collect();
    assert_eq!(differing, ["events"]);
    assert!(
        to.reserve_ids(IdKind::Account, 1).await.expect("id") > 2,
        "the deleted account's id stays taken"
    );
    assert!(matches!(
        copy(from.as_ref(), to.as_ref(), now, |_| {}).await,
        Err(CopyError::NotEmpty(_))
    ));
}

/// Runs last, on matches of its own (3001 and up).
async fn leases_hand_matches_to_one_node_at_a_time(store: Arc<dyn Store>) {
    let put = |id, status| Write::PutMatch(a_match(id, status));
    store
        .write_batch(&[
            put(3001, MatchStatus::Running),
            put(3002, MatchStatus::Pending),
            put(3003, MatchStatus::Finished),
        ])
        .await
        .expect("batch");
    let unleased = store.unleased_matches(100).await.expect("unleased");
    assert!(
        unleased.contains(&3001) && unleased.contains(&3002),
        "{unleased:?}"
    );
    assert!(!unleased.contains(&3003), "a closed match needs no node");
    let sorted = |mut claims: Vec<Claim>| {
        claims.sort_by_key(|c| c.match_id);
        claims
    };
    let claim = |node: &'static str, ids: &'static [i64], now: i64| {
        let store = store.clone();
        async move {
            sorted(
                store
                    .claim_matches(node, ids, now, now + 1_000)
                    .await
                    .expect("claim"),
            )
        }
    };
    let won = |match_id, renewed_ms| Claim {
        match_id,
        renewed_ms,
    };
    assert_eq!(
        claim("a", &[3001, 3002, 3003], 100).await,
        [won(3001, None), won(3002, None)],
        "never leased: won, but for the closed match"
    );
    assert_eq!(
        store.lease(3001).await.expect("lease"),
        Some(LeaseRecord {
            match_id: 3001,
            node: "a".to_owned(),
            renewed_ms: 100,
            expires_ms: 1_100,
        })
    );
    assert!(
        claim("b", &[3001, 3002], 500).await.is_empty(),
        "a's lease lasts"
    );
    let unleased = store.unleased_matches(500).await.expect("unleased");
    assert!(!unleased.contains(&3001) && !unleased.contains(&3002));

    let mut held = store
        .renew_leases("a", 1_000, 2_000)
        .await
        .expect("renewed");
    held.sort_unstable();
    assert_eq!(held, [3001, 3002]);
    // a stops renewing: once its lease lapses, b takes the match over, and learns when a was
    // last alive.
    assert!(claim("b", &[3001], 1_999).await.is_empty());
    assert_eq!(claim("b", &[3001], 2_000).await, [won(3001, Some(1_000))]);
    assert_eq!(
        store
            .renew_leases("a", 2_100, 3_100)
            .await
            .expect("renewed"),
        [3002],
        "a lost what b took"
    );
    assert_eq!(
        claim("a", &[3002], 2_200).await,
        [won(3002, Some(2_100))],
        "a node claims its own lease again"
    );

    // A closed match's lease is forgotten at the next renewal.
    store
        .write_batch(&[put(3002, MatchStatus::Finished)])
        .await
        .expect("batch");
    assert!(
        store
            .renew_leases("a", 2_300, 3_300)
            .await
            .expect("renewed")
            .is_empty()
    );
    assert_eq!(store.lease(3002).await.expect("lease"), None);

    // A node that stops hands its matches on at once.
    store
        .write_batch(&[Write::ReleaseLeases {
            node: "b".to_owned(),
            at_ms: 2_400,
        }])
        .await
        .expect("batch");
    assert!(
        store
            .unleased_matches(2_400)
            .await
            .expect("unleased")
            .contains(&3001)
    );
    assert_eq!(claim("c", &[3001], 2_400).await, [won(3001, Some(2_000))]);

    // A new match is leased with its row.
    let lease = LeaseRecord {
        match_id: 3004,
        node: "d".to_owned(),
        renewed_ms: 2_500,
        expires_ms: 3_500,
    };
    store
        .write_batch(&[
            put(3004, MatchStatus::Pending),
            Write::PutLease(lease.clone()),
        ])
        .await
        .expect("batch");
    assert_eq!(store.lease(3004).await.expect("lease"), Some(lease));
    assert!(claim("a", &[3004], 2_600).await.is_empty());

    // Of nodes claiming one match at once, one wins.
    store
        .write_batch(&[put(3005, MatchStatus::Running)])
        .await
        .expect("batch");
    let nodes: Vec<String> = (0..10).map(|n| format!("node-{n}")).collect();
    let mut handles = Vec::new();
    for node in nodes {
        let store = store.clone();
        handles.push(tokio::spawn(async move {
            store
                .claim_matches(&node, &[3005], 3_000, 4_000)
                .await
                .expect("claim")
                .len()
        }));
    }
    let mut wins = 0;
    for handle in handles {
        wins += handle.await.expect("task");
    }
    assert_eq!(wins, 1);
}
