//! Accounts: signing up, in and out, and the account page (a new password, signing out
//! everywhere, deleting the account).

use arbiter_arena::{ArenaError, PASSWORD_MIN, SESSION_MS};
use askama::Template;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum_extra::extract::Form;
use axum_extra::extract::cookie::CookieJar;
use serde::Deserialize;

use super::{CsrfForm, Page, page, render, render_with};
use crate::WebState;
use crate::error::{WebError, status_of};
use crate::session::{ClientAddress, SESSION_COOKIE, Visitor, cookie};

#[derive(Template)]
#[template(path = "account.html")]
struct AccountPage {
    page: Page,
    /// `signup` or `signin`: the form's address.
    action: &'static str,
    error: Option<String>,
    name: String,
    password_min: usize,
}

fn account_page(
    visitor: &Visitor,
    action: &'static str,
    error: Option<String>,
    name: String,
) -> AccountPage {
    let title = if action == "signup" {
        "Sign up"
    } else {
        "Sign in"
    };
    AccountPage {
        page: page(visitor, title),
        action,
        error,
        name,
        password_min: PASSWORD_MIN,
    }
}

/// A sign-up or sign-in form.
#[derive(Deserialize)]
pub(crate) struct AccountForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

/// `GET /signup`.
pub(crate) async fn sign_up_form(visitor: Visitor) -> Result<Html<String>, WebError> {
    render(&account_page(&visitor, "signup", None, String::new()))
}

/// `GET /signin`.
pub(crate) async fn sign_in_form(visitor: Visitor) -> Result<Html<String>, WebError> {
    render(&account_page(&visitor, "signin", None, String::new()))
}

/// The session cookie for a new session, and the way to the visitor's bots.
fn signed_in(visitor: &Visitor, secret: String) -> Response {
    let jar = CookieJar::new().add(cookie(SESSION_COOKIE, secret, visitor.secure, SESSION_MS));
    (jar, Redirect::to("/my/bots")).into_response()
}

/// `POST /signup`.
pub(crate) async fn sign_up(
    State(state): State<WebState>,
    visitor: Visitor,
    Form(form): Form<AccountForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    match state.arena.sign_up(&form.name, &form.password).await {
        Ok((_, secret)) => Ok(signed_in(&visitor, secret)),
        Err(error) => Ok(render_with(
            status_of(&error),
            &account_page(&visitor, "signup", Some(error.to_string()), form.name),
        )),
    }
}

/// `POST /signin`.
pub(crate) async fn sign_in(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<AccountForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    match state
        .arena
        .sign_in(&form.name, &form.password, client)
        .await
    {
        Ok((_, secret)) => Ok(signed_in(&visitor, secret)),
        Err(error) => Ok(render_with(
            status_of(&error),
            &account_page(&visitor, "signin", Some(error.to_string()), form.name),
        )),
    }
}

/// `POST /signout`.
pub(crate) async fn sign_out(
    State(state): State<WebState>,
    visitor: Visitor,
    Form(form): Form<CsrfForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    if let Some(session) = &visitor.session {
        state.arena.sign_out(session).await?;
    }
    Ok(signed_out(&visitor))
}

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    page: Page,
    name: String,
    /// What the last change did, or why it was refused.
    notice: Option<String>,
    error: Option<String>,
    password_min: usize,
}

fn settings_page(
    visitor: &Visitor,
    notice: Option<String>,
    error: Option<String>,
) -> Result<SettingsPage, WebError> {
    Ok(SettingsPage {
        page: page(visitor, "Your account"),
        name: visitor.account()?.name.clone(),
        notice,
        error,
        password_min: PASSWORD_MIN,
    })
}

/// `GET /account`: changing the password, signing out everywhere, deleting the account.
pub(crate) async fn settings(visitor: Visitor) -> Result<Html<String>, WebError> {
    render(&settings_page(&visitor, None, None)?)
}

/// A form on the account page: the password, given again, and a new one where it changes.
#[derive(Deserialize)]
pub(crate) struct SettingsForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    new_password: String,
}

/// The account page again with why a change was refused.
fn refuse_settings(visitor: &Visitor, error: &ArenaError) -> Result<Response, WebError> {
    let page = settings_page(visitor, None, Some(error.to_string()))?;
    Ok(render_with(status_of(error), &page))
}

/// The way home with the session cookie removed: replaced by an empty one that has already
/// expired (a jar's `remove` says nothing of a cookie the jar was not built from).
fn signed_out(visitor: &Visitor) -> Response {
    let jar = CookieJar::new().add(cookie(SESSION_COOKIE, String::new(), visitor.secure, 0));
    (jar, Redirect::to("/")).into_response()
}

/// `POST /account/password`: a new password; every other session of the account ends.
pub(crate) async fn change_password(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<SettingsForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    let kept = visitor.session.as_deref().unwrap_or_default();
    let changed = state
        .arena
        .change_password(account, &form.password, &form.new_password, kept, client)
        .await;
    match changed {
        Ok(()) => {
            let notice = "Your password is changed, and every other browser is signed out.";
            Ok(render(&settings_page(&visitor, Some(notice.to_owned()), None)?)?.into_response())
        }
        Err(error) => refuse_settings(&visitor, &error),
    }
}

/// `POST /account/sign-out-everywhere`: ends every session of the account, this one too.
pub(crate) async fn sign_out_everywhere(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<SettingsForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    match state
        .arena
        .sign_out_everywhere(account, &form.password, client)
        .await
    {
        Ok(()) => Ok(signed_out(&visitor)),
        Err(error) => refuse_settings(&visitor, &error),
    }
}

/// `POST /account/delete`: deletes the account and its bots (see `Arena::delete_account`).
pub(crate) async fn delete_account(
    State(state): State<WebState>,
    visitor: Visitor,
    ClientAddress(client): ClientAddress,
    Form(form): Form<SettingsForm>,
) -> Result<Response, WebError> {
    visitor.check(&form.csrf)?;
    let account = visitor.account()?;
    match state
        .arena
        .delete_account(account, &form.password, client)
        .await
    {
        Ok(()) => Ok(signed_out(&visitor)),
        Err(error) => refuse_settings(&visitor, &error),
    }
}
