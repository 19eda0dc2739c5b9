//! `arbiter serve`: the arena server, on the embedded SQLite store or on PostgreSQL.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use arbiter_arena::{Arena, ArenaConfig, SystemClock};
use arbiter_talk::{ProviderKind, Speaker, TalkConfig};

use crate::database::Database;
use clap::Args;
use serde::Deserialize;
use tokio::net::{TcpListener, TcpSocket};

/// Options of `arbiter serve`.
#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "ARBITER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: String,
    /// The database: an SQLite file, created on first start (a file name or `sqlite://FILE`),
    /// or a PostgreSQL database (`postgres://user:password@host:5432/name`), migrated on start.
    #[arg(long, env = "ARBITER_DATABASE", default_value = "arbiter.db")]
    database: Database,
    /// The NATS server(s) through which servers sharing one PostgreSQL database tell each
    /// other what changed (`nats://host:4222`, several separated by commas; a user and
    /// password, `nats://user:password@host:4222`, or a token where the NATS server asks for
    /// one). Without it the server is alone with its database.
    #[arg(long, env = "ARBITER_NATS")]
    nats: Option<String>,
    /// This server's name among servers sharing one PostgreSQL database, each its own:
    /// letters, digits, `-` and `_` (the machine's host name, dots made dashes, by default). A
    /// server runs the open matches whose lease it holds, and takes over those of a server
    /// that stops or dies.
    #[arg(long, env = "ARBITER_NODE_ID", value_parser = node_name)]
    node_id: Option<String>,
    /// The address this server accepts direct links from the other servers on, with `--nats`:
    /// by default the host it listens on (`--listen`), on a port the system picks. Requests
    /// forwarded to the server running their match, and the events relayed to a bot's stream
    /// on another server, take these links rather than going through NATS.
    #[arg(long, env = "ARBITER_LINK_LISTEN")]
    link_listen: Option<String>,
    /// The address the other servers reach this one's links at, where it differs from the
    /// one it accepts them on (a published container port, say). By default that one or,
    /// where it accepts them on every interface, the address this machine reaches the NATS
    /// server from.
    #[arg(long, env = "ARBITER_LINK_ADVERTISE")]
    link_advertise: Option<String>,
    /// Carries everything between servers through NATS, with no direct links.
    #[arg(long, env = "ARBITER_NO_LINKS")]
    no_links: bool,
    /// How long a server's lease on a match lasts unless renewed (every second): a server
    /// silent this long is taken for dead and its matches are taken over.
    #[arg(long, env = "ARBITER_LEASE_MS", default_value_t = ArenaConfig::default().lease_ms,
          value_parser = clap::value_parser!(i64).range(2_000..=300_000))]
    lease_ms: i64,
    /// Log format: `text` or `json`.
    #[arg(long, env = "ARBITER_LOG_FORMAT", default_value = "text")]
    log_format: String,
    /// Requests without a valid token that one client address may have in flight at once (0:
    /// no limit). Behind a reverse proxy every client has the proxy's address: limit there and
    /// set 0 here.
    #[arg(long, env = "ARBITER_ANONYMOUS_PER_ADDRESS", default_value_t = arbiter_server::ServeLimits::default().anonymous_per_address)]
    anonymous_per_address: usize,
    /// The upstream providers the Board Game Protocol trusts to speak for agents, by their
    /// `X-Provider-Id`, separated by commas: a request naming another is refused (403).
    /// Without it every provider is accepted; requests without the header always are.
    #[arg(long, env = "ARBITER_BGP_PROVIDERS", value_delimiter = ',')]
    bgp_providers: Option<Vec<String>>,
    /// The address clients reach the server at (`https://arena.example.org`), for the links
    /// it hands out (the Board Game Protocol's `invite_url` and `claim_url`); the address it
    /// listens on when not given.
    #[arg(long, env = "ARBITER_PUBLIC_URL")]
    public_url: Option<String>,
    /// The file holding the key from which bots' webhook signing secrets are derived, created
    /// with a fresh key (readable by its owner only) when missing. By default the database's
    /// file name with `.webhook-key` added, beside an SQLite database; servers sharing a
    /// PostgreSQL database must all be given the same file, and call no webhook bots without.
    #[arg(long, env = "ARBITER_WEBHOOK_KEY_FILE")]
    webhook_key_file: Option<PathBuf>,
    /// Lets webhook bots be called at plain http URLs, not only https.
    #[arg(long, env = "ARBITER_WEBHOOK_ALLOW_HTTP")]
    webhook_allow_http: bool,
    /// Address ranges webhook bots may be called at although they are loopback, private or
    /// link-local (`10.0.0.0/8,fd00::/8`), separated by commas.
    #[arg(long, env = "ARBITER_WEBHOOK_ALLOW", value_delimiter = ',')]
    webhook_allow: Vec<String>,
    /// Runs no bots submitted as WebAssembly modules (their uploads are refused).
    #[arg(long, env = "ARBITER_NO_WASM")]
    no_wasm: bool,
    /// How many threads run submitted modules (by default half the machine's cores).
    #[arg(long, env = "ARBITER_WASM_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    wasm_workers: Option<u16>,
    /// How many module instances (legs being played) may run at once.
    #[arg(long, env = "ARBITER_WASM_INSTANCES", default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    wasm_instances: u32,
    /// The most memory one module instance may use, in MiB.
    #[arg(long, env = "ARBITER_WASM_MEMORY_MB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=4096))]
    wasm_memory_mb: u64,
    /// A configuration file (TOML); its `[talk]` table sets bot talk (`provider`, `url`,
    /// `model`, `timeout_ms`, `enabled`, `api_key_env`). Flags override it.
    #[arg(long, env = "ARBITER_CONFIG")]
    config: Option<PathBuf>,
    #[command(flatten)]
    talk: TalkArgs,
}

/// Options of bot talk: who words what house bots say in games whose house players talk.
#[derive(Args, Debug, Default)]
pub(crate) struct TalkArgs {
    /// Who words the house bots' lines: `template` (the lines as the rules write them; the
    /// default, no model needed), `ollama` or `openai` (an OpenAI-compatible server, whose key
    /// is read from the environment variable `api_key_env` names, ARBITER_TALK_API_KEY by
    /// default).
    #[arg(long, env = "ARBITER_TALK_PROVIDER")]
    talk_provider: Option<String>,
    /// The model server's base address (default `http://127.0.0.1:11434`).
    #[arg(long, env = "ARBITER_TALK_URL")]
    talk_url: Option<String>,
    /// The model's name on that server (default `qwen3:8b`).
    #[arg(long, env = "ARBITER_TALK_MODEL")]
    talk_model: Option<String>,
    /// How long one request to the model may take, in milliseconds (default 8000).
    #[arg(long, env = "ARBITER_TALK_TIMEOUT_MS")]
    talk_timeout_ms: Option<u64>,
    /// Starts with bot talk switched off (the administrator may switch it on and off at run
    /// time with `PUT /api/v1/admin/talk`).
    #[arg(long, env = "ARBITER_TALK_OFF")]
    talk_off: bool,
}

/// What a configuration file may hold.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ConfigFile {
    /// Bot talk.
    talk: TalkConfig,
}

/// Bot talk's settings: the defaults, then the configuration file's `[talk]` table (`file`,
/// its text), then the flags.
fn talk_config(file: Option<&str>, args: &TalkArgs) -> anyhow::Result<TalkConfig> {
    let mut config = match file {
        Some(text) => toml::from_str::<ConfigFile>(text)?.talk,
        None => TalkConfig::default(),
    };
    if let Some(provider) = &args.talk_provider {
        config.provider = match provider.trim() {
            "template" => ProviderKind::Template,
            "ollama" => ProviderKind::Ollama,
            "openai" => ProviderKind::Openai,
            other => anyhow::bail!("--talk-provider {other:?} must be template, ollama or openai"),
        };
    }
    if let Some(url) = &args.talk_url {
        config.url = url.trim().to_owned();
    }
    if let Some(model) = &args.talk_model {
        config.model = model.trim().to_owned();
    }
    if let Some(timeout_ms) = args.talk_timeout_ms {
        config.timeout_ms = timeout_ms;
    }
    if args.talk_off {
        config.enabled = false;
    }
    if config.provider != ProviderKind::Template
        && !(config.url.starts_with("http://") || config.url.starts_with("https://"))
    {
        anyhow::bail!(
            "the talk URL {:?} must start with http:// or https://",
            config.url
        );
    }
    Ok(config)
}

pub(crate) fn init_logging(format: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Connections waiting to be accepted. When a server restarts, every bot reconnects at once;
/// with the usual 1,024, thousands of them would see their first attempt dropped and wait a
/// second or more to retry. The kernel caps it at `net.core.somaxconn`.
const LISTEN_BACKLOG: u32 = 8_192;

/// Binds the listening socket with a backlog sized for reconnection storms.
async fn listen(address: &str) -> anyhow::Result<TcpListener> {
    let address = tokio::net::lookup_host(address)
        .await?
        .next()
        .context("the address resolves to nothing")?;
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    Ok(socket.listen(LISTEN_BACKLOG)?)
}

/// Waits for Ctrl-C or SIGTERM.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}

/// The machine's host name as a server's name, its dots made dashes since a name is one
/// token of the bus's subjects; `local` where it cannot be read.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().replace('.', "-"))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "local".to_owned())
}

/// A server's name as given: one token of the bus's subjects.
fn node_name(name: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_');
    if name.is_empty() || name.len() > 64 || !name.chars().all(allowed) {
        return Err(format!(
            "{name:?}: a server's name is 1 to 64 letters, digits, '-' or '_' (no dots)"
        ));
    }
    Ok(name.to_owned())
}

/// The bus of a server sharing its store: NATS at `url`, with direct links to the other
/// servers unless `--no-links`.
async fn shared_bus(
    args: &ServeArgs,
    url: &str,
    node_id: &str,
) -> anyhow::Result<Arc<dyn arbiter_bus::Bus>> {
    let nats: Arc<dyn arbiter_bus::Bus> = Arc::new(
        arbiter_bus_nats::NatsBus::connect(url, node_id)
            .await
            .with_context(|| format!("connecting to NATS at {}", arbiter_bus_nats::shown(url)))?,
    );
    if args.no_links {
        return Ok(nats);
    }
    let at = match &args.link_listen {
        Some(at) => at.clone(),
        None => {
            let (host, _) = args.listen.rsplit_once(':').unwrap_or(("127.0.0.1", ""));
            format!("{host}:0")
        }
    };
    let listener = TcpListener::bind(&at)
        .await
        .with_context(|| format!("accepting links from other servers on {at}"))?;
    let bound = listener.local_addr()?;
    let advertised = match &args.link_advertise {
        Some(address) => tokio::net::lookup_host(address)
            .await
            .ok()
            .and_then(|mut found| found.next())
            .with_context(|| format!("--link-advertise {address:?} names no address"))?,
        None if bound.ip().is_unspecified() => {
            let ip = route_to(url).await.context(
                "finding the address other servers reach this one at: give --link-advertise",
            )?;
            SocketAddr::new(ip, bound.port())
        }
        None => bound,
    };
    let bus = arbiter_bus::LinkedBus::start(
        nats,
        arbiter_arena::NODE_SUBJECTS,
        node_id,
        listener,
        advertised,
    )
    .await?;
    tracing::info!(%bound, %advertised, "direct links to other servers");
    Ok(Arc::new(bus))
}

/// The address of this machine on the way to the first NATS server in `urls`: the one the
/// other servers, which reach that NATS server too, most likely reach this one at. Nothing
/// is sent to find it.
async fn route_to(urls: &str) -> anyhow::Result<std::net::IpAddr> {
    let url = urls.split(',').next().unwrap_or_default().trim();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let host = host.split('/').next().unwrap_or_default();
    let host = if host.contains(':') && !host.ends_with(']') {
        host.to_owned()
    } else {
        format!("{host}:4222")
    };
    let nats = tokio::net::lookup_host(&host)
        .await?
        .next()
        .with_context(|| format!("{host} names no address"))?;
    let probe = std::net::UdpSocket::bind(if nats.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    })?;
    probe.connect(nats)?;
    Ok(probe.local_addr()?.ip())
}

pub(crate) async fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_logging(&args.log_format);
    match crate::open_files::raise_limit() {
        Some(open_files) if open_files < 10_000 => tracing::warn!(
            open_files,
            "the open-file limit caps connected bots at about this many; raise the hard limit (ulimit -Hn, or LimitNOFILE in a systemd unit)"
        ),
        Some(open_files) => tracing::info!(open_files, "open-file limit"),
        None => {}
    }
    let store = args.database.open().await?;
    let admin = std::env::var("ARBITER_ADMIN_TOKEN").ok();
    let file = match &args.config {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("reading the configuration {}", path.display()))?,
        ),
        None => None,
    };
    let talk = talk_config(file.as_deref(), &args.talk).context("reading the talk settings")?;
    let speaker = Speaker::new(talk).context("setting up bot talk")?;
    // The provider and model only: the address may carry credentials and the key never shows.
    tracing::info!(talk = %speaker.describe(), "bot talk");
    let node_id = args.node_id.clone().unwrap_or_else(host_name);
    tracing::info!(node = %node_id, lease_ms = args.lease_ms, "node");
    let bus: Arc<dyn arbiter_bus::Bus> = match &args.nats {
        Some(url) => shared_bus(&args, url, &node_id).await?,
        None => Arc::new(arbiter_bus::LocalBus::new()),
    };
    let arena = Arena::start(
        ArenaConfig {
            talk: Arc::new(speaker),
            node_id,
            lease_ms: args.lease_ms,
            bus,
            ..ArenaConfig::default()
        },
        crate::games::games(),
        Arc::new(SystemClock),
        store,
        admin.as_deref(),
    )
    .await
    .context("starting the arena")?;
    let listener = listen(&args.listen)
        .await
        .with_context(|| format!("listening on {}", args.listen))?;
    let address = listener.local_addr()?;
    println!("Arbiter is listening on http://{address}");
    tracing::info!(%address, database = %args.database, admin_api = admin.is_some(), "serving");
    let limits = arbiter_server::ServeLimits {
        anonymous_per_address: args.anonymous_per_address,
        ..arbiter_server::ServeLimits::default()
    };
    let dialects = crate::games::dialects(arena.games()).context("choosing the dialects' games")?;
    let dialects = match args.public_url.as_deref().map(str::trim) {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            dialects.with_public_url(url)
        }
        Some(url) => anyhow::bail!("--public-url {url:?} must start with http:// or https://"),
        None => dialects,
    };
    let dialects = match &args.bgp_providers {
        Some(providers) => {
            let providers: Vec<String> = providers
                .iter()
                .map(|id| id.trim().to_owned())
                .filter(|id| !id.is_empty())
                .collect();
            dialects
                .with_bgp_providers(&providers)
                .context("reading --bgp-providers")?
        }
        None => dialects,
    };
    let dialects = match webhooks(&args)? {
        Some(webhooks) => dialects.with_webhooks(webhooks),
        None => dialects,
    };
    let dialects = if args.no_wasm {
        dialects
    } else {
        let defaults = arbiter_server::SandboxLimits::default();
        let limits = arbiter_server::SandboxLimits {
            workers: args.wasm_workers.map_or(defaults.workers, usize::from),
            instances: args.wasm_instances,
            memory_bytes: usize::try_from(args.wasm_memory_mb << 20).unwrap_or(usize::MAX),
            ..defaults
        };
        let sandboxes =
            arbiter_server::Sandboxes::new(limits).context("setting up the WebAssembly sandbox")?;
        dialects.with_sandboxes(sandboxes)
    };
    arbiter_server::serve_with(listener, arena, dialects, limits, shutdown_signal())
        .await
        .context("serving HTTP")?;
    Ok(())
}

/// How webhook bots are called, if they are: the key read (or made) and the operator's policy.
fn webhooks(args: &ServeArgs) -> anyhow::Result<Option<arbiter_server::Webhooks>> {
    let path = match (&args.webhook_key_file, &args.database) {
        (Some(path), _) => path.clone(),
        (None, Database::Sqlite(file)) => {
            let mut name = file.as_os_str().to_owned();
            name.push(".webhook-key");
            PathBuf::from(name)
        }
        (None, Database::Postgres(_)) => {
            tracing::info!("no --webhook-key-file: webhook bots are not called");
            return Ok(None);
        }
    };
    let key = webhook_key(&path)
        .with_context(|| format!("reading the webhook key {}", path.display()))?;
    let allowed = args
        .webhook_allow
        .iter()
        .map(|range| range.trim())
        .filter(|range| !range.is_empty())
        .map(|range| range.parse().map_err(|e: String| anyhow::anyhow!(e)))
        .collect::<anyhow::Result<Vec<_>>>()
        .context("reading --webhook-allow")?;
    let policy = arbiter_webhook::TargetPolicy {
        allow_http: args.webhook_allow_http,
        allowed,
    };
    Ok(Some(
        arbiter_server::Webhooks::new(&key, policy).context("building the webhook client")?,
    ))
}

/// The webhook key in `path`, made there first (64 hex digits from the system's randomness,
/// readable by the owner only) if the file is missing.
fn webhook_key(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let key = text.trim();
            anyhow::ensure!(key.len() >= 32, "the key is shorter than 32 characters");
            Ok(key.as_bytes().to_vec())
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let key = arbiter_fair::ServerSeed::generate()
                .map_err(|e| anyhow::anyhow!("no system randomness: {e}"))?
                .reveal()
                .to_owned();
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            std::io::Write::write_all(&mut options.open(path)?, format!("{key}\n").as_bytes())?;
            tracing::info!(path = %path.display(), "made a new webhook key");
            Ok(key.into_bytes())
        }
        Err(error) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_name_is_one_token_of_a_subject() {
        for (name, accepted) in [
            ("a", true),
            ("node-2_east", true),
            ("web1.example.org", false),
            ("", false),
            ("a b", false),
            ("*", false),
            (">", false),
        ] {
            assert_eq!(node_name(name).is_ok(), accepted, "{name:?}");
        }
        assert!(!host_name().contains('.'));
        assert!(node_name(&host_name()).is_ok(), "{}", host_name());
    }

    #[tokio::test]
    async fn the_route_to_nats_is_found_without_sending() {
        for url in [
            "nats://127.0.0.1:4222",
            "nats://user:secret@127.0.0.1",
            "127.0.0.1:4222, nats://10.0.0.9:4222",
        ] {
            let ip = route_to(url).await.expect("a route");
            assert!(ip.is_loopback(), "{url}: {ip}");
        }
    }

    #[test]
    fn flags_override_the_file_which_overrides_the_defaults() {
        let file = "[talk]\nprovider = \"ollama\"\nurl = \"http://gpu:11434\"\nmodel = \"small\"\ntimeout_ms = 3000\n";
        let cases: Vec<(&str, Option<&str>, TalkArgs, TalkConfig)> = vec![
            ("defaults", None, TalkArgs::default(), TalkConfig::default()),
            (
                "the file",
                Some(file),
                TalkArgs::default(),
                TalkConfig {
                    provider: ProviderKind::Ollama,
                    url: "http://gpu:11434".to_owned(),
                    model: "small".to_owned(),
                    timeout_ms: 3_000,
                    ..TalkConfig::default()
                },
            ),
            (
                "flags over the file",
                Some(file),
                TalkArgs {
                    talk_provider: Some("openai".to_owned()),
                    talk_model: Some("gpt-test".to_owned()),
                    talk_off: true,
                    ..TalkArgs::default()
                },
                TalkConfig {
                    enabled: false,
                    provider: ProviderKind::Openai,
                    url: "http://gpu:11434".to_owned(),
                    model: "gpt-test".to_owned(),
                    timeout_ms: 3_000,
                    ..TalkConfig::default()
                },
            ),
            (
                "a file switching talk off with another key variable",
                Some("[talk]\nenabled = false\napi_key_env = \"MY_KEY\"\n"),
                TalkArgs::default(),
                TalkConfig {
                    enabled: false,
                    api_key_env: "MY_KEY".to_owned(),
                    ..TalkConfig::default()
                },
            ),
        ];
        for (name, file, args, expected) in cases {
            let config = talk_config(file, &args);
            assert_eq!(config.ok(), Some(expected), "{name}");
        }
    }

    #[test]
    fn bad_settings_are_refused() {
        let cases: Vec<(&str, Option<&str>, TalkArgs)> = vec![
            (
                "an unknown provider",
                None,
                TalkArgs {
                    talk_provider: Some("gpt".to_owned()),
                    ..TalkArgs::default()
                },
            ),
            (
                "a misspelt key",
                Some("[talk]\nprovder = \"ollama\"\n"),
                TalkArgs::default(),
            ),
            ("an unknown table", Some("[talks]\n"), TalkArgs::default()),
            (
                "a model server without a scheme",
                None,
                TalkArgs {
                    talk_provider: Some("ollama".to_owned()),
                    talk_url: Some("gpu:11434".to_owned()),
                    ..TalkArgs::default()
                },
            ),
        ];
        for (name, file, args) in cases {
            assert!(talk_config(file, &args).is_err(), "{name}");
        }
    }

    #[test]
    fn a_missing_webhook_key_is_made_once_and_read_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("arbiter.db.webhook-key");
        let made = super::webhook_key(&path).expect("made");
        assert_eq!(made.len(), 64);
        assert_eq!(super::webhook_key(&path).expect("read"), made);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path)
                .expect("metadata")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(&path, "short").expect("written");
        assert!(super::webhook_key(&path).is_err());
    }
}
