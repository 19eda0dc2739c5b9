//! The template and Ollama providers end to end, against a fake Ollama server.

mod common;

use std::time::{Duration, Instant};

use arbiter_plugin::{
    ChatEntry, Examples, Language, OWN_LIMIT, Persona, RECENT_LIMIT, Remark, Silence, Voice,
};
use arbiter_talk::prompt;
use arbiter_talk::provider::{ProviderKind, Speaker, TalkConfig};
use common::{FakeServer, Script, keys};
use serde_json::json;

fn english_line() -> Remark {
    Remark {
        kind: "accuse".to_owned(),
        text: "Mina looks like the Great Misfortune. Evidence: 2 bad tokens revealed.".to_owned(),
        numbers: vec![2],
        recent: Vec::new(),
        own: Vec::new(),
    }
}

fn korean_line() -> Remark {
    Remark {
        kind: "accuse".to_owned(),
        text: "민수님이 대흉 같습니다. 근거: 공개한 운세에 흉 2개.".to_owned(),
        numbers: vec![2],
        recent: Vec::new(),
        own: Vec::new(),
    }
}

/// `remark` with the recent chat (`"Speaker: text"` lines) and the bot's own lines.
fn with(mut remark: Remark, recent: &[String], own: &[String]) -> Remark {
    remark.recent = recent
        .iter()
        .map(|line| {
            let (speaker, text) = line.split_once(": ").unwrap_or(("Someone", line));
            ChatEntry {
                speaker: speaker.to_owned(),
                text: text.to_owned(),
            }
        })
        .collect();
    remark.own = own.to_vec();
    remark
}

fn voice(language: Language) -> Voice<'static> {
    Voice {
        name: "Bot 3",
        persona: Persona::Blunt,
        language,
    }
}

fn examples(language: Language) -> Examples {
    arbiter_fate_tokens::talk::examples(language)
}

fn ollama(url: &str, timeout_ms: u64) -> Speaker {
    Speaker::new(TalkConfig {
        provider: ProviderKind::Ollama,
        url: url.to_owned(),
        model: "qwen3:8b".to_owned(),
        timeout_ms,
        ..TalkConfig::default()
    })
    .expect("a speaker")
}

fn reply(text: &str) -> Script {
    Script::Reply(text.to_owned())
}

#[tokio::test]
async fn template_says_the_line_as_it_is() {
    let config = TalkConfig::default();
    assert_eq!(config.provider, ProviderKind::Template);
    assert!(config.enabled);
    let speaker = Speaker::new(config).expect("a speaker");
    let line = english_line();
    let said = speaker
        .say(
            &with(line.clone(), &[], &[]),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(said, Ok(line.text));
}

#[tokio::test]
async fn template_is_silent_when_talk_is_disabled() {
    let speaker = Speaker::new(TalkConfig {
        enabled: false,
        ..TalkConfig::default()
    })
    .expect("a speaker");
    let said = speaker
        .say(
            &with(english_line(), &[], &[]),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(said, Err(Silence::Disabled));
}

#[test]
fn config_reads_with_defaults() {
    let config: TalkConfig =
        serde_json::from_value(json!({ "provider": "ollama", "url": "http://gpu:11434" }))
            .expect("a configuration");
    assert_eq!(config.provider, ProviderKind::Ollama);
    assert_eq!(config.url, "http://gpu:11434");
    assert!(config.enabled);
    assert_eq!(config.timeout(), Duration::from_secs(8));
    let openai: TalkConfig =
        serde_json::from_value(json!({ "provider": "openai" })).expect("a configuration");
    assert_eq!(openai.provider, ProviderKind::Openai);
}

#[tokio::test]
async fn ollama_sends_its_wire_format_and_retries_a_reply_in_the_wrong_script() {
    let good = "민수님이 대흉 같네요, 흉이 2개나 나왔으니까요.";
    let server = FakeServer::start(vec![
        reply("민수님이 大凶 같네요, 흉이 2개예요."),
        reply(good),
    ])
    .await;
    let speaker = ollama(&server.url, 5_000);
    let said = speaker
        .say(
            &with(korean_line(), &[], &[]),
            voice(Language::Korean),
            examples(Language::Korean),
        )
        .await;
    assert_eq!(said, Ok(good.to_owned()));

    let received = server.received();
    assert_eq!(received.len(), 2);
    for request in &received {
        let body = &request.body;
        assert_eq!(
            keys(body),
            ["messages", "model", "options", "stream", "think"]
        );
        assert_eq!(body["model"], "qwen3:8b");
        assert_eq!(body["stream"], false);
        assert_eq!(body["think"], false);
        assert_eq!(
            body["options"],
            json!({ "temperature": 0.9, "num_predict": 200 })
        );
        let expected = prompt::messages(
            &korean_line(),
            voice(Language::Korean),
            examples(Language::Korean),
        );
        assert_eq!(
            body["messages"],
            serde_json::to_value(&expected).expect("messages as JSON")
        );
        assert_eq!(request.authorization, None);
    }
}

#[tokio::test]
async fn ollama_reply_is_cleaned_before_it_is_said() {
    let server = FakeServer::start(vec![reply(
        "<think>\nThey want a reword.\n</think>\nBot 3: \"Mina worries me, 2 bad tokens already.\"\nAnything else?",
    )])
    .await;
    let speaker = ollama(&server.url, 5_000);
    let said = speaker
        .say(
            &with(english_line(), &[], &[]),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(
        said,
        Ok("Mina worries me, 2 bad tokens already.".to_owned())
    );
}

#[tokio::test]
async fn three_rejected_replies_leave_the_bot_silent() {
    let own = vec!["Mina worries me, 2 bad tokens already.".to_owned()];
    let server = FakeServer::start(vec![
        reply("Mina worries me, 3 bad tokens already."),
        reply("Mina worries me, 2 bad tokens already."),
        reply("미나님이 수상해요, 2개요."),
        reply("Mina is suspicious, 2 bad tokens out."),
    ])
    .await;
    let speaker = ollama(&server.url, 5_000);
    let said = speaker
        .say(
            &with(english_line(), &[], &own),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(said, Err(Silence::AiFailed));
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_into_silence() {
    let server = FakeServer::start(vec![Script::Hang, Script::Hang, Script::Hang]).await;
    let speaker = ollama(&server.url, 200);
    let started = Instant::now();
    let said = speaker
        .say(
            &with(english_line(), &[], &[]),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(said, Err(Silence::AiFailed));
    // A timed-out server is not asked again, so the table waits for one timeout only.
    assert_eq!(server.received().len(), 1);
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn an_unreachable_server_means_silence() {
    // Bind a port, then free it, so that nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free local port");
    let url = format!(
        "http://{}",
        listener.local_addr().expect("the bound address")
    );
    drop(listener);
    let speaker = ollama(&url, 2_000);
    let said = speaker
        .say(
            &with(english_line(), &[], &[]),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(said, Err(Silence::AiFailed));
}

#[tokio::test]
async fn the_kill_switch_sends_nothing() {
    let server = FakeServer::start(vec![reply("Mina worries me, 2 bad tokens already.")]).await;
    let speaker = Speaker::new(TalkConfig {
        enabled: false,
        provider: ProviderKind::Ollama,
        url: server.url.clone(),
        ..TalkConfig::default()
    })
    .expect("a speaker");
    let said = speaker
        .say(
            &with(english_line(), &[], &[]),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert_eq!(said, Err(Silence::Disabled));
    assert!(server.received().is_empty());
}

#[tokio::test]
async fn the_prompt_carries_only_the_allowed_parts() {
    let recent: Vec<String> = (1..=20)
        .map(|i| format!("Player {i}: chat line {i}"))
        .collect();
    let own: Vec<String> = (1..=10).map(|i| format!("my line {i}")).collect();
    let server = FakeServer::start(vec![reply("Mina worries me, 2 bad tokens already.")]).await;
    let speaker = ollama(&server.url, 5_000);
    let said = speaker
        .say(
            &with(english_line(), &recent, &own),
            voice(Language::English),
            examples(Language::English),
        )
        .await;
    assert!(said.is_ok(), "{said:?}");

    let received = server.received();
    let messages = received[0].body["messages"]
        .as_array()
        .expect("a list of messages")
        .clone();
    let examples = examples(Language::English).pairs;
    assert_eq!(messages.len(), 1 + 2 * examples.len() + 1);
    for message in &messages {
        assert_eq!(keys(message), ["content", "role"]);
    }

    // The system part: the name, the polite register, the persona and the five rules.
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[0]["content"],
        prompt::system_text("Bot 3", Persona::Blunt, Language::English)
    );
    let system = messages[0]["content"].as_str().expect("text");
    for part in [
        "Bot 3",
        "politely",
        "blunt and direct",
        "stance",
        "invent",
        "AI",
        "repeat",
        "one line",
    ] {
        assert!(system.contains(part), "the system text lacks {part:?}");
    }

    // The example pairs, exactly.
    for (i, example) in examples.iter().enumerate() {
        assert_eq!(messages[1 + 2 * i]["role"], "user");
        assert!(
            messages[1 + 2 * i]["content"]
                .as_str()
                .expect("text")
                .contains(example.line)
        );
        assert_eq!(messages[2 + 2 * i]["role"], "assistant");
        assert_eq!(messages[2 + 2 * i]["content"], example.answer);
    }

    // The request: the last 12 chat lines, the last 8 own lines and the line, nothing else.
    let request = messages[messages.len() - 1]["content"]
        .as_str()
        .expect("text");
    assert_eq!(messages[messages.len() - 1]["role"], "user");
    let sent_recent = &recent[recent.len() - RECENT_LIMIT..];
    let sent_own = &own[own.len() - OWN_LIMIT..];
    assert_eq!(
        request,
        prompt::request_text(
            &with(english_line(), sent_recent, sent_own),
            Persona::Blunt,
            Language::English
        )
    );
    assert!(request.contains(&english_line().text));
    let listed: Vec<&str> = request
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .collect();
    let allowed: Vec<&str> = sent_recent
        .iter()
        .chain(sent_own)
        .map(String::as_str)
        .collect();
    assert_eq!(listed, allowed);
    assert!(!request.contains("chat line 8\n"));
    assert!(!request.contains("my line 2\n"));
}
