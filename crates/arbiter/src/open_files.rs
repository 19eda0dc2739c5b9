//! The process's limit on open files, which caps how many sockets it can hold.

/// The most open files a process asks for: Linux's default ceiling (`fs.nr_open`).
#[cfg(unix)]
const OPEN_FILES_WANTED: u64 = 1 << 20;

/// Raises the soft limit on open files as far as the hard limit allows, and returns it.
///
/// Every connected bot holds a socket (and every simulated bot of the load harness three), and
/// the soft limit most systems start processes with, 1,024, would cap a server at about a
/// thousand bots although the hard limit allows far more. Servers commonly raise it themselves;
/// `None` means there is no limit, or no way to read it on this system.
#[cfg(unix)]
pub(crate) fn raise_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let wanted = limit
        .maximum
        .map_or(OPEN_FILES_WANTED, |maximum| maximum.min(OPEN_FILES_WANTED));
    let current = limit.current?;
    if current >= wanted {
        return Some(current);
    }
    let raised = Rlimit {
        current: Some(wanted),
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => Some(wanted),
        Err(_) => Some(current),
    }
}

#[cfg(not(unix))]
pub(crate) fn raise_limit() -> Option<u64> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use rustix::process::{Resource, getrlimit};

    use super::*;

    #[test]
    fn the_open_file_limit_is_raised_to_the_hard_limit() {
        let before = getrlimit(Resource::Nofile);
        let reported = raise_limit();
        let after = getrlimit(Resource::Nofile);
        assert_eq!(reported, after.current);
        let ceiling = before
            .maximum
            .map_or(OPEN_FILES_WANTED, |maximum| maximum.min(OPEN_FILES_WANTED));
        assert_eq!(
            after.current,
            Some(ceiling.max(before.current.unwrap_or(0)))
        );
        assert_eq!(
            after.maximum, before.maximum,
            "the hard limit is left alone"
        );
    }
}
