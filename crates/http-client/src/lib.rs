//! The one way Arbiter builds HTTP clients.
//!
//! reqwest speaks TLS through rustls, and rustls needs a crypto provider chosen for the whole
//! process. Its usual provider, aws-lc, carries a licence outside the workspace's allow-list, so
//! Arbiter uses ring. reqwest is built without a provider of its own and panics when it builds a
//! client before one is installed; every HTTP client in the workspace (the connector's, the
//! load harness's, the tests' and benchmarks') therefore starts from [`builder`], which installs
//! ring first. Keeping this in a crate of its own lets the server's tests use it without
//! depending on the connector.
//!
//! Certificates are checked against the platform's trust store (the system's certificate
//! bundle on Linux, the keychain on macOS, the certificate store on Windows), to which a caller
//! may add roots of its own with [`reqwest::ClientBuilder::tls_certs_merge`], for a server with a
//! self-signed certificate. On a Linux or BSD system with no certificate bundle at all (a
//! minimal container), where the platform's verifier refuses to be built and no client could be
//! made, even for plain HTTP, Mozilla's root certificates compiled into the binary are used.

use std::sync::{Once, OnceLock};

/// How long a pooled connection may sit idle before the client drops it: well under the 10
/// seconds after which an Arbiter server closes an idle connection, so that a request is never
/// sent on a connection the server is closing at that moment.
pub const POOL_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

/// A reqwest client builder, with ring installed as the process's TLS crypto provider and
/// idle connections dropped after [`POOL_IDLE`].
pub fn builder() -> reqwest::ClientBuilder {
    install_ring();
    let builder = reqwest::Client::builder().pool_idle_timeout(POOL_IDLE);
    if system_has_roots() {
        builder
    } else {
        builder.tls_certs_only(mozilla_roots())
    }
}

/// A client with reqwest's defaults, for tests and tools that need nothing else.
///
/// # Panics
///
/// When the platform's TLS set-up cannot be built, as [`reqwest::Client::new`] does.
pub fn client() -> reqwest::Client {
    builder()
        .build()
        .expect("the HTTP client's TLS set-up builds")
}

/// Installs ring as the process's default crypto provider, once. Installing fails only when a
/// provider is already installed, which leaves the process with one provider either way, so that
/// failure is no error here.
fn install_ring() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Whether the system offers root certificates the platform's verifier can load. Only Linux and
/// the BSDs read them from files that may be missing; elsewhere the operating system's own store
/// is asked.
fn system_has_roots() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        !cfg!(all(
            unix,
            not(target_vendor = "apple"),
            not(target_os = "android")
        )) || !rustls_native_certs::load_native_certs().certs.is_empty()
    })
}

/// Mozilla's root certificates, as compiled into the binary.
fn mozilla_roots() -> Vec<reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect()
}

/// Whether a request failed because the server's certificate is not trusted (unknown issuer,
/// expired, issued for another name…): trying again will not help, another root might.
pub fn is_untrusted_certificate(error: &reqwest::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if let Some(rustls::Error::InvalidCertificate(_)) = current.downcast_ref::<rustls::Error>()
        {
            return true;
        }
        // rustls's error travels inside `io::Error`s (one per layer that wraps it), and an
        // `io::Error`'s `source` skips the error it wraps: step into it instead.
        cause = match current.downcast_ref::<std::io::Error>() {
            Some(io) => io
                .get_ref()
                .map(|inner| inner as &(dyn std::error::Error + 'static)),
            None => current.source(),
        };
    }
    false
}
