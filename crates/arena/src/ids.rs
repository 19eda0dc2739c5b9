//! New identifiers, reserved from the store a block at a time, so that servers sharing one
//! store never hand out the same id, and a restart never hands out one given before.

use std::ops::Range;

use arbiter_store::{IdKind, Store, StoreError};
use tokio::sync::Mutex;

/// Ids reserved per round trip to the store. Ids left in a block when the process stops are
/// skipped; servers sharing a store interleave their blocks, so ids order matches by creation
/// within one server, and only roughly across servers.
const BLOCK: u32 = 16;

/// The ids this process has reserved and not yet handed out, per kind, in the order of
/// [`IdKind::ALL`]: sized by it, so that a new kind has a block of its own.
pub(crate) struct Ids {
    blocks: [Mutex<Range<i64>>; IdKind::ALL.len()],
}

impl Ids {
    /// No ids reserved yet: the first of each kind reserves a block.
    pub(crate) fn new() -> Ids {
        Ids {
            blocks: std::array::from_fn(|_| Mutex::new(0..0)),
        }
    }

    /// A new id of `kind`, reserving a block from `store` when this process has none left.
    pub(crate) async fn next(&self, store: &dyn Store, kind: IdKind) -> Result<i64, StoreError> {
        let index = IdKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
        // Held across the reservation, so that callers waiting meanwhile take from the new
        // block rather than each reserving one of their own.
        let mut block = self.blocks[index].lock().await;
        if let Some(id) = block.next() {
            return Ok(id);
        }
        let first = store.reserve_ids(kind, BLOCK).await?;
        *block = first + 1..first + i64::from(BLOCK);
        Ok(first)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arbiter_store::Write;
    use arbiter_store_sqlite::SqliteStore;

    use super::*;

    #[tokio::test]
    async fn two_processes_on_one_store_never_share_an_id() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Arc::new(
            SqliteStore::open(&dir.path().join("arbiter.db"))
                .await
                .expect("store"),
        );
        store
            .write_batch(&[Write::IdsTaken(arbiter_store::MaxIds {
                bot: 0,
                r#match: 40,
                account: 0,
                tournament: 0,
            })])
            .await
            .expect("taken");
        let (first, second) = (Ids::new(), Ids::new());
        let mut seen = Vec::new();
        for _ in 0..50 {
            seen.push(first.next(store.as_ref(), IdKind::Match).await.expect("id"));
            seen.push(
                second
                    .next(store.as_ref(), IdKind::Match)
                    .await
                    .expect("id"),
            );
        }
        assert!(seen.iter().all(|&id| id > 40), "{seen:?}");
        let count = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), count, "an id handed out twice");
        // A restart starts past every block reserved before.
        let restarted = Ids::new();
        let next = restarted
            .next(store.as_ref(), IdKind::Match)
            .await
            .expect("id");
        assert!(next > *seen.last().expect("ids"), "{next} after {seen:?}");
        // Kinds are counted apart.
        assert_eq!(
            restarted
                .next(store.as_ref(), IdKind::Bot)
                .await
                .expect("id"),
            1
        );
        // Every kind has a block of its own, the last one listed too.
        assert_eq!(
            restarted
                .next(store.as_ref(), IdKind::Tournament)
                .await
                .expect("id"),
            1
        );
    }
}
