//! What the connector tells the server about the machine and engine behind the bot.

use serde_json::{Value, json};

use crate::engine::gomocup::is_swap2;
use crate::{EngineSpec, GOMOKU, OTHELLO, Options};

/// The longest name reported for the CPU or the engine.
const MAX_NAME: usize = 120;

/// The report sent to `POST /api/v1/bots/me/environment`.
pub(crate) fn report(options: &Options) -> Value {
    let engine = options
        .engine_name
        .clone()
        .or_else(|| options.engine.default_name().map(str::to_owned));
    let cpu = options.cpu_name.clone().or_else(detect_cpu_name);
    json!({
        "engine": engine.map(|name| clip(&name)),
        "cpu": cpu.map(|name| clip(&name)),
        "os": std::env::consts::OS,
        "practice": options.engine == EngineSpec::Practice,
        "variants": reported_variants(options),
    })
}

/// What the engine plays, as the server's keys: the Othello variants `--games` lists, by
/// their bare names as before games other than Othello existed, and every other game listed
/// as `game` or `game:variant`; for a Gomocup brain that plays no swap2 opening, Gomoku's
/// other variants one by one; for a UCI engine, chess as listed. With nothing to report the engine's own Othello list is
/// reported, since the server takes no empty list; the connector then declines Othello
/// challenges itself.
fn reported_variants(options: &Options) -> Vec<String> {
    let mut keys: Vec<String> = options
        .games
        .othello_variants(&options.engine)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if let EngineSpec::Gomocup { .. } = options.engine {
        for choice in options.games.choices() {
            match &choice.variant {
                Some(variant) if options.games.plays(&options.engine, GOMOKU, variant) => {
                    keys.push(choice.to_string());
                }
                Some(_) => {}
                None if options.games.swap2() => keys.push(choice.to_string()),
                None => keys.extend(
                    arbiter_gomoku::FAMILY
                        .setup
                        .variants()
                        .iter()
                        .filter(|spec| !is_swap2(spec.name))
                        .map(|spec| format!("{GOMOKU}:{}", spec.name)),
                ),
            }
        }
    }
    if options.engine.plays_generic() || matches!(options.engine, EngineSpec::Uci { .. }) {
        keys.extend(
            options
                .games
                .choices()
                .iter()
                .filter(|choice| choice.game != OTHELLO)
                .map(ToString::to_string),
        );
    }
    if keys.is_empty() {
        keys = options
            .engine
            .variants()
            .iter()
            .map(|v| (*v).to_owned())
            .collect();
    }
    keys
}

/// At most [`MAX_NAME`] characters, so that a long name is shortened rather than refused.
fn clip(name: &str) -> String {
    name.trim().chars().take(MAX_NAME).collect()
}

/// The CPU's marketing name, as the operating system tells it.
pub fn detect_cpu_name() -> Option<String> {
    let name = if cfg!(target_os = "linux") {
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                // x86 says `model name`; many ARM kernels say `Model` or `Hardware` instead.
                ["model name", "Model", "Hardware"]
                    .iter()
                    .find_map(|key| field(&text, key))
            })
    } else if cfg!(target_os = "macos") {
        std::process::Command::new("sysctl")
            .args(["-n", "machdep.cpu.brand_string"])
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
    } else {
        std::env::var("PROCESSOR_IDENTIFIER").ok()
    }?;
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    (!name.is_empty()).then_some(name)
}

/// The value of the first `key : value` line of `/proc/cpuinfo`.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        (name.trim() == key).then(|| value.trim().to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_fields_are_found_by_name() {
        let text = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
        assert_eq!(
            field(text, "model name").as_deref(),
            Some("Intel(R) Xeon(R) CPU @ 2.20GHz")
        );
        assert_eq!(field(text, "Hardware"), None);
    }

    #[test]
    fn the_report_names_the_engine_and_marks_practice() {
        let practice = Options::new("http://x", "t", EngineSpec::Practice);
        let sent = report(&practice);
        assert_eq!(sent["practice"], true);
        assert_eq!(sent["engine"], "practice");
        assert_eq!(sent["variants"].as_array().map(Vec::len), Some(5));

        let mut edax = Options::new("http://x", "t", EngineSpec::Egaroucid { path: "e".into() });
        edax.engine_name = Some(format!("  {}  ", "x".repeat(200)));
        edax.cpu_name = Some("Test CPU".into());
        let sent = report(&edax);
        assert_eq!(sent["practice"], false);
        assert_eq!(sent["engine"].as_str().map(str::len), Some(MAX_NAME));
        assert_eq!(sent["cpu"], "Test CPU");
        assert_eq!(sent["variants"], json!(["std"]));
    }

    #[test]
    fn a_gomocup_brain_reports_gomoku_without_swap2_unless_it_plays_it() {
        let gomocup = EngineSpec::Gomocup {
            command: "brain".to_owned(),
            max_memory_mb: 350,
        };
        // Every variant of the family but those opening with swap2, whatever the family has.
        let without_swap2: Vec<String> = arbiter_gomoku::FAMILY
            .setup
            .variants()
            .iter()
            .map(|spec| format!("gomoku:{}", spec.name))
            .filter(|key| !key.contains("swap2"))
            .collect();
        for key in ["gomoku:freestyle", "gomoku:standard", "gomoku:renju"] {
            assert!(without_swap2.iter().any(|k| k == key), "{without_swap2:?}");
        }
        // (--games, swap2 answered, reported)
        let table: [(Option<&str>, bool, Value); 5] = [
            (None, true, json!(["gomoku"])),
            (None, false, json!(without_swap2)),
            (
                Some("gomoku:renju,gomoku:swap2"),
                true,
                json!(["gomoku:renju", "gomoku:swap2"]),
            ),
            (
                Some("gomoku:renju,gomoku:swap2"),
                false,
                json!(["gomoku:renju"]),
            ),
            (
                Some("gomoku:renju-swap2"),
                true,
                json!(["gomoku:renju-swap2"]),
            ),
        ];
        for (games, swap2, expected) in table {
            let mut options = Options::new("http://x", "t", gomocup.clone());
            if let Some(games) = games {
                options.games = games.parse().expect("a valid list");
            }
            options.games = options.games.with_swap2(swap2);
            assert_eq!(
                report(&options)["variants"],
                expected,
                "--games {games:?}, swap2 {swap2}"
            );
        }
    }

    #[test]
    fn the_reported_variants_are_those_games_lists() {
        let json = EngineSpec::Json {
            command: "engine".to_owned(),
        };
        let table: [(&str, Value); 4] = [
            (
                "othello",
                json!(["std", "anti", "grand", "octagon", "reversi"]),
            ),
            (
                "othello:anti,othello:std,goofspiel",
                json!(["std", "anti", "goofspiel"]),
            ),
            ("goofspiel", json!(["goofspiel"])),
            ("goofspiel:short", json!(["goofspiel:short"])),
        ];
        for (games, expected) in table {
            let mut options = Options::new("http://x", "t", json.clone());
            options.games = games.parse().expect("a valid list");
            assert_eq!(report(&options)["variants"], expected, "--games {games}");
        }
    }
}
