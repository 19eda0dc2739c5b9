//! Who is visiting: the session cookie, which names an account, and the CSRF cookie, whose
//! value every form sends back. A page on another site can make a browser send our cookies
//! but cannot read them, so it cannot put the CSRF value in a form.

use arbiter_arena::{Account, SESSION_MS, token};
use axum::extract::{FromRequestParts, Request};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};

use crate::WebState;
use crate::error::WebError;

/// The session cookie's name.
pub(crate) const SESSION_COOKIE: &str = "arbiter_session";
/// The CSRF cookie's name.
pub(crate) const CSRF_COOKIE: &str = "arbiter_csrf";
/// The cookie that names the participant a guest plays as.
pub(crate) const GUEST_COOKIE: &str = "arbiter_guest";
/// How long a guest's cookie lasts.
pub(crate) const GUEST_MS: i64 = 7 * 24 * 3_600_000;

/// The visitor's CSRF value, as the middleware found or made it.
#[derive(Clone)]
struct Csrf(String);

/// Whether the request reached us over HTTPS (through a proxy that says so), so that cookies
/// are marked `Secure`.
fn is_https(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

/// A cookie only our pages' requests carry: HttpOnly, SameSite=Lax, and Secure over HTTPS.
pub(crate) fn cookie(
    name: &'static str,
    value: String,
    secure: bool,
    max_age_ms: i64,
) -> Cookie<'static> {
    Cookie::build((name, value))
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(time_span(max_age_ms))
        .build()
}

fn time_span(ms: i64) -> time::Duration {
    time::Duration::milliseconds(ms)
}

/// What every page allows: its own scripts, styles, pictures and requests only, no framing
/// by other sites, and no guessing of content types.
const PAGE_HEADERS: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
    ("x-frame-options", "DENY"),
];

/// Adds the pages' security headers to `response`.
pub(crate) fn add_page_headers(response: &mut Response) {
    for (name, value) in PAGE_HEADERS {
        response.headers_mut().insert(
            axum::http::HeaderName::from_static(name),
            axum::http::HeaderValue::from_static(value),
        );
    }
}

/// Middleware: makes sure every visitor has a CSRF cookie, hands its value to the page, and
/// adds the pages' security headers.
pub(crate) async fn csrf_cookie(jar: CookieJar, mut request: Request, next: Next) -> Response {
    let existing = jar
        .get(CSRF_COOKIE)
        .map(|c| c.value().to_owned())
        .filter(|v| v.len() >= 32);
    let (value, fresh) = match existing {
        Some(value) => (value, false),
        None => match token::generate("") {
            Ok(new) => (new.secret, true),
            Err(error) => {
                return WebError::Arena(arbiter_arena::ArenaError::Unavailable(error.to_string()))
                    .into_response();
            }
        },
    };
    let secure = is_https(request.headers());
    request.extensions_mut().insert(Csrf(value.clone()));
    let mut response = next.run(request).await;
    add_page_headers(&mut response);
    if fresh {
        let jar = CookieJar::new().add(cookie(CSRF_COOKIE, value, secure, SESSION_MS));
        (jar, response).into_response()
    } else {
        response
    }
}

/// The address the request came from (the connection's peer), for limits on sign-ins.
pub(crate) struct ClientAddress(pub(crate) std::net::IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientAddress(
            peer.unwrap_or(std::net::Ipv4Addr::UNSPECIFIED.into()),
        ))
    }
}

/// The visitor of a page.
pub(crate) struct Visitor {
    /// The signed-in account, if any.
    pub(crate) account: Option<Account>,
    /// The value the visitor's forms must send back.
    pub(crate) csrf: String,
    /// The session cookie's value, when it names a live session.
    pub(crate) session: Option<String>,
    /// Whether cookies must be marked Secure.
    pub(crate) secure: bool,
    /// The participant the visitor plays as: the account's, or the guest's its cookie names.
    pub(crate) person: Option<arbiter_arena::Bot>,
    /// The address the visitor reached this server at, from the `Host` header.
    pub(crate) origin: String,
}

impl FromRequestParts<WebState> for Visitor {
    type Rejection = WebError;

    async fn from_request_parts(parts: &mut Parts, state: &WebState) -> Result<Self, WebError> {
        let jar = CookieJar::from_headers(&parts.headers);
        let session = jar.get(SESSION_COOKIE).map(|c| c.value().to_owned());
        let account = session.as_deref().and_then(|s| state.arena.session(s));
        let person = match &account {
            Some(account) => state.arena.find_person(account),
            None => jar
                .get(GUEST_COOKIE)
                .and_then(|c| state.arena.guest(c.value())),
        };
        let csrf = parts
            .extensions
            .get::<Csrf>()
            .map(|c| c.0.clone())
            .unwrap_or_default();
        Ok(Visitor {
            session: session.filter(|_| account.is_some()),
            account,
            csrf,
            secure: is_https(&parts.headers),
            person,
            origin: format!(
                "{}://{}",
                if is_https(&parts.headers) {
                    "https"
                } else {
                    "http"
                },
                parts
                    .headers
                    .get(axum::http::header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("127.0.0.1:8080")
            ),
        })
    }
}

impl Visitor {
    /// Refuses a form whose CSRF value is not this visitor's.
    pub(crate) fn check(&self, sent: &str) -> Result<(), WebError> {
        let matches = !self.csrf.is_empty()
            && token::hashes_match(&token::hash(&self.csrf), &token::hash(sent));
        if matches { Ok(()) } else { Err(WebError::Csrf) }
    }

    /// The signed-in account, or a redirect to the sign-in page.
    pub(crate) fn account(&self) -> Result<&Account, WebError> {
        self.account.as_ref().ok_or(WebError::SignInRequired)
    }

    /// The key under which this visitor's one-time tokens wait.
    pub(crate) fn token_key(&self) -> Option<String> {
        self.session.as_deref().map(token::hash)
    }
}
