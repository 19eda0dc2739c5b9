//! Who is who: the bots and people the arena knows (in the [`Directory`]), their tokens and
//! the administrator's, registration and anonymous mints, profile changes, environment
//! reports, presence, and each bot's stream lines (the [`Feeds`]).

use std::net::IpAddr;
use std::sync::Arc;

use arbiter_store::{BotId, BotKind, BotRecord, IdKind, Write};
use serde_json::Value;

use crate::context::Context;
use crate::directory::{self, ANONYMOUS_PREFIX, Bot, BotProfile, Directory, Environment};
use crate::directory::{HOUSE_PREFIX, Presence};
use crate::feed::Feeds;
use crate::humans::is_person;
use crate::matches::Registry;
use crate::quota::AddressQuota;
use crate::token::Spelling;
use crate::{ArenaError, HouseLevel, names, token};

/// The identities service.
pub(crate) struct Identities {
    context: Arc<Context>,
    /// Told when a bot's presence changes, and asked whether a bot has open matches.
    registry: Arc<Registry>,
    pub(crate) directory: Arc<Directory>,
    pub(crate) feeds: Arc<Feeds>,
    /// Recent mints (anonymous bots and guests), by address.
    mints: AddressQuota,
    /// Recent registrations through doors open to anyone, by address.
    open_registrations: AddressQuota,
    /// Recent match openings through doors that limit them, by address.
    openings: AddressQuota,
    admin_hash: Option<String>,
    /// Up to when this server has recorded its sightings of bots in the store.
    sightings_recorded_ms: std::sync::atomic::AtomicI64,
}

/// The lock a server holds while it changes a bot's record (see [`Context::exclusively`]).
fn bot_lock(id: BotId) -> String {
    format!("bot:{id}")
}

impl Identities {
    /// The identities of `bots`, as stored.
    pub(crate) fn new(
        context: Arc<Context>,
        registry: Arc<Registry>,
        bots: Vec<BotRecord>,
        admin_token: Option<&str>,
    ) -> Identities {
        let directory = Directory::new(
            bots,
            context.config.presence_ms,
            context.games.default_mode().map_or("", |mode| mode.variant),
        );
        let config = &context.config;
        let mints = AddressQuota::new(
            config.anonymous_mints_per_window,
            config.anonymous_mint_window_ms,
        );
        let open_registrations = AddressQuota::new(
            config.open_registrations_per_window,
            config.open_registration_window_ms,
        );
        let openings = AddressQuota::new(config.openings_per_window, config.opening_window_ms);
        Identities {
            context,
            registry,
            directory: Arc::new(directory),
            feeds: Arc::new(Feeds::default()),
            mints,
            open_registrations,
            openings,
            admin_hash: admin_token.filter(|t| !t.is_empty()).map(token::hash),
            sightings_recorded_ms: std::sync::atomic::AtomicI64::new(i64::MIN),
        }
    }

    fn now(&self) -> i64 {
        self.context.now()
    }

    /// A new bot id, never handed out before by any server sharing the store.
    pub(crate) async fn new_bot_id(&self) -> Result<BotId, ArenaError> {
        self.context.new_id(IdKind::Bot).await
    }

    /// Creates the house bots that are missing.
    pub(crate) async fn ensure_house_bots(&self) -> Result<(), ArenaError> {
        for level in HouseLevel::ALL {
            let name = format!("{HOUSE_PREFIX}{}", level.name());
            if self.directory.by_name(&name).is_some() {
                continue;
            }
            let profile = BotProfile {
                house_level: Some(level.name().to_owned()),
                ..BotProfile::default()
            };
            let record = BotRecord {
                id: self.new_bot_id().await?,
                name,
                kind: BotKind::House,
                token_hash: None,
                token_prefix: None,
                created_ms: self.now(),
                last_seen_ms: self.now(),
                disabled: false,
                deleted: false,
                profile: serde_json::to_value(&profile).unwrap_or_default(),
            };
            self.context
                .writer
                .write(vec![Write::PutBot(record.clone())])
                .await?;
            let id = record.id;
            self.directory.put(record);
            crate::cluster::announce_bot(&self.context, id).await;
        }
        Ok(())
    }

    /// Reads a bot again from the store, after another server sharing it changed the bot; a
    /// bot whose token changed, or that was disabled or deleted, loses its streams here.
    pub(crate) async fn reload(&self, id: BotId) -> Result<(), ArenaError> {
        let Some(record) = self.context.store.bot(id).await? else {
            return Ok(());
        };
        let before = self.directory.record(id);
        let cut_off = before.is_some_and(|before| {
            before.token_hash != record.token_hash
                || (record.disabled && !before.disabled)
                || (record.deleted && !before.deleted)
        });
        self.directory.put(record);
        if cut_off {
            self.feeds.close(id);
        }
        Ok(())
    }

    /// Deletes the anonymous bots idle since before `before_ms`. Among servers sharing the
    /// store, a bot idle here may have been seen by another: each is read again from the
    /// store, where every server records its sightings, before it goes.
    pub(crate) async fn expire_anonymous(&self, before_ms: i64) {
        for id in self.directory.idle_anonymous(before_ms) {
            let expired = self
                .context
                .exclusively(&bot_lock(id), async || {
                    let mut record = self.current_record(id).await?;
                    if record.deleted || record.last_seen_ms.max(record.created_ms) >= before_ms {
                        return Ok(false);
                    }
                    record.deleted = true;
                    self.context
                        .writer
                        .write(vec![Write::PutBot(record.clone())])
                        .await?;
                    self.directory.put(record);
                    Ok(true)
                })
                .await;
            match expired {
                Ok(true) => crate::cluster::announce_bot(&self.context, id).await,
                Ok(false) => {}
                Err(error) => tracing::warn!(bot = id, %error, "cannot expire an idle bot"),
            }
        }
    }

    /// Records in the store when this server last heard from each bot it heard from since
    /// it last did (at `now_ms`), so that the others, and this one after a restart, know.
    pub(crate) async fn record_sightings(&self, now_ms: i64) {
        use std::sync::atomic::Ordering;
        let since_ms = self.sightings_recorded_ms.swap(now_ms, Ordering::Relaxed);
        let writes: Vec<Write> = self
            .directory
            .heard_since(since_ms)
            .into_iter()
            .map(|(bot, at_ms)| Write::BotSeen { bot, at_ms })
            .collect();
        if !writes.is_empty() && self.context.writer.write(writes).await.is_err() {
            tracing::warn!("cannot record when bots were last seen; the next sweep will");
        }
    }

    /// A bot's record as it stands: as this server knows it, or, among servers sharing the
    /// store, as stored (another server may have changed it a moment ago), with the later of
    /// the two sightings.
    async fn current_record(&self, id: BotId) -> Result<BotRecord, ArenaError> {
        let local = self
            .directory
            .record(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?;
        if !self.context.config.bus.is_shared() {
            return Ok(local);
        }
        let mut stored = self
            .context
            .store
            .bot(id)
            .await?
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?;
        stored.last_seen_ms = stored.last_seen_ms.max(local.last_seen_ms);
        Ok(stored)
    }

    /// The bot a bearer token belongs to; also marks it as seen.
    pub(crate) fn authenticate(&self, secret: &str) -> Result<Bot, ArenaError> {
        let (bot, came_online) = self.directory.authenticate(secret, self.now())?;
        // A person's cookie is not a bot token.
        if is_person(&bot) {
            return Err(ArenaError::InvalidToken);
        }
        if came_online {
            self.registry.presence_changed(bot.id);
        }
        Ok(bot)
    }

    /// Whether `secret` is a bot's token or the administrator's, without marking the bot as
    /// seen.
    pub(crate) fn knows_token(&self, secret: &str) -> bool {
        self.is_admin(secret) || self.directory.knows(secret)
    }

    /// Whether `secret` is the administrator token.
    pub(crate) fn is_admin(&self, secret: &str) -> bool {
        self.admin_hash
            .as_deref()
            .is_some_and(|hash| token::hashes_match(hash, &token::hash(secret)))
    }

    /// Creates a bot or person with a new token spelled as its kind's are; returns it and
    /// the token.
    pub(crate) async fn create(
        &self,
        id: BotId,
        name: String,
        kind: BotKind,
        profile: BotProfile,
    ) -> Result<(Bot, String), ArenaError> {
        self.create_spelled(id, name, kind, profile, Spelling::of(kind))
            .await
    }

    /// Creates a bot or person with a new token spelled `spelling`; returns it and the token.
    async fn create_spelled(
        &self,
        id: BotId,
        name: String,
        kind: BotKind,
        profile: BotProfile,
        spelling: Spelling,
    ) -> Result<(Bot, String), ArenaError> {
        let new = token::generate(spelling.prefix())
            .map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        self.directory.reserve_name(&name)?;
        let now = self.now();
        let record = BotRecord {
            id,
            name: name.clone(),
            kind,
            token_hash: Some(new.hash),
            token_prefix: Some(new.display),
            created_ms: now,
            // Never seen until it makes a request or opens a stream.
            last_seen_ms: 0,
            disabled: false,
            deleted: false,
            profile: serde_json::to_value(&profile).unwrap_or_default(),
        };
        let written = self
            .context
            .writer
            .write(vec![Write::PutBot(record.clone())])
            .await;
        self.directory.release_name(&name);
        written?;
        let id = record.id;
        self.directory.put(record);
        crate::cluster::announce_bot(&self.context, id).await;
        let bot = self
            .directory
            .get(id)
            .ok_or(ArenaError::BotNotFound(name))?;
        Ok((bot, new.secret))
    }

    /// Registers a bot; returns it and its token, which is never shown again. The name
    /// follows [`names::check_bot_name`] and must not be too like a taken one; the profile is
    /// [checked](BotProfile::checked).
    pub(crate) async fn register_bot(
        &self,
        name: &str,
        profile: BotProfile,
    ) -> Result<(Bot, String), ArenaError> {
        let name = names::check_bot_name(name)?;
        let profile = profile.checked(&self.context.known_keys())?;
        let id = self.new_bot_id().await?;
        self.create(id, name, BotKind::Registered, profile).await
    }

    /// Registers a bot for a client at `ip` through a door open to anyone, with its token
    /// spelled `spelling`; limited per address. The checks are [`Identities::register_bot`]'s,
    /// and a registration they refuse is not counted, so that a client can correct a name.
    pub(crate) async fn register_open(
        &self,
        ip: IpAddr,
        name: &str,
        profile: BotProfile,
        spelling: Spelling,
    ) -> Result<(Bot, String), ArenaError> {
        let name = names::check_bot_name(name)?;
        let profile = profile.checked(&self.context.known_keys())?;
        self.directory.check_name_free(&name)?;
        self.open_registrations.count(ip, self.now())?;
        let id = self.new_bot_id().await?;
        self.create_spelled(id, name, BotKind::Registered, profile, spelling)
            .await
    }

    /// Counts one more identity made for a client at `ip` (an anonymous bot or a guest), or
    /// refuses it beyond the limit per address and window.
    pub(crate) fn count_mint(&self, ip: IpAddr) -> Result<(), ArenaError> {
        self.mints.count(ip, self.now())
    }

    /// Counts one more match opened by a client at `ip`, or refuses it beyond the limit per
    /// address and window ([`crate::ArenaConfig::openings_per_window`]).
    pub(crate) fn count_opening(&self, ip: IpAddr) -> Result<(), ArenaError> {
        self.openings.count(ip, self.now())
    }

    /// Mints an anonymous bot for a client at `ip`, optionally labelled, playing the variants
    /// asked for (`None`: every variant); limited per address. A label follows the naming rule
    /// ([`names::check_name`]); it cannot pose as anyone, because the name it makes,
    /// `anon:<label>#<id>`, says what the bot is.
    pub(crate) async fn mint_anonymous(
        &self,
        ip: IpAddr,
        label: Option<&str>,
        supported_variants: Option<Vec<String>>,
    ) -> Result<(Bot, String), ArenaError> {
        let label = label
            .map(|label| names::check_name(label, "a label"))
            .transpose()?;
        let known = self.context.known_variants();
        let profile = BotProfile {
            // Anonymous bots are for trying things out: they play every variant unless told.
            supported_variants: supported_variants
                .unwrap_or_else(|| known.iter().map(|v| (*v).to_owned()).collect()),
            ..BotProfile::default()
        }
        .checked(&self.context.known_keys())?;
        self.count_mint(ip)?;
        // The bot's id makes the name unique; the label only helps people recognise it.
        let id = self.new_bot_id().await?;
        let name = match label {
            None => format!("{ANONYMOUS_PREFIX}{id}"),
            Some(label) => format!("{ANONYMOUS_PREFIX}{label}#{id}"),
        };
        self.create(id, name, BotKind::Anonymous, profile).await
    }

    /// Issues a new token for a bot, spelled `spelling` (its kind's usual one when `None`);
    /// the old one stops working at once.
    pub(crate) async fn rotate_token(
        &self,
        id: BotId,
        spelling: Option<Spelling>,
    ) -> Result<(Bot, String), ArenaError> {
        let kind = self
            .directory
            .record(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?
            .kind;
        let spelling = spelling.unwrap_or(Spelling::of(kind));
        let new = token::generate(spelling.prefix())
            .map_err(|e| ArenaError::Unavailable(e.to_string()))?;
        let (hash, display) = (new.hash, new.display);
        let bot = self
            .update_bot(id, |record| {
                record.token_hash = Some(hash);
                record.token_prefix = Some(display);
            })
            .await?;
        self.end_streams(id);
        Ok((bot, new.secret))
    }

    /// Disables or re-enables a bot.
    pub(crate) async fn set_disabled(&self, id: BotId, disabled: bool) -> Result<Bot, ArenaError> {
        let bot = self
            .update_bot(id, |record| record.disabled = disabled)
            .await?;
        self.end_streams(id);
        Ok(bot)
    }

    /// Deletes a bot; its matches stay in the history.
    pub(crate) async fn delete_bot(&self, id: BotId) -> Result<Bot, ArenaError> {
        let bot = self
            .update_bot(id, |record| {
                record.deleted = true;
                record.token_hash = None;
            })
            .await?;
        self.end_streams(id);
        Ok(bot)
    }

    /// Replaces the variants a registered bot offers. Refused for a list
    /// [`directory::check_variants`] refuses, and while the bot has a pending or running
    /// match, whose terms were agreed on the old list.
    pub(crate) async fn set_supported_variants(
        &self,
        id: BotId,
        variants: &[String],
    ) -> Result<Bot, ArenaError> {
        let list = directory::check_variants(variants, &self.context.known_keys())?;
        let bot = self
            .directory
            .get(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))?;
        if self.registry.is_busy(id) {
            return Err(ArenaError::HasOpenMatches(bot.name));
        }
        self.update_profile(id, |profile| profile.supported_variants = list)
            .await
    }

    /// Switches a bot's auto-matching on or off.
    pub(crate) async fn set_auto_match(&self, id: BotId, enabled: bool) -> Result<Bot, ArenaError> {
        self.update_profile(id, |profile| profile.auto_match_off = !enabled)
            .await
    }

    /// Sets how many matches a bot may play at once (`None`: the server's default), from 1
    /// to [`directory::CONCURRENCY_MAX`].
    pub(crate) async fn set_concurrency(
        &self,
        id: BotId,
        limit: Option<u32>,
    ) -> Result<Bot, ArenaError> {
        directory::check_concurrency(limit)?;
        self.update_profile(id, |profile| profile.concurrency = limit)
            .await
    }

    /// Sets or removes where the server calls a bot for its decisions.
    pub(crate) async fn set_webhook(
        &self,
        id: BotId,
        webhook: Option<directory::Webhook>,
    ) -> Result<Bot, ArenaError> {
        // A bot answers over HTTP or runs here, never both.
        let with = if webhook.is_some() {
            vec![Write::DeleteModule(id)]
        } else {
            Vec::new()
        };
        self.update_profile_with(id, with, |profile| {
            if webhook.is_some() {
                profile.sandboxed = None;
            }
            profile.webhook = webhook;
        })
        .await
    }

    /// Makes `id` a bot the server runs from `wasm`.
    pub(crate) async fn set_module(
        &self,
        id: BotId,
        wasm: Vec<u8>,
        settings: directory::Sandboxed,
    ) -> Result<Bot, ArenaError> {
        let module = arbiter_store::ModuleRecord {
            bot: id,
            wasm,
            sha256: settings.sha256.clone(),
            uploaded_ms: settings.uploaded_ms,
        };
        let with = vec![Write::PutModule(Arc::new(module))];
        self.update_profile_with(id, with, |profile| {
            profile.webhook = None;
            profile.sandboxed = Some(settings);
        })
        .await
    }

    /// Removes a bot's module.
    pub(crate) async fn remove_module(&self, id: BotId) -> Result<Bot, ArenaError> {
        self.update_profile_with(id, vec![Write::DeleteModule(id)], |profile| {
            profile.sandboxed = None;
        })
        .await
    }

    /// A bot's module, if it has one.
    pub(crate) async fn module(&self, id: BotId) -> Result<Option<Vec<u8>>, ArenaError> {
        Ok(self.context.store.module(id).await?.map(|m| m.wasm))
    }

    /// Records a module's validation, if it is still the bot's module.
    pub(crate) async fn set_module_status(
        &self,
        id: BotId,
        sha256: &str,
        status: directory::ModuleStatus,
    ) -> Result<Bot, ArenaError> {
        self.update_profile(id, |profile| {
            if let Some(sandboxed) = profile
                .sandboxed
                .as_mut()
                .filter(|sandboxed| sandboxed.sha256 == sha256)
            {
                sandboxed.status = status;
            }
        })
        .await
    }

    /// Replaces a bot's picture with `png`, which the caller has decoded and re-encoded.
    pub(crate) async fn set_photo(&self, id: BotId, png: Vec<u8>) -> Result<Bot, ArenaError> {
        let now = self.now();
        let photo = arbiter_store::PhotoRecord {
            bot: id,
            png,
            updated_ms: now,
        };
        let with = vec![Write::PutPhoto(Arc::new(photo))];
        self.update_bot_with(id, with, |record| {
            let mut profile: BotProfile =
                serde_json::from_value(record.profile.clone()).unwrap_or_default();
            profile.photo_ms = Some(now);
            record.profile = serde_json::to_value(&profile).unwrap_or(Value::Null);
        })
        .await
    }

    /// A bot's picture as PNG, if it has one.
    pub(crate) async fn photo(&self, id: BotId) -> Result<Option<Vec<u8>>, ArenaError> {
        Ok(self.context.store.photo(id).await?.map(|p| p.png))
    }

    async fn update_profile(
        &self,
        id: BotId,
        change: impl FnOnce(&mut BotProfile),
    ) -> Result<Bot, ArenaError> {
        self.update_profile_with(id, Vec::new(), change).await
    }

    /// Changes a bot's profile, storing it in one batch with the writes `with`.
    async fn update_profile_with(
        &self,
        id: BotId,
        with: Vec<Write>,
        change: impl FnOnce(&mut BotProfile),
    ) -> Result<Bot, ArenaError> {
        self.update_bot_with(id, with, |record| {
            let mut profile: BotProfile =
                serde_json::from_value(record.profile.clone()).unwrap_or_default();
            change(&mut profile);
            record.profile = serde_json::to_value(&profile).unwrap_or(Value::Null);
        })
        .await
    }

    /// Ends a bot's open streams after its credentials changed: a stream authenticated with
    /// an old token, or by a bot now disabled or deleted, must not outlive them; its client
    /// has to connect again with valid credentials.
    fn end_streams(&self, id: BotId) {
        self.feeds.close(id);
    }

    async fn update_bot(
        &self,
        id: BotId,
        change: impl FnOnce(&mut BotRecord),
    ) -> Result<Bot, ArenaError> {
        self.update_bot_with(id, Vec::new(), change).await
    }

    /// Changes a bot's record, storing it in one batch with the writes `with`.
    pub(crate) async fn update_bot_with(
        &self,
        id: BotId,
        mut with: Vec<Write>,
        change: impl FnOnce(&mut BotRecord),
    ) -> Result<Bot, ArenaError> {
        // Changed from the record as stored, under the bot's lock: a change another server
        // made a moment ago is never overwritten with this server's older copy.
        self.context
            .exclusively(&bot_lock(id), async || {
                let mut record = self.current_record(id).await?;
                if record.kind == BotKind::House {
                    return Err(ArenaError::InvalidRequest(
                        "house bots cannot be changed".to_owned(),
                    ));
                }
                change(&mut record);
                with.push(Write::PutBot(record.clone()));
                self.context.writer.write(with).await?;
                self.directory.put(record);
                Ok(())
            })
            .await?;
        crate::cluster::announce_bot(&self.context, id).await;
        self.directory
            .get(id)
            .ok_or_else(|| ArenaError::BotNotFound(id.to_string()))
    }

    /// Records a bot's environment report, replacing its previous one entirely, and returns
    /// the bot with it. The report is checked first (see [`Environment::checked`]); a refused
    /// one changes nothing. Reports are kept in memory only.
    pub(crate) fn report_environment(
        &self,
        bot: &Bot,
        report: Environment,
    ) -> Result<Bot, ArenaError> {
        let environment = report.checked(&self.context.known_keys())?;
        self.directory
            .set_environment(bot.id, environment)
            .ok_or_else(|| ArenaError::BotNotFound(bot.name.clone()))
    }

    /// A bot by name, or by id written in decimal.
    pub(crate) fn find_bot(&self, name_or_id: &str) -> Result<Bot, ArenaError> {
        let by_id = name_or_id
            .parse::<BotId>()
            .ok()
            .and_then(|id| self.directory.get(id));
        by_id
            .or_else(|| self.directory.by_name(name_or_id))
            .filter(|b| !b.deleted && !is_person(b))
            .ok_or_else(|| ArenaError::BotNotFound(name_or_id.to_owned()))
    }

    /// Every bot, with whether it is connected now (people playing from the pages are not
    /// bots and are left out).
    pub(crate) fn list_bots(&self) -> Vec<(Bot, bool)> {
        let mut bots = self.directory.list(self.now());
        bots.retain(|(bot, _)| !is_person(bot));
        bots
    }

    /// Whether a bot is connected now.
    pub(crate) fn is_online(&self, id: BotId) -> bool {
        matches!(
            self.directory.presence(id, self.now()),
            Presence::Online { .. }
        )
    }
}
