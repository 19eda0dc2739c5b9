//! The API's one error shape: `{"error": "snake_code", "message": "…"}` with a fitting status.

use arbiter_arena::ArenaError;
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// The body of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// A stable snake_case code.
    pub error: String,
    /// A human-readable explanation.
    pub message: String,
}

/// An error as the API returns it.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: String,
    message: String,
    retry_after_s: Option<u64>,
}

impl ApiError {
    /// An error with an explicit status and code.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: code.to_owned(),
            message: message.into(),
            retry_after_s: None,
        }
    }

    /// 400 with a code.
    pub fn bad_request(code: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl From<ArenaError> for ApiError {
    fn from(error: ArenaError) -> Self {
        ApiError {
            status: arbiter_web::status_of(&error),
            code: error.code().to_owned(),
            message: error.to_string(),
            retry_after_s: error.retry_after_s(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::warn!(code = %self.code, message = %self.message, "request failed");
        }
        let mut response = (
            self.status,
            Json(ErrorBody {
                error: self.code,
                message: self.message,
            }),
        )
            .into_response();
        if let Some(seconds) = self.retry_after_s
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
