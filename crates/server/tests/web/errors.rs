//! Every failure of a page is a page: the framework's refusals included, with the pages'
//! security headers; and the pages refuse names and variants as the API does.

use super::*;

/// Asserts that `response` is an HTML page with `status`, the pages' headers and `says`.
async fn expect_page(response: reqwest::Response, status: u16, says: &str) {
    assert_eq!(response.status().as_u16(), status, "{}", response.url());
    let headers = response.headers().clone();
    assert!(
        headers["content-type"]
            .to_str()
            .is_ok_and(|v| v.starts_with("text/html")),
        "{headers:?}"
    );
    assert!(
        headers.contains_key("content-security-policy"),
        "{headers:?}"
    );
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let html = response.text().await.expect("body");
    assert!(html.contains("<html") && html.contains(says), "{html}");
}

/// A request (method, path, form fields) and the page it gets (status, a phrase on it).
type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], u16, &'a str);

#[tokio::test]
async fn the_frameworks_refusals_are_pages_too() {
    let app = spawn_app().await;
    let browser = Browser::new(&app);
    let csrf = browser.sign_up("ada").await;
    let big = "x".repeat(arbiter_server::BODY_LIMIT + 1);
    let form: [Case; 6] = [
        (
            "POST",
            "/signin",
            &[("name", "ada"), ("password", &big)],
            413,
            "larger than this server accepts",
        ),
        (
            "POST",
            "/signout",
            &[("csrf", &csrf), ("padding", &big)],
            413,
            "larger than this server accepts",
        ),
        ("GET", "/matches/abc", &[], 400, "Cannot parse"),
        (
            "GET",
            "/matches/9223372036854775808/replay",
            &[],
            400,
            "Cannot parse",
        ),
        ("GET", "/matches/1%00/legs", &[], 400, "Cannot parse"),
        ("GET", "/signout", &[], 405, "does not take that method"),
    ];
    for (method, path, fields, status, says) in form {
        let url = format!("{}{path}", browser.origin);
        let request = if method == "GET" {
            browser.client.get(url)
        } else {
            browser.client.post(url).form(fields)
        };
        let request = request.header("accept", "text/html");
        expect_page(request.send().await.expect("sent"), status, says).await;
    }
}

#[tokio::test]
async fn the_forms_refuse_what_the_api_refuses() {
    let app = spawn_app().await;
    app.register("alpha").await;
    let browser = Browser::new(&app);
    let signup = browser.get("/signup").await;
    assert!(
        signup
            .html
            .contains(arbiter_arena::NAME_RULE.split(',').next().expect("rule"))
    );
    for (name, status, says) in [("12345", 400, "only digits"), ("..", 400, "only dots")] {
        let csrf = browser.csrf().await;
        let page = browser
            .post(
                "/signup",
                &[
                    ("name", name),
                    ("password", "correct horse"),
                    ("csrf", &csrf),
                ],
            )
            .await;
        assert_eq!(page.status.as_u16(), status, "{name}: {}", page.html);
        assert!(page.html.contains(says), "{}", page.html);
    }
    let csrf = browser.sign_up("ada").await;
    let lookalike = browser.csrf().await;
    let page = browser
        .post(
            "/signup",
            &[
                ("name", "аda"),
                ("password", "correct horse"),
                ("csrf", &lookalike),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::CONFLICT, "{}", page.html);

    let my_bots = browser.get("/my/bots").await;
    assert!(
        my_bots.html.contains("house-"),
        "the form says what a name may be"
    );
    let refused: [(&str, &[&str], u16, &str); 5] = [
        ("hоuse-easy", &["std"], 409, "already taken"),
        ("аlpha", &["std"], 409, "too like"),
        ("12345", &["std"], 400, "only digits"),
        ("Newcomer", &["bogus"], 400, "unknown variant"),
        ("Newcomer", &[], 400, "at least one variant"),
    ];
    for (name, variants, status, says) in refused {
        let mut form = Form::new()
            .text("csrf", csrf.clone())
            .text("name", name.to_owned());
        for variant in variants {
            form = form.text("variant", (*variant).to_owned());
        }
        let page = browser.upload("/my/bots", form).await;
        assert_eq!(page.status.as_u16(), status, "{name}: {}", page.html);
        assert!(page.html.contains(says), "{name}: {}", page.html);
    }
    assert!(
        app.arena.find_bot("Newcomer").is_err(),
        "nothing was created"
    );
}
