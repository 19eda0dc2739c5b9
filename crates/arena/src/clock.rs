//! Time, injected: the arena never reads the system clock directly, so tests move time
//! forward instantly and every timeout can be tested without sleeping.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::watch;

/// A future that completes at a given time.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The arena's source of time: milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now_ms(&self) -> i64;
    /// Completes once the clock reads `at_ms` or later.
    fn sleep_until(&self, at_ms: i64) -> Sleep;
}

/// The real clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }

    fn sleep_until(&self, at_ms: i64) -> Sleep {
        let now = self.now_ms();
        let wait = Duration::from_millis(u64::try_from(at_ms.saturating_sub(now)).unwrap_or(0));
        Box::pin(async move {
            tokio::time::sleep(wait).await;
            // The system clock may have been stepped; finish the wait by the wall clock.
            loop {
                let left = at_ms - SystemClock.now_ms();
                if left <= 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(u64::try_from(left).unwrap_or(1))).await;
            }
        })
    }
}

/// A clock that moves only when told to: tests call [`ManualClock::advance`] and every
/// sleeper whose time has come wakes at once.
#[derive(Clone)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
    ticks: watch::Sender<i64>,
}

impl ManualClock {
    /// A clock reading `start_ms`.
    pub fn new(start_ms: i64) -> ManualClock {
        let (ticks, _) = watch::channel(start_ms);
        ManualClock {
            now: Arc::new(AtomicI64::new(start_ms)),
            ticks,
        }
    }

    /// Moves the clock forward by `ms` and wakes every sleeper that is due.
    pub fn advance(&self, ms: i64) {
        let now = self.now.fetch_add(ms, Ordering::SeqCst) + ms;
        self.ticks.send_replace(now);
    }

    /// Sets the clock (forward or backward) and wakes sleepers that are due.
    pub fn set(&self, now_ms: i64) {
        self.now.store(now_ms, Ordering::SeqCst);
        self.ticks.send_replace(now_ms);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }

    fn sleep_until(&self, at_ms: i64) -> Sleep {
        let mut ticks = self.ticks.subscribe();
        let now = self.now.clone();
        Box::pin(async move {
            while now.load(Ordering::SeqCst) < at_ms {
                if ticks.changed().await.is_err() {
                    // The clock was dropped: time will never come.
                    std::future::pending::<()>().await;
                }
            }
        })
    }
}

/// `YYYY-MM-DD HH:MM:SS` in UTC, as FlipSight writes times.
pub fn utc_datetime(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn manual_sleepers_wake_when_time_reaches_them() {
        let clock = ManualClock::new(1_000);
        let early = tokio::spawn(clock.sleep_until(1_500));
        let late = tokio::spawn(clock.sleep_until(3_000));
        clock.advance(499);
        tokio::task::yield_now().await;
        assert!(!early.is_finished());
        clock.advance(1);
        early.await.expect("woke");
        assert!(!late.is_finished());
        clock.set(3_000);
        late.await.expect("woke");
        assert_eq!(clock.now_ms(), 3_000);
    }

    #[test]
    fn times_are_written_as_flipsight_writes_them() {
        assert_eq!(utc_datetime(0), "1970-01-01 00:00:00");
        // registered_at_ts 1794474000 in seed 000's example is 2026-11-12 18:00:00 in KST;
        // in UTC it is nine hours earlier.
        assert_eq!(utc_datetime(1_794_474_000_000), "2026-11-12 09:00:00");
        assert_eq!(utc_datetime(951_782_400_000), "2000-02-29 00:00:00");
    }

    #[tokio::test]
    async fn a_past_time_completes_at_once() {
        let clock = ManualClock::new(10);
        clock.sleep_until(5).await;
        SystemClock.sleep_until(SystemClock.now_ms() - 1_000).await;
    }
}
