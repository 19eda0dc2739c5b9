//! The directory's tests: names, profiles, environment reports, authentication and presence.

use serde_json::json;

use super::*;

fn record(id: BotId, name: &str, secret: &str) -> BotRecord {
    BotRecord {
        id,
        name: name.to_owned(),
        kind: BotKind::Registered,
        token_hash: Some(token::hash(secret)),
        token_prefix: Some(secret[..4].to_owned()),
        created_ms: 0,
        last_seen_ms: 0,
        disabled: false,
        deleted: false,
        profile: json!({}),
    }
}

#[test]
fn names_clash_by_case_and_lookalike_letters_and_are_never_given_back() {
    let mut deleted = record(7, "Deleted-Bot", "arbr_deleted");
    deleted.deleted = true;
    let directory = Directory::new(
        vec![record(5, "Alpha", "arbr_alpha"), deleted],
        10_000,
        "std",
    );
    let table: [(&str, Result<(), &str>); 5] = [
        ("alpha", Err("the name \"alpha\" is already taken")),
        (
            "Аlpha",
            Err("the name \"Аlpha\" is too like \"Alpha\", which is taken"),
        ),
        (
            "deleted-bot",
            Err("the name \"deleted-bot\" is already taken"),
        ),
        ("Alphas", Ok(())),
        ("alphas", Err("the name \"alphas\" is already taken")),
    ];
    for (name, expected) in table {
        let got = directory.reserve_name(name).map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{name:?}");
    }
    directory.release_name("Alphas");
    assert_eq!(directory.reserve_name("ALPHAS"), Ok(()));
}

#[test]
fn profiles_are_checked_at_every_door() {
    let profile = |variants: &[&str], concurrency| BotProfile {
        supported_variants: variants.iter().map(|v| (*v).to_owned()).collect(),
        concurrency,
        ..BotProfile::default()
    };
    let table: [(BotProfile, Result<&[&str], &str>); 7] = [
        (profile(&["std"], None), Ok(&["std"])),
        (
            profile(&["grand", "std", "grand"], Some(16)),
            Ok(&["grand", "std"]),
        ),
        (
            profile(&[], None),
            Err("a bot must play at least one variant"),
        ),
        (
            profile(&["bogus", "<b>"], None),
            Err("unknown variant \"bogus\""),
        ),
        (
            profile(&["std", "Std"], None),
            Err("unknown variant \"Std\""),
        ),
        (
            profile(&["std"], Some(0)),
            Err("a bot plays 1 to 16 matches at once"),
        ),
        (
            profile(&["std"], Some(4_000_000_000)),
            Err("a bot plays 1 to 16"),
        ),
    ];
    for (asked, expected) in table {
        let got = asked.clone().checked(&KNOWN);
        match expected {
            Ok(variants) => {
                let got = got.expect("accepted");
                assert_eq!(got.supported_variants, variants, "{asked:?}");
                assert_eq!(got.concurrency, asked.concurrency);
            }
            Err(text) => {
                let error = got.expect_err("refused");
                assert_eq!(error.code(), "invalid_request");
                assert!(error.to_string().starts_with(text), "{error}");
            }
        }
    }
}

const KNOWN: [&str; 5] = ["std", "anti", "grand", "octagon", "reversi"];

#[test]
fn environment_reports_are_tidied_or_refused() {
    let report = |engine: &str, variants: Option<&[&str]>| Environment {
        engine: Some(engine.to_owned()),
        cpu: None,
        os: Some("   ".to_owned()),
        practice: true,
        variants: variants.map(|v| v.iter().map(|s| (*s).to_owned()).collect()),
    };
    let tidy = report(" Edax 4.6 ", Some(&["grand", "std", "grand"]))
        .checked(&KNOWN)
        .expect("valid");
    assert_eq!(
        tidy,
        Environment {
            engine: Some("Edax 4.6".to_owned()),
            cpu: None,
            os: None,
            practice: true,
            variants: Some(vec!["grand".to_owned(), "std".to_owned()]),
        },
        "trimmed, blank texts absent, repeats dropped"
    );
    // Exactly the limit passes, in characters rather than bytes.
    let limit = "é".repeat(ENVIRONMENT_TEXT_MAX);
    assert!(report(&limit, None).checked(&KNOWN).is_ok());
    let padded = format!("  {limit}  ");
    assert!(report(&padded, None).checked(&KNOWN).is_ok());

    let too_long = "x".repeat(ENVIRONMENT_TEXT_MAX + 1);
    let cases: [(Environment, &str); 5] = [
        (report(&too_long, None), "engine"),
        (
            Environment {
                cpu: Some(too_long.clone()),
                ..Environment::default()
            },
            "cpu",
        ),
        (
            Environment {
                os: Some(too_long.clone()),
                ..Environment::default()
            },
            "os",
        ),
        (report("Edax", Some(&["std", "chess"])), "\"chess\""),
        (report("Edax", Some(&[])), "variants"),
    ];
    for (environment, names) in cases {
        match environment.checked(&KNOWN) {
            Err(ArenaError::InvalidEnvironment(message)) => {
                assert!(message.contains(names), "{message} names {names}");
            }
            other => panic!("{names}: expected a refusal, got {other:?}"),
        }
    }
}

#[test]
fn reported_variants_narrow_what_a_bot_plays_and_survive_a_new_record() {
    let mut profile = record(1, "Alpha", "arbb_a");
    profile.profile = json!({"supported_variants": ["std", "grand", "anti"]});
    let directory = Directory::new(vec![profile.clone()], 10_000, "std");
    let bot = directory.get(1).expect("bot");
    assert!(bot.supports("grand") && !bot.supports("octagon"));
    assert!(!bot.practising());

    let environment = Environment {
        practice: true,
        variants: Some(vec!["std".to_owned(), "octagon".to_owned()]),
        ..Environment::default()
    };
    let bot = directory
        .set_environment(1, environment.clone())
        .expect("bot");
    // The intersection of the profile and the report.
    let plays: Vec<&str> = KNOWN.into_iter().filter(|v| bot.supports(v)).collect();
    assert_eq!(plays, ["std"]);
    assert!(bot.offers("grand") && !bot.engine_plays("grand"));
    assert!(bot.practising());

    // A changed record (a rotated token, say) keeps the connection's report.
    profile.token_prefix = Some("arbb".to_owned());
    directory.put(profile);
    assert_eq!(
        directory.get(1).expect("bot").environment,
        Some(environment)
    );
    assert_eq!(directory.set_environment(99, Environment::default()), None);
}

#[test]
fn authentication_and_reservation() {
    let directory = Directory::new(vec![record(4, "Alpha", "arbb_secret")], 10_000, "std");
    let (bot, came_online) = directory
        .authenticate("arbb_secret", 50_000)
        .expect("valid");
    assert_eq!((bot.id, came_online), (4, true));
    assert!(
        !directory
            .authenticate("arbb_secret", 55_000)
            .expect("valid")
            .1
    );
    assert_eq!(
        directory.authenticate("arbb_other", 0).err(),
        Some(ArenaError::InvalidToken)
    );
    assert!(directory.reserve_name("ALPHA").is_err());
    directory.reserve_name("Beta").expect("free");
    assert!(directory.reserve_name("beta").is_err());
    directory.release_name("Beta");
    directory.reserve_name("beta").expect("free again");

    let mut disabled = record(4, "Alpha", "arbb_secret");
    disabled.disabled = true;
    directory.put(disabled);
    assert_eq!(
        directory.authenticate("arbb_secret", 0).err(),
        Some(ArenaError::InvalidToken)
    );
}

#[test]
fn presence_from_streams_and_requests() {
    // Seen just before this process started: that does not make it present now.
    let mut stored = record(1, "Alpha", "arbb_a");
    stored.last_seen_ms = 4_000;
    let directory = Directory::new(vec![stored], 10_000, "std");
    assert_eq!(
        directory.presence(1, 5_000),
        Presence::Offline { since_ms: i64::MIN }
    );
    assert_eq!(
        directory.list(5_000),
        vec![(directory.get(1).expect("bot"), false)]
    );
    assert!(directory.authenticate("arbb_a", 6_000).expect("valid").1);
    assert_eq!(
        directory.presence(1, 6_000),
        Presence::Online {
            until_ms: Some(16_000)
        }
    );
    assert_eq!(
        directory.presence(1, 16_001),
        Presence::Offline { since_ms: 16_000 }
    );
    assert!(directory.open_stream(1, 1, 20_000).expect("first stream"));
    assert_eq!(
        directory.open_stream(1, 1, 20_000),
        Err(ArenaError::TooManyStreams(1))
    );
    assert_eq!(
        directory.presence(1, 99_000),
        Presence::Online { until_ms: None }
    );
    directory.close_stream(1, 100_000);
    assert_eq!(
        directory.presence(1, 105_000),
        Presence::Online {
            until_ms: Some(110_000)
        }
    );
    assert_eq!(
        directory.list(200_000),
        vec![(directory.get(1).expect("bot"), false)]
    );
}

#[test]
fn profile_texts_are_trimmed_or_refused() {
    let long = |n: usize| "é".repeat(n);
    let some = |text: &str| Some(text.to_owned());
    type Expected = Result<(Option<String>, Option<String>), &'static str>;
    let table: [(Option<String>, Option<String>, Expected); 7] = [
        (None, None, Ok((None, None))),
        (
            some(" Alice "),
            some(" plays fast\nand loose "),
            Ok((some("Alice"), some("plays fast\nand loose"))),
        ),
        (some("   "), Some(String::new()), Ok((None, None))),
        (
            Some(long(64)),
            Some(long(280)),
            Ok((Some(long(64)), Some(long(280)))),
        ),
        (
            Some(long(65)),
            None,
            Err("display_name is longer than 64 characters"),
        ),
        (
            None,
            Some(long(281)),
            Err("bio is longer than 280 characters"),
        ),
        (
            Some("a\u{7}b".to_owned()),
            None,
            Err("display_name may not contain control characters"),
        ),
    ];
    for (display_name, bio, expected) in table {
        let asked = BotProfile {
            supported_variants: vec!["std".to_owned()],
            display_name,
            bio,
            ..BotProfile::default()
        };
        let got = asked.clone().checked(&KNOWN);
        match expected {
            Ok((display_name, bio)) => {
                let got = got.expect("accepted");
                assert_eq!(got.display_name, display_name, "{asked:?}");
                assert_eq!(got.bio, bio, "{asked:?}");
            }
            Err(text) => {
                let error = got.expect_err("refused");
                assert_eq!(error.code(), "invalid_request");
                assert_eq!(error.to_string(), text);
            }
        }
    }
}
