//! Which URLs and addresses the server may call for a bot.
//!
//! A URL is read as browsers read it (the WHATWG URL standard, through `reqwest::Url`), so the
//! host `2130706433`, `0x7f.1` or `0177.0.0.1` is the address 127.0.0.1, and it is that
//! address that is judged. An IPv6 address that carries an IPv4 one (mapped `::ffff:a.b.c.d`,
//! compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`) is judged by
//! the IPv4 address too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use reqwest::Url;

/// Why a URL or an address may not be called.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The text is not a URL with a host.
    #[error("not a URL with a host: {0}")]
    Malformed(String),
    /// The scheme is not https (nor http where the operator allows it).
    #[error("the URL must be https{}", if *.allow_http { " or http" } else { "" })]
    Scheme {
        /// Whether http is allowed on this server.
        allow_http: bool,
    },
    /// The URL carries a user name or password, which would end up in logs and pages.
    #[error("the URL must not carry a user name or password")]
    Credentials,
    /// The address is of a kind the server does not call.
    #[error("{address} is a {kind} address, which the server does not call")]
    Forbidden {
        /// The address.
        address: IpAddr,
        /// What kind of address it is (`loopback`, `private`, …).
        kind: &'static str,
    },
    /// The host's name resolves to no address.
    #[error("{0} resolves to no address")]
    Unresolved(String),
}

/// A range of addresses, `10.0.0.0/8` or `fd00::/8`, or one address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    base: IpAddr,
    prefix: u8,
}

impl Range {
    /// Whether `address` is in the range (an IPv4 address inside an IPv6 one counting as the
    /// IPv4 address).
    pub fn contains(&self, address: IpAddr) -> bool {
        match (self.base, canonical(address)) {
            (IpAddr::V4(base), IpAddr::V4(address)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(base) & mask == u32::from(address) & mask
            }
            (IpAddr::V6(base), IpAddr::V6(address)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(base) & mask == u128::from(address) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Range {
    type Err = String;

    fn from_str(text: &str) -> Result<Range, String> {
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let base: IpAddr = address
            .trim()
            .parse()
            .map_err(|_| format!("{text:?} is not an address or a range like 10.0.0.0/8"))?;
        let base = canonical(base);
        let bits = if base.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(prefix) => prefix
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= bits)
                .ok_or_else(|| format!("{text:?}: the prefix must be 0 to {bits}"))?,
            None => bits,
        };
        Ok(Range { base, prefix })
    }
}

/// What the operator lets bots' URLs reach.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetPolicy {
    /// Whether plain http URLs are called (a server whose bots all run on its own network).
    pub allow_http: bool,
    /// Ranges called even though they are of a kind otherwise refused (a private network
    /// where the operator's own bots run).
    pub allowed: Vec<Range>,
}

impl TargetPolicy {
    /// Reads a bot's URL and checks what can be checked before resolving it: the scheme, no
    /// credentials, and the host when it is an address.
    pub fn check_url(&self, text: &str) -> Result<Url, TargetError> {
        let mut url = Url::parse(text.trim()).map_err(|e| TargetError::Malformed(e.to_string()))?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_http => {}
            _ => {
                return Err(TargetError::Scheme {
                    allow_http: self.allow_http,
                });
            }
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(TargetError::Credentials);
        }
        match url.host() {
            Some(url::Host::Ipv4(address)) => self.check_address(IpAddr::V4(address))?,
            Some(url::Host::Ipv6(address)) => self.check_address(IpAddr::V6(address))?,
            Some(url::Host::Domain(_)) => {}
            None => return Err(TargetError::Malformed(text.to_owned())),
        }
        url.set_fragment(None);
        Ok(url)
    }

    /// Whether the server may connect to `address`.
    pub fn check_address(&self, address: IpAddr) -> Result<(), TargetError> {
        if self.allowed.iter().any(|range| range.contains(address)) {
            return Ok(());
        }
        match forbidden_kind(address) {
            Some(kind) => Err(TargetError::Forbidden { address, kind }),
            None => Ok(()),
        }
    }
}

/// The IPv4 address an IPv6 address carries, where it carries one a network would route as
/// that IPv4 address; else the address itself.
fn canonical(address: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = address else {
        return address;
    };
    let bits = u128::from(v6);
    let low = Ipv4Addr::from(u32::try_from(bits & 0xffff_ffff).unwrap_or(0));
    let segments = v6.segments();
    if let Some(v4) = v6.to_ipv4_mapped() {
        IpAddr::V4(v4)
    } else if bits >> 32 == 0 && bits > 1 {
        // IPv4-compatible (deprecated), `::a.b.c.d`; `::` and `::1` are IPv6's own.
        IpAddr::V4(low)
    } else if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 {
        // NAT64's well-known prefix, 64:ff9b::/96.
        IpAddr::V4(low)
    } else if segments[0] == 0x2002 {
        // 6to4, 2002:aabb:ccdd::/48 for a.b.c.d.
        let [a, b] = segments[1].to_be_bytes();
        let [c, d] = segments[2].to_be_bytes();
        IpAddr::V4(Ipv4Addr::new(a, b, c, d))
    } else {
        address
    }
}

/// What kind of address `address` is, if it is one the server must not call for a bot:
/// anything but a public unicast address.
pub fn forbidden_kind(address: IpAddr) -> Option<&'static str> {
    match canonical(address) {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(address: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = address.octets();
    if address.is_loopback() {
        Some("loopback")
    } else if address.is_private() {
        Some("private")
    } else if address.is_link_local() {
        Some("link-local")
    } else if address.is_multicast() {
        Some("multicast")
    } else if a == 0 {
        Some("unspecified")
    } else if address.is_broadcast() || a >= 240 {
        Some("reserved")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared (carrier-grade NAT)")
    } else if a == 198 && (18..20).contains(&b) {
        Some("benchmarking")
    } else if a == 192 && b == 0 && address.octets()[2] == 0 {
        Some("protocol assignment")
    } else {
        None
    }
}

fn forbidden_v6(address: Ipv6Addr) -> Option<&'static str> {
    let first = address.segments()[0];
    if address.is_loopback() {
        Some("loopback")
    } else if address.is_unspecified() {
        Some("unspecified")
    } else if address.is_multicast() {
        Some("multicast")
    } else if address.is_unicast_link_local() || first & 0xffc0 == 0xfec0 {
        // fec0::/10 is the deprecated site-local range, link-local in effect.
        Some("link-local")
    } else if address.is_unique_local() {
        Some("private")
    } else if first == 0x2001 && address.segments()[1] == 0x0db8 {
        Some("documentation")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_refused_address_is_refused() {
        let policy = TargetPolicy::default();
        let table: [(&str, Option<&str>); 26] = [
            ("https://bot.example.org/move", None),
            ("https://93.184.216.34/move", None),
            ("https://[2606:4700::1111]/move", None),
            ("https://127.0.0.1/", Some("loopback")),
            ("https://127.1/", Some("loopback")),
            ("https://2130706433/", Some("loopback")),
            ("https://0x7f000001/", Some("loopback")),
            ("https://0x7f.0.0.1/", Some("loopback")),
            ("https://0177.0.0.1/", Some("loopback")),
            ("https://[::1]/", Some("loopback")),
            ("https://[::ffff:127.0.0.1]/", Some("loopback")),
            ("https://[::ffff:7f00:1]/", Some("loopback")),
            ("https://[::127.0.0.1]/", Some("loopback")),
            ("https://[64:ff9b::7f00:1]/", Some("loopback")),
            ("https://[2002:7f00:1::]/", Some("loopback")),
            ("https://10.1.2.3/", Some("private")),
            ("https://172.16.0.1/", Some("private")),
            ("https://192.168.1.1/", Some("private")),
            ("https://[::ffff:192.168.1.1]/", Some("private")),
            ("https://[fd12:3456::1]/", Some("private")),
            (
                "https://169.254.169.254/latest/meta-data/",
                Some("link-local"),
            ),
            ("https://[fe80::1]/", Some("link-local")),
            ("https://224.0.0.1/", Some("multicast")),
            ("https://[ff02::1]/", Some("multicast")),
            ("https://0.0.0.0/", Some("unspecified")),
            ("https://[::]/", Some("unspecified")),
        ];
        for (url, refused) in table {
            let verdict = policy.check_url(url);
            match refused {
                None => assert!(verdict.is_ok(), "{url}: {verdict:?}"),
                Some(kind) => assert!(
                    matches!(verdict, Err(TargetError::Forbidden { kind: k, .. }) if k == kind),
                    "{url}: {verdict:?}"
                ),
            }
        }
    }

    #[test]
    fn only_https_without_credentials_is_called_unless_the_operator_allows_http() {
        let strict = TargetPolicy::default();
        let lenient = TargetPolicy {
            allow_http: true,
            ..TargetPolicy::default()
        };
        let table = [
            ("http://bot.example.org/", false, true),
            ("ftp://bot.example.org/", false, false),
            ("https://user:secret@bot.example.org/", false, false),
            ("https://bot.example.org/#part", true, true),
            ("not a url", false, false),
            ("https:///nohost", true, true),
        ];
        for (url, strict_ok, lenient_ok) in table {
            assert_eq!(strict.check_url(url).is_ok(), strict_ok, "strict {url}");
            assert_eq!(lenient.check_url(url).is_ok(), lenient_ok, "lenient {url}");
        }
        let url = strict
            .check_url("https://bot.example.org/a#b")
            .expect("a URL");
        assert_eq!(url.as_str(), "https://bot.example.org/a");
    }

    #[test]
    fn an_allowed_range_is_called() {
        let policy = TargetPolicy {
            allow_http: true,
            allowed: vec![
                "10.0.0.0/8".parse().expect("a range"),
                "::1".parse().expect("one"),
            ],
        };
        assert!(policy.check_url("http://10.9.8.7:8080/").is_ok());
        assert!(policy.check_url("http://[::ffff:10.9.8.7]/").is_ok());
        assert!(policy.check_url("http://[::1]/").is_ok());
        assert!(policy.check_url("http://11.0.0.1/").is_ok());
        assert!(policy.check_url("http://192.168.0.1/").is_err());
        for bad in ["10.0.0.0/33", "fd00::/129", "ten/8", "10.0.0.0/x"] {
            assert!(bad.parse::<Range>().is_err(), "{bad}");
        }
    }
}
