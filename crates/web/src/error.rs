//! Failures as pages: a status and a sentence, in the site's layout.

use arbiter_arena::{ArenaError, ErrorClass};
use askama::Template;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};

/// Why a page could not be served.
#[derive(Debug)]
pub(crate) enum WebError {
    /// A state-changing request without the visitor's CSRF token.
    Csrf,
    /// The page needs a signed-in visitor.
    SignInRequired,
    /// Nothing here.
    NotFound,
    /// The request is wrong; the text says how.
    BadRequest(String),
    /// The server or the framework refused the request before a page saw it (a form, path
    /// or query that does not parse, a body too large or too slow); the text says why.
    Refused(StatusCode, String),
    /// The arena refused or failed.
    Arena(ArenaError),
    /// A template failed to render.
    Render(askama::Error),
    /// Something the server makes itself failed; the text says what, for the log.
    Internal(String),
}

impl From<ArenaError> for WebError {
    fn from(error: ArenaError) -> WebError {
        WebError::Arena(error)
    }
}

impl From<askama::Error> for WebError {
    fn from(error: askama::Error) -> WebError {
        WebError::Render(error)
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    status: u16,
    message: &'a str,
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        let (status, message) = match &self {
            WebError::Csrf => (StatusCode::FORBIDDEN, "invalid csrf".to_owned()),
            WebError::SignInRequired => return Redirect::to("/signin").into_response(),
            WebError::NotFound => (StatusCode::NOT_FOUND, "There is nothing here.".to_owned()),
            WebError::BadRequest(text) => (StatusCode::BAD_REQUEST, text.clone()),
            WebError::Refused(status, text) => (*status, text.clone()),
            WebError::Arena(error) => (status_of(error), error.to_string()),
            WebError::Internal(error) => {
                tracing::error!(%error, "a page failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "The server failed to make this page.".to_owned(),
                )
            }
            WebError::Render(error) => {
                tracing::error!(%error, "a page failed to render");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "The page failed to render.".to_owned(),
                )
            }
        };
        let page = ErrorPage {
            status: status.as_u16(),
            message: &message,
        };
        let mut response = match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => (status, [(header::CONTENT_TYPE, "text/plain")], message).into_response(),
        };
        // Error pages also reach browsers from outside the pages' router (an unknown
        // address, a method a page does not take), where no middleware adds these.
        crate::session::add_page_headers(&mut response);
        response
    }
}

/// The HTTP status for an arena error: the one mapping, used by the pages and the API alike.
pub fn status_of(error: &ArenaError) -> StatusCode {
    match error.class() {
        ErrorClass::BadRequest => StatusCode::BAD_REQUEST,
        ErrorClass::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorClass::Forbidden => StatusCode::FORBIDDEN,
        ErrorClass::NotFound => StatusCode::NOT_FOUND,
        ErrorClass::Conflict => StatusCode::CONFLICT,
        ErrorClass::TooMany => StatusCode::TOO_MANY_REQUESTS,
        ErrorClass::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// The most of a refusal's text that is read to put on its page.
const REFUSAL_TEXT_MAX: usize = 4 * 1024;

/// Middleware: a failure that is not a page yet, such as the framework's plain-text refusal of
/// a form over the body limit or of a path that does not parse, becomes one, with its status.
/// Every page error is then HTML in the site's layout, under the pages' security headers; the
/// JSON answers the script asked for (a refused move) stay JSON, so that it can read them.
pub(crate) async fn pages_for_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let answered =
        content_type.starts_with("text/html") || content_type.starts_with("application/json");
    if answered || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
        "The request is larger than this server accepts.".to_owned()
    } else {
        let body = axum::body::to_bytes(response.into_body(), REFUSAL_TEXT_MAX)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body).trim().to_owned();
        if text.is_empty() {
            status.canonical_reason().unwrap_or("Error").to_owned()
        } else {
            text
        }
    };
    WebError::Refused(status, message).into_response()
}
