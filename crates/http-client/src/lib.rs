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
//! self-signed certificate.

use std::sync::Once;

/// A reqwest client builder, with ring installed as the process's TLS crypto provider.
pub fn builder() -> reqwest::ClientBuilder {
    install_ring();
    reqwest::Client::builder()
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
