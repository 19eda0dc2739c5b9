//! People's accounts, for the web pages: signing up and in with a password kept only as an
//! Argon2id hash, sessions kept only as the SHA-256 of their cookie, a limit on failed
//! sign-ins per name and per address, and the bots each account owns.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};

use arbiter_store::{AccountId, AccountRecord, IdKind, SessionRecord, Write};
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::TryRng;

use crate::context::{Context, lock};
use crate::directory::Bot;
use crate::humans::{PERSON_PREFIX, is_person};
use crate::identities::Identities;
use crate::matches::Registry;
use crate::names::{check_name, name_key};
use crate::{ArenaError, BotProfile, token};

/// The prefix of a session cookie's value.
const SESSION_PREFIX: &str = "arbs_";
/// How long a session lasts.
pub const SESSION_MS: i64 = 30 * 24 * 3_600_000;
/// The window in which failed sign-ins are counted.
const FAILURE_WINDOW_MS: i64 = 15 * 60_000;
/// Failed sign-ins allowed per account name in the window.
const FAILURES_PER_NAME: usize = 5;
/// Failed sign-ins allowed per client address in the window.
const FAILURES_PER_ADDRESS: usize = 20;
/// Beyond this many names or addresses with failures, those outside the window are dropped,
/// so that guessing many names cannot grow the tables without end.
const FAILURE_KEYS: usize = 10_000;
/// The shortest password accepted, in characters.
pub const PASSWORD_MIN: usize = 8;
/// The longest password accepted, in bytes (hashing cost is linear in it).
const PASSWORD_MAX_BYTES: usize = 1_024;

/// A person's account, as the pages see it (never the password's hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// Identifier.
    pub id: AccountId,
    /// The name the person signs in with.
    pub name: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

impl From<&AccountRecord> for Account {
    fn from(record: &AccountRecord) -> Account {
        Account {
            id: record.id,
            name: record.name.clone(),
            created_ms: record.created_ms,
        }
    }
}

/// The accounts service: every account and live session, in memory.
pub(crate) struct Accounts {
    context: Arc<Context>,
    /// For the bots and the person an account owns.
    identities: Arc<Identities>,
    /// For whether the person has a game open, and its closed games in memory.
    registry: Arc<Registry>,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    by_id: HashMap<AccountId, AccountRecord>,
    by_name: HashMap<String, AccountId>,
    /// Every account's name by its [`name_key`], so that no account takes a name too like
    /// another's.
    keys: HashMap<String, String>,
    sessions: HashMap<String, SessionRecord>,
    /// The keys of names being created, so that two sign-ups cannot both take one.
    reserved: Vec<String>,
    /// Recent failed sign-ins, by lower-cased name and by address.
    failures_by_name: HashMap<String, VecDeque<i64>>,
    failures_by_address: HashMap<IpAddr, VecDeque<i64>>,
}

impl Accounts {
    /// The service over `accounts` and `sessions` as stored.
    pub(crate) fn new(
        context: Arc<Context>,
        identities: Arc<Identities>,
        registry: Arc<Registry>,
        accounts: Vec<AccountRecord>,
        sessions: Vec<SessionRecord>,
    ) -> Accounts {
        let mut inner = Inner::default();
        for account in accounts {
            inner.add(account);
        }
        for session in sessions {
            inner.sessions.insert(session.token_hash.clone(), session);
        }
        Accounts {
            context,
            identities,
            registry,
            inner: Mutex::new(inner),
        }
    }

    fn now(&self) -> i64 {
        self.context.now()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        lock(&self.inner)
    }
}

/// Beyond this many sessions in memory, ended ones are dropped when a new one is kept.
const SESSIONS_KEPT: usize = 10_000;

impl Inner {
    fn add(&mut self, account: AccountRecord) {
        self.by_name.insert(account.name.to_lowercase(), account.id);
        self.keys
            .entry(name_key(&account.name))
            .or_insert_with(|| account.name.clone());
        self.by_id.insert(account.id, account);
    }

    fn keep_session(&mut self, session: SessionRecord, now: i64) {
        self.sessions.insert(session.token_hash.clone(), session);
        if self.sessions.len() > SESSIONS_KEPT {
            self.sessions.retain(|_, s| s.expires_ms > now);
        }
    }
}

fn validate_password(password: &str) -> Result<(), ArenaError> {
    if password.chars().count() < PASSWORD_MIN {
        return Err(ArenaError::InvalidRequest(format!(
            "a password has at least {PASSWORD_MIN} characters"
        )));
    }
    if password.len() > PASSWORD_MAX_BYTES {
        return Err(ArenaError::InvalidRequest(format!(
            "a password has at most {PASSWORD_MAX_BYTES} bytes"
        )));
    }
    Ok(())
}

fn unavailable(error: impl std::fmt::Display) -> ArenaError {
    ArenaError::Unavailable(error.to_string())
}

/// The password's Argon2id hash (default parameters: 19 MiB, 2 passes) in PHC form, with a
/// fresh random salt.
fn hash_password(password: &str) -> Result<String, ArenaError> {
    let mut salt = [0u8; 16];
    rand::rngs::SysRng
        .try_fill_bytes(&mut salt)
        .map_err(unavailable)?;
    let salt = SaltString::encode_b64(&salt).map_err(unavailable)?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(unavailable)
}

/// Whether `password` matches the PHC `hash`.
fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash no password matches, verified against when the name is unknown so that a wrong
/// name takes as long as a wrong password and names cannot be discovered by timing.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| hash_password("not a password anyone has").unwrap_or_default())
}

/// Runs CPU-heavy password work off the async runtime.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ArenaError> {
    tokio::task::spawn_blocking(work).await.map_err(unavailable)
}

/// Drops entries older than the window and tells whether fewer than `limit` remain; if not,
/// how many seconds until one leaves the window.
fn under_limit(recent: &mut VecDeque<i64>, limit: usize, now: i64) -> Result<(), u64> {
    while recent
        .front()
        .is_some_and(|&at| at <= now - FAILURE_WINDOW_MS)
    {
        recent.pop_front();
    }
    if recent.len() < limit {
        return Ok(());
    }
    let oldest = recent.front().copied().unwrap_or(now);
    let wait_ms = oldest + FAILURE_WINDOW_MS - now;
    Err(u64::try_from((wait_ms + 999) / 1_000).unwrap_or(1).max(1))
}

impl Accounts {
    /// Creates an account and signs it in; returns the account and the session cookie's
    /// value, which exists only in this reply.
    pub(crate) async fn sign_up(
        &self,
        name: &str,
        password: &str,
    ) -> Result<(Account, String), ArenaError> {
        let name = check_name(name, "a name")?;
        validate_password(password)?;
        let key = name_key(&name);
        {
            let mut inner = self.lock();
            if let Some(taken) = inner.keys.get(&key) {
                return Err(if taken.to_lowercase() == name.to_lowercase() {
                    ArenaError::NameTaken(name)
                } else {
                    ArenaError::NameTooLike {
                        name,
                        taken: taken.clone(),
                    }
                });
            }
            if inner.reserved.contains(&key) {
                return Err(ArenaError::NameTaken(name));
            }
            inner.reserved.push(key.clone());
        }
        let result = self.create_account(name, password.to_owned()).await;
        self.lock().reserved.retain(|k| *k != key);
        result
    }

    async fn create_account(
        &self,
        name: String,
        password: String,
    ) -> Result<(Account, String), ArenaError> {
        let password_hash = blocking(move || hash_password(&password)).await??;
        let now = self.now();
        let id = self.context.new_id(IdKind::Account).await?;
        let record = AccountRecord {
            id,
            name,
            password_hash,
            created_ms: now,
        };
        let (session, secret) = self.new_session(id)?;
        self.context
            .writer
            .write(vec![
                Write::PutAccount(record.clone()),
                Write::PutSession(session.clone()),
            ])
            .await?;
        let account = Account::from(&record);
        {
            let mut inner = self.lock();
            inner.add(record);
            inner.keep_session(session, now);
        }
        crate::cluster::announce_account(&self.context, account.id).await;
        Ok((account, secret))
    }

    /// Reads an account and its live sessions again from the store, after another server
    /// sharing it changed them; a deleted account is forgotten with its sessions.
    pub(crate) async fn reload(&self, id: AccountId) -> Result<(), ArenaError> {
        let record = self.context.store.account(id).await?;
        let sessions = self.context.store.sessions_of(id, self.now()).await?;
        let mut inner = self.lock();
        inner.sessions.retain(|_, s| s.account != id);
        if let Some(old) = inner.by_id.remove(&id) {
            inner.by_name.remove(&old.name.to_lowercase());
            if record
                .as_ref()
                .is_none_or(|new| name_key(&new.name) != name_key(&old.name))
            {
                inner.keys.remove(&name_key(&old.name));
            }
        }
        if let Some(record) = record {
            inner.add(record);
            for session in sessions {
                inner.sessions.insert(session.token_hash.clone(), session);
            }
        }
        Ok(())
    }

    fn new_session(&self, account: AccountId) -> Result<(SessionRecord, String), ArenaError> {
        let new = token::generate(SESSION_PREFIX).map_err(unavailable)?;
        let now = self.now();
        let session = SessionRecord {
            token_hash: new.hash,
            account,
            created_ms: now,
            expires_ms: now + SESSION_MS,
        };
        Ok((session, new.secret))
    }

    /// Signs in with a name and password from `client`; returns the account and a new
    /// session cookie's value. Failures are counted per name and per address, and beyond
    /// the limit sign-ins are refused for a while, right password or not.
    pub(crate) async fn sign_in(
        &self,
        name: &str,
        password: &str,
        client: IpAddr,
    ) -> Result<(Account, String), ArenaError> {
        let record = self.verify(name, password, client).await?;
        let now = self.now();
        let (session, secret) = self.new_session(record.id)?;
        self.context
            .writer
            .write(vec![Write::PutSession(session.clone())])
            .await?;
        self.lock().keep_session(session, now);
        crate::cluster::announce_account(&self.context, record.id).await;
        Ok((Account::from(&record), secret))
    }

    /// The account named `name` if `password` is its password. Failures are counted per name
    /// and per address, and beyond the limit every attempt is refused for a while, right
    /// password or not.
    async fn verify(
        &self,
        name: &str,
        password: &str,
        client: IpAddr,
    ) -> Result<AccountRecord, ArenaError> {
        let key = name.trim().to_lowercase();
        let now = self.now();
        let stored = {
            let mut inner = self.lock();
            let by_name = inner.failures_by_name.entry(key.clone()).or_default();
            let name_ok = under_limit(by_name, FAILURES_PER_NAME, now);
            let by_address = inner.failures_by_address.entry(client).or_default();
            let address_ok = under_limit(by_address, FAILURES_PER_ADDRESS, now);
            if let Err(retry_after_s) = name_ok.and(address_ok) {
                return Err(ArenaError::RateLimited { retry_after_s });
            }
            inner
                .by_name
                .get(&key)
                .and_then(|id| inner.by_id.get(id))
                .cloned()
        };
        let hash = stored
            .as_ref()
            .map_or_else(|| decoy_hash().to_owned(), |r| r.password_hash.clone());
        let password = password.to_owned();
        let matches = blocking(move || verify_password(&password, &hash)).await?;
        let Some(record) = stored.filter(|_| matches) else {
            let mut inner = self.lock();
            inner
                .failures_by_name
                .entry(key)
                .or_default()
                .push_back(now);
            inner
                .failures_by_address
                .entry(client)
                .or_default()
                .push_back(now);
            let recent = |times: &mut VecDeque<i64>| {
                times.back().is_some_and(|&t| t > now - FAILURE_WINDOW_MS)
            };
            if inner.failures_by_name.len() > FAILURE_KEYS {
                inner.failures_by_name.retain(|_, times| recent(times));
            }
            if inner.failures_by_address.len() > FAILURE_KEYS {
                inner.failures_by_address.retain(|_, times| recent(times));
            }
            return Err(ArenaError::WrongPassword);
        };
        Ok(record)
    }

    /// The account a session cookie's value belongs to, while the session lasts.
    pub(crate) fn session(&self, secret: &str) -> Option<Account> {
        let hash = token::hash(secret);
        let now = self.now();
        let inner = self.lock();
        let session = inner.sessions.get(&hash).filter(|s| s.expires_ms > now)?;
        inner.by_id.get(&session.account).map(Account::from)
    }

    /// Ends a session; the cookie stops working at once.
    pub(crate) async fn sign_out(&self, secret: &str) -> Result<(), ArenaError> {
        let hash = token::hash(secret);
        self.context
            .writer
            .write(vec![Write::DeleteSession(hash.clone())])
            .await?;
        let ended = self.lock().sessions.remove(&hash);
        if let Some(ended) = ended {
            crate::cluster::announce_account(&self.context, ended.account).await;
        }
        Ok(())
    }

    /// Changes an account's password once its current one is given again (counted like a
    /// sign-in), and ends every other session of the account; the session `kept` (the
    /// cookie's value of the browser that asked) stays signed in.
    pub(crate) async fn change_password(
        &self,
        account: &Account,
        current: &str,
        new: &str,
        kept: &str,
        client: IpAddr,
    ) -> Result<(), ArenaError> {
        validate_password(new)?;
        let mut record = self.verify(&account.name, current, client).await?;
        let new = new.to_owned();
        record.password_hash = blocking(move || hash_password(&new)).await??;
        let kept = token::hash(kept);
        self.context
            .writer
            .write(vec![
                Write::PutAccount(record.clone()),
                Write::DeleteSessionsOf {
                    account: record.id,
                    except: Some(kept.clone()),
                },
            ])
            .await?;
        let id = record.id;
        {
            let mut inner = self.lock();
            inner
                .sessions
                .retain(|hash, s| s.account != record.id || *hash == kept);
            inner.by_id.insert(record.id, record);
        }
        crate::cluster::announce_account(&self.context, id).await;
        Ok(())
    }

    /// Ends every session of an account, the asking browser's too, once its password is
    /// given again (counted like a sign-in).
    pub(crate) async fn sign_out_everywhere(
        &self,
        account: &Account,
        password: &str,
        client: IpAddr,
    ) -> Result<(), ArenaError> {
        let record = self.verify(&account.name, password, client).await?;
        self.context
            .writer
            .write(vec![Write::DeleteSessionsOf {
                account: record.id,
                except: None,
            }])
            .await?;
        self.lock().sessions.retain(|_, s| s.account != record.id);
        crate::cluster::announce_account(&self.context, record.id).await;
        Ok(())
    }

    /// Deletes an account once its password is given again (counted like a sign-in). Its
    /// bots are deleted with it, as their owner's Delete does (they stop playing and their
    /// tokens stop working; their matches stay in the history); the games the person played
    /// stay in the history, shown under a neutral name, `@deleted-{id}` (their stored events
    /// are never rewritten, so an export keeps the old name); every session ends, and the
    /// name may be taken again. Refused while the person has a pending or running game.
    pub(crate) async fn delete_account(
        &self,
        account: &Account,
        password: &str,
        client: IpAddr,
    ) -> Result<(), ArenaError> {
        let record = self.verify(&account.name, password, client).await?;
        let (people, bots): (Vec<Bot>, Vec<Bot>) = self
            .identities
            .directory
            .list(self.now())
            .into_iter()
            .map(|(bot, _)| bot)
            .filter(|bot| bot.profile.owner == Some(record.id) && !bot.deleted)
            .partition(is_person);
        let person = people.into_iter().next();
        // A game being played shows the person's name until it ends; it must end first.
        if let Some(person) = &person
            && self.registry.is_busy(person.id)
        {
            return Err(ArenaError::HasOpenMatches(person.name.clone()));
        }
        for bot in bots {
            self.identities.delete_bot(bot.id).await?;
        }
        let gone = Write::DeleteAccount(record.id);
        match person {
            // The person's new name and the account's deletion are one write, so that the
            // account's name is never shown once it is free again.
            Some(person) => {
                self.identities
                    .update_bot_with(person.id, vec![gone], |bot| {
                        bot.name = format!("{PERSON_PREFIX}deleted-{}", bot.id);
                        bot.deleted = true;
                        bot.token_hash = None;
                    })
                    .await?;
                // Closed games still in memory show the old name; the store has the new one.
                self.registry.retire_closed_of(person.id);
            }
            None => self.context.writer.write(vec![gone]).await?,
        }
        {
            let mut inner = self.lock();
            inner.sessions.retain(|_, s| s.account != record.id);
            inner.by_name.remove(&record.name.to_lowercase());
            // The name is free for a new account: the deleted one's games show it no more.
            inner.keys.remove(&name_key(&record.name));
            inner.by_id.remove(&record.id);
        }
        crate::cluster::announce_account(&self.context, record.id).await;
        Ok(())
    }

    /// An account by id.
    pub(crate) fn account(&self, id: AccountId) -> Option<Account> {
        self.lock().by_id.get(&id).map(Account::from)
    }

    /// Registers a bot owned by `account`; returns it and its token, shown only now.
    pub(crate) async fn register_bot_for(
        &self,
        account: &Account,
        name: &str,
        variants: Vec<String>,
    ) -> Result<(Bot, String), ArenaError> {
        let profile = BotProfile {
            supported_variants: variants,
            owner: Some(account.id),
            ..BotProfile::default()
        };
        self.identities.register_bot(name, profile).await
    }

    /// The bots `account` owns, deleted ones left out, with whether each is online.
    pub(crate) fn bots_of(&self, account: &Account) -> Vec<(Bot, bool)> {
        self.identities
            .list_bots()
            .into_iter()
            .filter(|(bot, _)| bot.profile.owner == Some(account.id) && !bot.deleted)
            .collect()
    }

    /// The bot named `name` if `account` owns it.
    pub(crate) fn owned_bot(&self, account: &Account, name: &str) -> Result<Bot, ArenaError> {
        let bot = self.identities.find_bot(name)?;
        if bot.deleted {
            return Err(ArenaError::BotNotFound(name.to_owned()));
        }
        if bot.profile.owner != Some(account.id) {
            return Err(ArenaError::NotYourBot(bot.name));
        }
        Ok(bot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hashed_with_argon2id_and_verified() {
        let hash = hash_password("correct horse").expect("hash");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(!hash.contains("correct horse"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct horsE", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        assert_ne!(
            hash,
            hash_password("correct horse").expect("hash"),
            "salted"
        );
        assert!(!verify_password("", decoy_hash()));
    }

    #[test]
    fn passwords_are_checked() {
        assert!(validate_password("seven77").is_err());
        assert!(validate_password("eight888").is_ok());
        assert!(validate_password(&"x".repeat(1_025)).is_err());
    }

    #[test]
    fn failures_age_out_of_the_window() {
        let mut recent = VecDeque::from([0, 1_000]);
        assert_eq!(under_limit(&mut recent, 2, 2_000), Err(898));
        assert_eq!(under_limit(&mut recent, 2, FAILURE_WINDOW_MS + 1), Ok(()));
        assert_eq!(recent, VecDeque::from([1_000]));
    }
}
