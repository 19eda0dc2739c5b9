//! One handler per page or form, in a module for each part of the site; here, what they share:
//! the layout's values, rendering a template, and the form that carries only the CSRF value.

pub(crate) mod accounts;
pub(crate) mod assets;
pub(crate) mod bots;
pub(crate) mod home;
pub(crate) mod leaderboard;
pub(crate) mod my_bots;
pub(crate) mod play;
pub(crate) mod tables;
pub(crate) mod tournaments;
pub(crate) mod watch;

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use crate::error::WebError;
use crate::session::Visitor;

/// What every page's layout shows: the title, who is signed in, and the CSRF value for the
/// sign-out form.
pub(crate) struct Page {
    pub(crate) title: String,
    pub(crate) account: Option<String>,
    pub(crate) csrf: String,
}

pub(crate) fn page(visitor: &Visitor, title: &str) -> Page {
    Page {
        title: title.to_owned(),
        account: visitor.account.as_ref().map(|a| a.name.clone()),
        csrf: visitor.csrf.clone(),
    }
}

pub(crate) fn render(template: &impl Template) -> Result<Html<String>, WebError> {
    Ok(Html(template.render()?))
}

/// A page shown with a status other than 200 (a form with an error).
fn render_with(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => WebError::Render(error).into_response(),
    }
}

/// A form that carries only the CSRF value.
#[derive(Deserialize)]
pub(crate) struct CsrfForm {
    #[serde(default)]
    csrf: String,
}
