//! Limits per client address over a sliding window of the arena's clock: how many identities
//! (anonymous bots and guests), open registrations or match openings one address may make.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

use crate::ArenaError;
use crate::context::lock;

/// At most `per_window` counted acts per address within any `window_ms`.
pub(crate) struct AddressQuota {
    per_window: usize,
    window_ms: i64,
    /// The times of each address's recent acts, oldest first, and when the map was last swept
    /// of addresses whose acts have all left the window.
    recent: Mutex<Recent>,
}

#[derive(Default)]
struct Recent {
    by_address: HashMap<IpAddr, VecDeque<i64>>,
    swept_ms: i64,
}

impl AddressQuota {
    /// A quota of `per_window` acts per address in `window_ms`.
    pub(crate) fn new(per_window: usize, window_ms: i64) -> AddressQuota {
        AddressQuota {
            per_window,
            window_ms,
            recent: Mutex::new(Recent::default()),
        }
    }

    /// Counts one more act of `ip` at `now`, or refuses it (counting nothing) when the
    /// address has used its share of the window, saying how long until one comes back.
    pub(crate) fn count(&self, ip: IpAddr, now: i64) -> Result<(), ArenaError> {
        let mut recent = lock(&self.recent);
        let window_ms = self.window_ms;
        // Addresses whose acts have all left the window are forgotten, once a window, so that
        // the map holds only the addresses of the last two windows rather than every one
        // ever seen, and a count costs a walk over them only once a window.
        if now - recent.swept_ms >= window_ms {
            recent
                .by_address
                .retain(|_, times| times.back().is_some_and(|&at| at > now - window_ms));
            recent.swept_ms = now;
        }
        let times = recent.by_address.entry(ip).or_default();
        while times.front().is_some_and(|&at| at <= now - window_ms) {
            times.pop_front();
        }
        if times.len() >= self.per_window {
            let oldest = times.front().copied().unwrap_or(now);
            let wait_ms = oldest + window_ms - now;
            return Err(ArenaError::RateLimited {
                retry_after_s: u64::try_from((wait_ms + 999) / 1_000).unwrap_or(1).max(1),
            });
        }
        times.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_has_its_share_of_the_window() {
        let quota = AddressQuota::new(2, 1_000);
        let a = IpAddr::from([10, 0, 0, 1]);
        let b = IpAddr::from([10, 0, 0, 2]);
        assert_eq!(quota.count(a, 0), Ok(()));
        assert_eq!(quota.count(a, 400), Ok(()));
        assert_eq!(
            quota.count(a, 500),
            Err(ArenaError::RateLimited { retry_after_s: 1 }),
            "a third within the window is refused"
        );
        assert_eq!(quota.count(b, 500), Ok(()), "another address has its own");
        assert_eq!(quota.count(a, 1_000), Ok(()), "the first left the window");
        assert!(
            quota.count(a, 1_100).is_err(),
            "the refusal counted nothing"
        );
        assert_eq!(quota.count(a, 1_400), Ok(()));
    }

    #[test]
    fn a_refusal_says_when_a_share_comes_back() {
        let quota = AddressQuota::new(1, 3_600_000);
        let ip = IpAddr::from([10, 0, 0, 1]);
        quota.count(ip, 0).expect("the first");
        assert_eq!(
            quota.count(ip, 1_000),
            Err(ArenaError::RateLimited {
                retry_after_s: 3_599
            })
        );
    }

    #[test]
    fn idle_addresses_are_forgotten() {
        let quota = AddressQuota::new(5, 1_000);
        for last in 0..100u8 {
            quota
                .count(IpAddr::from([10, 0, 0, last]), 0)
                .expect("counted");
        }
        quota
            .count(IpAddr::from([10, 0, 1, 0]), 5_000)
            .expect("counted");
        assert_eq!(lock(&quota.recent).by_address.len(), 1);
    }
}
