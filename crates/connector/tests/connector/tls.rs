//! The connector over HTTPS, through a TLS front on port 0 whose self-signed certificate is made
//! here: trusted with `--ca-file`, refused with a clear error without it.

use std::sync::Arc;

use arbiter_connector::{Challenge, ConnectorError, EngineSpec, Exit, Options};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::PrivateKeyDer;

use crate::harness::*;

/// Starts a TLS front for the plain HTTP server at `backend` (`host:port`), with a new
/// self-signed certificate for 127.0.0.1; returns its `https://` address and the certificate
/// in PEM.
async fn tls_front(backend: String) -> (String, String) {
    let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()])
        .expect("a self-signed certificate");
    let key = PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
    let config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .expect("the server's certificate");
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, backend) = (acceptor.clone(), backend.clone());
            tokio::spawn(async move {
                // A client that refuses the certificate ends the handshake; nothing to serve.
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut plain) = TcpStream::connect(&backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    (format!("https://{address}"), certified.cert.pem())
}

#[tokio::test]
async fn the_connector_plays_over_https_with_the_servers_certificate_and_refuses_it_without() {
    let server = Server::start().await;
    let token = server.mint("secure").await;
    let backend = server.url.trim_start_matches("http://").to_owned();
    let (https, pem) = tls_front(backend).await;
    let ca_file = server.dir.path().join("ca.pem");
    std::fs::write(&ca_file, pem).expect("write the certificate");

    let mut options = Options::new(https.clone(), token.clone(), EngineSpec::Practice);
    let refused = tokio::time::timeout(
        PATIENCE,
        arbiter_connector::run(options.clone(), std::future::pending()),
    )
    .await
    .expect("an untrusted certificate ends the connector at once");
    match refused {
        Err(error @ ConnectorError::Untrusted(_)) => {
            assert!(error.to_string().contains("--ca-file"), "{error}");
        }
        other => panic!("expected an untrusted certificate, got {other:?}"),
    }

    let (timings, mut played) = tokio::sync::mpsc::unbounded_channel();
    options.ca_file = Some(ca_file);
    options.timings = Some(timings);
    options.challenge = Some(Challenge {
        opponent: "house-random".to_owned(),
        game: None,
        variant: None,
        single: false,
    });
    let exit = tokio::time::timeout(
        PATIENCE,
        arbiter_connector::run(options, std::future::pending()),
    )
    .await
    .expect("the match ends in time")
    .expect("the connector runs over https");
    assert_eq!(exit, Exit::Normal);
    let first = played.recv().await.expect("moves were sent over https");
    let end = server.snapshot(first.match_id).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(end["participants"][1]["name"], "house-random", "{end}");
}
