//! The page, embedded in the binary (no CDN, no build step): HTML with the
//! join token written in, its script and its style.

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use std::sync::Arc;

use crate::api::App;

const HTML: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

#[derive(serde::Deserialize)]
pub struct TokenQuery {
    t: Option<String>,
}

pub async fn index(State(app): State<Arc<App>>, Query(q): Query<TokenQuery>) -> Response {
    // The token is checked before this runs; it is hex, safe in HTML.
    let token = if app.store.config.token.is_some() {
        q.t.unwrap_or_default()
    } else {
        String::new()
    };
    let html = HTML.replace("{{TOKEN}}", &token);
    ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

pub async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response()
}

pub async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}
