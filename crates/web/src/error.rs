//! Failures as pages: a status and a sentence, in the site's layout.

use arbiter_arena::{ArenaError, ErrorClass};
use askama::Template;
use axum::http::{StatusCode, header};
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
    /// The server refused the request before a page handled it; the text says why.
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
        match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => (status, [(header::CONTENT_TYPE, "text/plain")], message).into_response(),
        }
    }
}

/// The HTTP status for an arena error.
pub(crate) fn status_of(error: &ArenaError) -> StatusCode {
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
