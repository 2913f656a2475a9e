//! The page, embedded in the binary (no CDN, no build step): HTML with the
//! join token written in, its script and its style.

use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use std::sync::Arc;

use crate::api::App;

const HTML: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/page.js");
const STYLE: &str = include_str!("page/page.css");

/// The page, with the server's own token written in (never the query's:
/// nothing a link carries is reflected into the page), escaped all the same.
pub async fn index(State(app): State<Arc<App>>) -> Response {
    let html = HTML.replace("{{TOKEN}}", &escape(app.store.token().unwrap_or("")));
    ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

/// `text` safe in HTML text and in a quoted attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response()
}

pub async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
        assert_eq!(escape("0123abcdef"), "0123abcdef");
    }
}
