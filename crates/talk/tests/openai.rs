//! The OpenAI-compatible provider against a fake server.
//!
//! The key is read from the variable the configuration names. Setting a variable in a test is
//! unsafe while other threads run, so the test names one every process already has (`PATH`)
//! and expects its value as the key.

mod common;

use arbiter_plugin::{Language, Persona, Remark, Voice};
use arbiter_talk::provider::{ProviderKind, Speaker, TalkConfig};
use common::{FakeServer, Script, keys};

/// A variable set in every process, standing for the key's.
const KEY_ENV: &str = "PATH";

#[tokio::test]
async fn openai_sends_the_key_from_the_environment_and_retries_a_repeat() {
    let key = std::env::var(KEY_ENV).expect("PATH is set");
    let own = vec!["Between Jun and Ray, Jun bothers me more.".to_owned()];
    let good = "Jun seems more suspicious to me than Ray.";
    let server = FakeServer::start(vec![
        Script::Reply("Between Jun and Ray, Jun bothers me more.".to_owned()),
        Script::Reply(good.to_owned()),
    ])
    .await;
    let speaker = Speaker::new(TalkConfig {
        provider: ProviderKind::Openai,
        url: format!("{}/", server.url),
        model: "gpt-test".to_owned(),
        api_key_env: KEY_ENV.to_owned(),
        ..TalkConfig::default()
    })
    .expect("a speaker");
    assert!(
        !format!("{speaker:?}").contains(&key),
        "the key shows in Debug"
    );

    let line = Remark {
        kind: "compare".to_owned(),
        text: "Between Jun and Ray, I suspect Jun more.".to_owned(),
        numbers: Vec::new(),
        recent: Vec::new(),
        own,
    };
    let voice = Voice {
        name: "Bot 1",
        persona: Persona::Calm,
        language: Language::English,
    };
    let examples = arbiter_fate_tokens::talk::examples(Language::English);
    assert_eq!(
        speaker.say(&line, voice, examples).await,
        Ok(good.to_owned())
    );

    let received = server.received();
    assert_eq!(received.len(), 2);
    for request in &received {
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Bearer {key}").as_str())
        );
        assert_eq!(
            keys(&request.body),
            ["max_tokens", "messages", "model", "temperature"]
        );
        assert_eq!(request.body["model"], "gpt-test");
        assert_eq!(request.body["temperature"], 0.9);
        assert_eq!(request.body["max_tokens"], 200);
        let messages = request.body["messages"].as_array().expect("messages");
        assert_eq!(messages[0]["role"], "system");
        let last = messages[messages.len() - 1]["content"]
            .as_str()
            .expect("text");
        assert!(last.contains(&line.text));
    }

    // Without the variable, requests carry no key at all.
    let keyless = FakeServer::start(vec![Script::Reply(good.to_owned())]).await;
    let speaker = Speaker::new(TalkConfig {
        provider: ProviderKind::Openai,
        url: keyless.url.clone(),
        api_key_env: "ARBITER_TALK_TEST_UNSET_KEY".to_owned(),
        ..TalkConfig::default()
    })
    .expect("a speaker");
    assert_eq!(
        speaker.say(&line, voice, examples).await,
        Ok(good.to_owned())
    );
    assert_eq!(keyless.received()[0].authorization, None);
}
