//! Request admission, before any route runs: what a hostile client could
//! send to hurt the others or reach the testers' browsers is refused here.
//!
//! - Connections (and requests through the trusted proxy) are counted per
//!   client address, so one client cannot take every connection slot.
//! - A `Content-Length` above the body limit is answered 413 at once,
//!   before a byte of the body is read (nobody is made to wait for it).
//! - The `Host` must be an IP literal, `localhost` or a name the designer
//!   allowed: a name an attacker owns, rebound to this machine, fails.
//! - An `Origin`, when a browser sends one, must be the server's own, and
//!   the API's POSTs must say `application/json` (which a cross-site form
//!   or `no-cors` fetch cannot send without a preflight that fails).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::api::error;
use crate::config::Config;

/// What every request is checked against.
pub struct Guard {
    /// Allowed host names, lower-case, without a trailing dot.
    allowed_hosts: Vec<String>,
    trusted_proxy: Option<IpAddr>,
    body_bytes: usize,
    addresses: Arc<Addresses>,
}

impl Guard {
    pub fn new(config: &Config) -> Self {
        Self {
            allowed_hosts: config.allowed_hosts.iter().map(|h| normal_name(h)).collect(),
            trusted_proxy: config.trusted_proxy.map(|ip| ip.to_canonical()),
            body_bytes: config.limits.body_bytes,
            addresses: Addresses::new(config.limits.per_address),
        }
    }

    fn is_proxy(&self, ip: IpAddr) -> bool {
        self.trusted_proxy == Some(ip.to_canonical())
    }

    /// A connection from `ip` may be served (held while it is), unless its
    /// address holds its share already; the trusted proxy's are not counted.
    pub fn connect(&self, ip: IpAddr) -> Option<Held> {
        if self.is_proxy(ip) {
            return Some(Held(None));
        }
        self.addresses.enter(ip)
    }

    /// The client a request through the trusted proxy is for: the last
    /// `X-Forwarded-For` entry (the one the proxy itself added; earlier
    /// ones are the client's to forge). `None` for any other request.
    fn forwarded_client(&self, req: &Request) -> Option<IpAddr> {
        if !self.through_proxy(req) {
            return None;
        }
        last_forwarded(req.headers())
    }

    fn through_proxy(&self, req: &Request) -> bool {
        req.extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .is_some_and(|ConnectInfo(peer)| self.is_proxy(peer.ip()))
    }

    /// The host a request was addressed to. Through the trusted proxy, the
    /// `X-Forwarded-Host` it names, if any: a proxy that rewrites `Host`
    /// (Apache's default) says there what the browser asked for, and the
    /// page's `Origin` is that.
    fn addressed_to(&self, req: &Request) -> Option<String> {
        let forwarded = self
            .through_proxy(req)
            .then(|| last_entry(req.headers(), "x-forwarded-host"))
            .flatten();
        forwarded.or_else(|| host_of(req))
    }

    /// A request through the proxy counts against its client's share, as a
    /// direct connection does (the proxy's connections are not counted).
    fn hold_client(&self, req: &Request) -> Result<Held, Box<Response>> {
        let Some(client) = self.forwarded_client(req) else {
            return Ok(Held(None));
        };
        self.addresses.enter(client).ok_or_else(|| {
            Box::new(error(
                StatusCode::TOO_MANY_REQUESTS,
                "address",
                "too many requests at once from your address; try again",
            ))
        })
    }

    /// Every check a request's head must pass, cheapest and most
    /// damaging first (a huge body is refused before its host is looked at).
    fn check(&self, req: &Request) -> Result<(), Box<Response>> {
        content_length(req.headers(), self.body_bytes)?;
        let host = self.addressed_to(req);
        check_host(host.as_deref(), &self.allowed_hosts)?;
        check_origin(req.headers(), host.as_deref())?;
        check_content_type(req.method(), req.headers())
    }
}

/// The client a request is for, as the handlers read it: the key of its
/// address (IPv4, or IPv6 /64), the trusted proxy's forwarded client for a
/// request through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client(pub IpAddr);

/// The middleware: refuses what `Guard::check` refuses, holds a slot of
/// the client's share while a request through the proxy is handled, and
/// tells the handlers who the client is.
pub async fn admit(State(guard): State<Arc<Guard>>, mut req: Request, next: Next) -> Response {
    if let Err(refusal) = guard.check(&req) {
        return *refusal;
    }
    let client = guard.forwarded_client(&req).or_else(|| {
        req.extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip())
    });
    if let Some(ip) = client {
        req.extensions_mut().insert(Client(client_key(ip)));
    }
    let _held = match guard.hold_client(&req) {
        Ok(h) => h,
        Err(refusal) => return *refusal,
    };
    next.run(req).await
}

/// Connections (or proxied requests) held per client address. An entry is
/// removed when its count falls to 0, so the map never holds more entries
/// than there are connections and requests open.
pub struct Addresses {
    held: Mutex<HashMap<IpAddr, usize>>,
    cap: usize,
}

/// One of an address's slots, given back when dropped (`None`: not counted).
pub struct Held(Option<(Arc<Addresses>, IpAddr)>);

impl Addresses {
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            held: Mutex::new(HashMap::new()),
            cap,
        })
    }

    /// A slot for `ip`, if its address holds fewer than the cap.
    pub fn enter(self: &Arc<Self>, ip: IpAddr) -> Option<Held> {
        let key = client_key(ip);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let n = held.entry(key).or_insert(0);
        if *n >= self.cap {
            if *n == 0 {
                held.remove(&key);
            }
            return None;
        }
        *n += 1;
        Some(Held(Some((self.clone(), key))))
    }

    fn leave(&self, key: IpAddr) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                held.remove(&key);
            }
        }
    }

    /// Addresses holding a slot now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some((addresses, key)) = self.0.take() {
            addresses.leave(key);
        }
    }
}

/// The key a client is counted under: its IPv4 address, or its IPv6 /64
/// (one subscriber's prefix: counting single IPv6 addresses would let one
/// client take 2^64 shares).
fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        v4 => v4,
    }
}

/// The last entry of the last `X-Forwarded-For` header, as an address
/// (an entry with a port, as some proxies write it, too).
fn last_forwarded(headers: &HeaderMap) -> Option<IpAddr> {
    let last = last_entry(headers, "x-forwarded-for")?;
    last.parse::<IpAddr>()
        .or_else(|_| last.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
}

/// The last comma-separated entry of the last `name` header (the one the
/// nearest proxy added), if there is one.
fn last_entry(headers: &HeaderMap, name: &str) -> Option<String> {
    let value = headers.get_all(name).iter().next_back()?;
    let last = value.to_str().ok()?.rsplit(',').next()?.trim();
    (!last.is_empty()).then(|| last.to_owned())
}

/// 413 for a declared body above the limit (and the connection closed, its
/// body never read); 400 for a length that is not a number.
fn content_length(headers: &HeaderMap, limit: usize) -> Result<(), Box<Response>> {
    for value in headers.get_all(header::CONTENT_LENGTH) {
        let Some(n) = value.to_str().ok().and_then(declared_length) else {
            return Err(Box::new(error(
                StatusCode::BAD_REQUEST,
                "body",
                "the Content-Length is not a number",
            )));
        };
        if n > limit as u64 {
            let mut r = error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body",
                format!(
                    "the request body is too large ({n} bytes; the limit is {limit}, and a move is a few dozen)"
                ),
            );
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return Err(Box::new(r));
        }
    }
    Ok(())
}

/// A `Content-Length`'s number (one too large for 64 bits is still too
/// large: the largest), or `None` if it is not all digits.
fn declared_length(value: &str) -> Option<u64> {
    let digits = value.trim();
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().unwrap_or(u64::MAX))
}

/// The host a request is addressed to: its `Host` header, or the authority
/// of an absolute-form target.
fn host_of(req: &Request) -> Option<String> {
    match req.headers().get(header::HOST) {
        Some(v) => Some(String::from_utf8_lossy(v.as_bytes()).into_owned()),
        None => req.uri().authority().map(|a| a.as_str().to_owned()),
    }
}

/// A request with no host at all comes from no browser (a rebinding attack
/// needs one), so only a host given is checked.
fn check_host(host: Option<&str>, allowed: &[String]) -> Result<(), Box<Response>> {
    let Some(host) = host else { return Ok(()) };
    if host_allowed(host, allowed) {
        return Ok(());
    }
    let name = host_name(host).unwrap_or(host);
    let name: String = name.chars().take(100).collect();
    Err(Box::new(error(
        StatusCode::MISDIRECTED_REQUEST,
        "host",
        format!(
            "this server is not served as {name:?}; only IP addresses and localhost are, unless the server \
             is started with --allow-host {name}"
        ),
    )))
}

/// Whether `host` (a `Host` header's value) names this server: an IP
/// literal, `localhost`, or an allowed name, with or without a port.
pub fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let Some(name) = host_name(host) else {
        return false;
    };
    if let Some(v6) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok();
    }
    let name = normal_name(name);
    name.parse::<Ipv4Addr>().is_ok() || name == "localhost" || allowed.contains(&name)
}

/// The host part of `host:port` (an IPv6 literal keeps its brackets), if
/// the port, when there is one, is a number.
fn host_name(host: &str) -> Option<&str> {
    let (name, port) = match host.rfind(':') {
        Some(i) if !host[i..].contains(']') => (&host[..i], Some(&host[i + 1..])),
        _ => (host, None),
    };
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    (port_ok && !name.is_empty()).then_some(name)
}

/// A host name as compared: lower-case, without the root's trailing dot.
fn normal_name(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// An `Origin`, when present, must be this server's (its scheme http or
/// https, the TLS proxy's); a request without one (curl, a same-origin GET)
/// passes.
fn check_origin(headers: &HeaderMap, host: Option<&str>) -> Result<(), Box<Response>> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = String::from_utf8_lossy(origin.as_bytes());
    if host.is_some_and(|h| same_origin(&origin, h)) {
        return Ok(());
    }
    let shown: String = origin.chars().take(100).collect();
    Err(Box::new(error(
        StatusCode::FORBIDDEN,
        "origin",
        format!("a page from {shown:?} may not use this playtest; open the playtest's own link"),
    )))
}

/// Whether `origin` (`scheme://host[:port]`) is the origin of `host`
/// (a default port, written or not, is the same port).
pub fn same_origin(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    if authority.is_empty() || authority.contains(['/', '@', '?', '#']) {
        return false;
    }
    let strip = |a: &str| {
        let a = a.to_ascii_lowercase();
        a.strip_suffix(default).map(str::to_owned).unwrap_or(a)
    };
    strip(authority) == strip(host)
}

/// The API's POSTs must carry JSON and say so: a cross-site page can send
/// `text/plain` (or a form) without asking, never `application/json`.
fn check_content_type(method: &Method, headers: &HeaderMap) -> Result<(), Box<Response>> {
    if method != Method::POST {
        return Ok(());
    }
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
    if is_json {
        return Ok(());
    }
    Err(Box::new(error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "content_type",
        "the request must be JSON, sent with Content-Type: application/json",
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_is_forgotten_at_zero() {
        let a = Addresses::new(2);
        let ip: IpAddr = [10, 0, 0, 1].into();
        let first = a.enter(ip).expect("the first slot");
        let second = a.enter(ip).expect("the second slot");
        assert!(a.enter(ip).is_none(), "a third is refused");
        assert!(a.enter([10, 0, 0, 2].into()).is_some(), "another address is not");
        drop(first);
        let third = a.enter(ip).expect("a slot given back is taken again");
        assert_eq!(a.len(), 1, "the other address's entry went with its slot");
        drop((second, third));
        assert_eq!(a.len(), 0, "no entry is kept for an address holding nothing");
    }

    #[test]
    fn a_cap_of_zero_refuses_and_keeps_nothing() {
        let a = Addresses::new(0);
        assert!(a.enter([10, 0, 0, 1].into()).is_none());
        assert_eq!(a.len(), 0);
    }

    #[test]
    fn ipv6_is_counted_by_its_64_prefix_and_mapped_v4_as_v4() {
        let a = Addresses::new(1);
        let one: IpAddr = "2001:db8::1".parse().unwrap();
        let other: IpAddr = "2001:db8::ffff:2".parse().unwrap();
        let _held = a.enter(one).unwrap();
        assert!(a.enter(other).is_none(), "the same /64");
        assert!(
            a.enter("2001:db8:0:1::1".parse().unwrap()).is_some(),
            "another /64"
        );
        let _v4 = a.enter([192, 0, 2, 1].into()).unwrap();
        assert!(
            a.enter("::ffff:192.0.2.1".parse().unwrap()).is_none(),
            "the same client"
        );
    }

    #[test]
    fn hosts_pass_as_ip_literals_localhost_or_allowed_names() {
        let allowed = vec!["play.example.org".to_owned()];
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "192.168.1.20:80",
            "[::1]",
            "[::1]:8080",
            "localhost:8080",
            "LOCALHOST",
            "play.example.org",
            "Play.Example.Org.:443",
        ] {
            assert!(host_allowed(ok, &allowed), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "x",
            "",
            ":8080",
            "127.0.0.1:80a",
            "127.0.0.1:",
            "[::1",
            "[evil]:80",
            "::1",
            "localhost.evil.example",
            "play.example.org.evil.example",
        ] {
            assert!(!host_allowed(bad, &allowed), "{bad}");
        }
    }

    #[test]
    fn an_origin_is_the_hosts_own_with_its_scheme_and_port() {
        assert!(same_origin("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(same_origin("https://play.example.org", "play.example.org"));
        assert!(same_origin("https://play.example.org", "play.example.org:443"));
        assert!(same_origin("http://[::1]:9", "[::1]:9"));
        assert!(same_origin("HTTP://LOCALHOST:80", "localhost"));
        assert!(!same_origin("http://evil.example", "127.0.0.1:8080"));
        assert!(!same_origin("http://127.0.0.1:8081", "127.0.0.1:8080"));
        assert!(!same_origin("https://play.example.org", "play.example.org:80"));
        assert!(!same_origin("null", "127.0.0.1"));
        assert!(!same_origin("file://", "127.0.0.1"));
        assert!(!same_origin("http://127.0.0.1:8080/", "127.0.0.1:8080"));
        assert!(!same_origin("http://u@127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(!same_origin("ftp://127.0.0.1:8080", "127.0.0.1:8080"));
    }

    #[test]
    fn the_last_forwarded_entry_is_the_client() {
        let mut h = HeaderMap::new();
        assert_eq!(last_forwarded(&h), None);
        h.append("x-forwarded-for", "6.6.6.6, 203.0.113.9".parse().unwrap());
        assert_eq!(last_forwarded(&h), Some([203, 0, 113, 9].into()));
        h.append("x-forwarded-for", "198.51.100.4:5123".parse().unwrap());
        assert_eq!(last_forwarded(&h), Some([198, 51, 100, 4].into()));
        h.append("x-forwarded-for", "unknown".parse().unwrap());
        assert_eq!(last_forwarded(&h), None);
    }

    #[test]
    fn lengths_above_the_limit_or_not_numbers_are_refused() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_LENGTH, v.parse().unwrap());
            content_length(&h, 4096).map_err(|r| r.status())
        };
        assert_eq!(with("4096"), Ok(()));
        assert_eq!(with("99999999999"), Err(StatusCode::PAYLOAD_TOO_LARGE));
        assert_eq!(
            with("99999999999999999999999"),
            Err(StatusCode::PAYLOAD_TOO_LARGE)
        );
        assert_eq!(with("-1"), Err(StatusCode::BAD_REQUEST));
        assert_eq!(with("12abc"), Err(StatusCode::BAD_REQUEST));
        assert_eq!(
            content_length(&HeaderMap::new(), 1).map_err(|r| r.status()),
            Ok(())
        );
    }

    #[test]
    fn only_json_posts_pass() {
        let with = |m: Method, ct: Option<&str>| {
            let mut h = HeaderMap::new();
            if let Some(ct) = ct {
                h.insert(header::CONTENT_TYPE, ct.parse().unwrap());
            }
            check_content_type(&m, &h).is_ok()
        };
        assert!(with(Method::POST, Some("application/json")));
        assert!(with(Method::POST, Some("Application/JSON; charset=utf-8")));
        assert!(!with(Method::POST, Some("text/plain")));
        assert!(!with(Method::POST, Some("application/x-www-form-urlencoded")));
        assert!(!with(Method::POST, Some("application/jsonp")));
        assert!(!with(Method::POST, None));
        assert!(with(Method::GET, None));
    }
}
