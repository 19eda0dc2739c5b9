//! The shared parts of the OpenAPI document: the bearer scheme, and the error responses an
//! operation can give because of how it reads its request, added to every operation that reads
//! its request that way, so that no handler has to list them and none can forget one.

use utoipa::Modify;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};

/// Declares the `bearer` security scheme.
pub(crate) struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// Adds the errors that come from reading a request: a token that is missing or wrong, the
/// administrator's token, path parameters, queries and bodies that do not parse, bodies over
/// the limit or too slow, too many requests without a token from one address, and storage
/// that is unavailable. A status an operation already lists keeps its
/// own description.
pub(crate) struct ErrorResponses;

impl Modify for ErrorResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in &mut openapi.paths.paths {
            let operations = [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
            ];
            for operation in operations.into_iter().flatten() {
                add_errors(path, operation);
            }
        }
    }
}

fn add_errors(path: &str, operation: &mut Operation) {
    let token = operation.security.iter().flatten().any(|requirement| {
        serde_json::to_value(requirement).is_ok_and(|value| value.get("bearer").is_some())
    });
    let admin = operation
        .tags
        .iter()
        .flatten()
        .any(|tag| tag == crate::routes::ADMIN);
    let parameters = operation.parameters.as_ref().is_some_and(|p| !p.is_empty());
    let body = operation.request_body.is_some();
    let mut errors: Vec<(&str, &str)> = Vec::new();
    if parameters || body {
        errors.push((
            "400",
            "The request does not parse (`invalid_path`, `invalid_query`, `invalid_json`, \
             `invalid_body`) or asks for something impossible (`invalid_request`); nothing changed",
        ));
    }
    if token {
        errors.push((
            "401",
            "`invalid_token`: the bearer token is missing, unknown, replaced, or its bot is \
             disabled or deleted",
        ));
    }
    if admin {
        errors.push(("403", "`admin_only`: this needs the administrator token"));
    }
    if body {
        errors.push((
            "408",
            "`request_timeout`: the body did not arrive within 30 seconds",
        ));
        errors.push(("413", "`request_too_large`: the body is over 64 KiB"));
    }
    errors.push((
        "429",
        "`too_many_requests`: this address has 64 requests without a valid token in flight \
         already",
    ));
    if path != "/api/v1/health" {
        errors.push((
            "503",
            "`storage_unavailable` or `shutting_down`: nothing changed; try again later",
        ));
    }
    for (status, description) in errors {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| error_response(description).into());
    }
}

fn error_response(description: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
}
