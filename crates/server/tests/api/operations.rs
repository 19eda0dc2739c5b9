//! The operator's endpoints at the server's root: liveness, readiness (which a stopping
//! server gives up, so that a load balancer drains it) and Prometheus metrics.

use reqwest::Method;

use crate::helpers::spawn_app;

#[tokio::test]
async fn health_ready_and_metrics_report_the_server() {
    let app = spawn_app().await;
    let health = app.call_root(Method::GET, "/health", &[], None).await;
    assert_eq!(
        (health.status.as_u16(), health.text.as_str()),
        (200, "ok\n")
    );
    let ready = app.call_root(Method::GET, "/ready", &[], None).await;
    assert_eq!(ready.status.as_u16(), 200, "{}", ready.text);

    let (id, alpha, beta) = app.running_match().await;
    let mut moves = app.play_first_moves(id, &alpha).await.len();
    moves += app.play_first_moves(id, &beta).await.len();
    assert!(moves > 0);
    let metrics = app.call_root(Method::GET, "/metrics", &[], None).await;
    assert_eq!(metrics.status.as_u16(), 200);
    assert!(
        metrics.headers["content-type"]
            .to_str()
            .is_ok_and(|t| t.starts_with("application/openmetrics-text")),
        "{:?}",
        metrics.headers
    );
    let value = |name: &str| {
        metrics
            .text
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name} ")))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("{name} in\n{}", metrics.text))
    };
    assert_eq!(value("arbiter_moves_total"), moves as f64);
    assert_eq!(value("arbiter_open_matches"), 1.0);
    assert!(value("arbiter_store_commit_seconds_count") >= 1.0);
    assert_eq!(value("arbiter_lease_takeovers_total"), 0.0);

    // A stopping server is no longer ready, though it still answers.
    app.arena.shutdown().await;
    let ready = app.call_root(Method::GET, "/ready", &[], None).await;
    assert_eq!(ready.status.as_u16(), 503, "{}", ready.text);
    let health = app.call_root(Method::GET, "/health", &[], None).await;
    assert_eq!(health.status.as_u16(), 200);
}
