//! The files compiled into the server: the style sheet, the script, and the picture of those
//! who have none.

use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::error::WebError;
use crate::photo;

/// `GET /static/style.css`.
pub(crate) async fn style() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../../static/style.css"),
    )
        .into_response()
}

/// `GET /img/no_profile.gif`: the picture of those who have none, drawn once per process.
pub(crate) async fn no_profile() -> Response {
    static GIF: std::sync::LazyLock<Result<Vec<u8>, String>> =
        std::sync::LazyLock::new(|| photo::placeholder_gif().map_err(|e| e.to_string()));
    match &*GIF {
        Ok(gif) => (
            [
                (header::CONTENT_TYPE, "image/gif"),
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            gif.clone(),
        )
            .into_response(),
        Err(error) => {
            WebError::Internal(format!("the placeholder picture failed: {error}")).into_response()
        }
    }
}

/// `GET /static/app.js`.
pub(crate) async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../../static/app.js"),
    )
        .into_response()
}
