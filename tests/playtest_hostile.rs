//! The playtest server against a hostile client (issue 54, item 5): one
//! client holding thousands of sockets, floods of made-up tester ids,
//! cross-site requests, a name rebound to the server, absurd lengths and
//! numbers. Each is refused at once or shrugged off, and testers play on.

mod common;

use common::playtest::runtime;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::cli::scratch;
use common::playtest::{Client, Tester, raw, rss_kib, serve, serve_in_process, tester_id};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// These tests load a 2-core machine (thousands of sockets, 200,000
/// requests): one at a time, so no test's timing is another's load.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn addr_of(base: &str) -> SocketAddr {
    base.trim_start_matches("http://").parse().unwrap()
}

/// A connection to `addr` from the address `from` (port of the system's
/// choosing): another client, as the server counts clients.
async fn connect_from(addr: SocketAddr, from: [u8; 4]) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind((IpAddr::from(from), 0).into())?;
    socket.connect(addr).await
}

/// Sends a request's head (and body) on `s`; the answer's status, `None` if
/// the connection was closed instead (or nothing came in 5 s).
async fn ask(s: &mut TcpStream, head: &str, body: &str) -> Option<u16> {
    s.write_all(format!("{head}\r\n\r\n{body}").as_bytes())
        .await
        .ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while buf.len() < 12 {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&buf[9..12]).parse().ok()
}

/// Whether the server closes `s` within `wait` without answering.
async fn closed_within(s: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(wait, s.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// A POST of `body` to `path` as the page sends it, addressed to `host`.
fn post_head(path: &str, host: &str, body: &str, extra: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\ncontent-type: application/json\r\ncontent-length: {}{extra}",
        body.len()
    )
}

/// Whether any journal in `out` is the tester `id`'s.
fn journalled(out: &Path, id: &str) -> bool {
    std::fs::read_dir(out.join("journal"))
        .map(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().starts_with(id))
        })
        .unwrap_or(false)
}

/// One client (127.0.0.2) opens 8,000 sockets and reopens each the server
/// closes; testers on 127.0.0.1 meanwhile open a new connection for every
/// request, and at least 99 % of their requests are answered.
#[test]
fn one_client_holding_8000_sockets_leaves_the_others_served() {
    let _one = one_at_a_time();
    let files = rlimit::increase_nofile_limit(u64::MAX).unwrap();
    assert!(
        files >= 9_000,
        "this test holds 8,000 sockets; the open-file limit is {files}"
    );
    let dir = scratch("hostile-sockets");
    let served = serve(&dir.join("pt"), &["--generator", "random"]);
    let addr = addr_of(&served.base);
    let rt = runtime();
    let (answered, asked, closed) = rt.block_on(async {
        let (connected, closed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let holders: Vec<_> = (0..8_000)
            .map(|_| tokio::spawn(hold(addr, connected.clone(), closed.clone())))
            .collect();
        let started = Instant::now();
        while connected.load(Ordering::SeqCst) < 8_000 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the 8,000 sockets did not all connect"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // A new connection per request, as phones coming and going make.
        let fresh = Client {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap(),
            base: served.base.clone(),
            token: None,
        };
        let testers: Vec<_> = (0..10)
            .map(|_| {
                let c = fresh.clone();
                tokio::spawn(async move { play_for(&c, 40).await })
            })
            .collect();
        let mut answered = 0;
        for t in testers {
            answered += t.await.unwrap();
        }
        for h in holders {
            h.abort();
        }
        (answered, 400, closed.load(Ordering::SeqCst))
    });
    eprintln!(
        "8,000 sockets held from 127.0.0.2: {answered} of {asked} requests answered; {closed} sockets closed by the server"
    );
    assert!(answered * 100 >= asked * 99, "{answered} of {asked} answered");
    // The server did close the flood's sockets (it held its share only).
    assert!(
        closed >= 7_000,
        "only {closed} of the flood's sockets were closed by the server"
    );
}

/// One of the flood's sockets: connected from 127.0.0.2 and held until the
/// server closes it, then (a second later) connected again; until aborted.
async fn hold(addr: SocketAddr, connected: Arc<AtomicUsize>, closed: Arc<AtomicUsize>) {
    let mut first = true;
    loop {
        if let Ok(mut s) = connect_from(addr, [127, 0, 0, 2]).await {
            if std::mem::take(&mut first) {
                connected.fetch_add(1, Ordering::SeqCst);
            }
            let mut buf = [0u8; 512];
            // Whatever it answers (a 408 when its head never comes), until closed.
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 {
                    break;
                }
            }
            closed.fetch_add(1, Ordering::SeqCst);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A tester making `n` requests at a person's pace (joining, moving, a new
/// game when one ends): how many were answered 200.
async fn play_for(c: &Client, n: usize) -> usize {
    let id = tester_id();
    let mut tester: Option<Tester> = None;
    let mut answered = 0;
    for _ in 0..n {
        tokio::time::sleep(common::playtest::THINK).await;
        let ok = match &mut tester {
            None => match c.try_post("/api/state", &json!({ "tester": id })).await {
                Ok((200, state)) => {
                    tester = Some(Tester {
                        id: id.clone(),
                        state,
                        acked: Vec::new(),
                    });
                    true
                }
                _ => false,
            },
            Some(t) if t.state["over"] == true => {
                let body = json!({"tester": t.id, "session": t.state["session"], "game": t.state["game"]});
                match c.try_post("/api/new-game", &body).await {
                    Ok((200, state)) => {
                        t.state = state;
                        true
                    }
                    _ => false,
                }
            }
            Some(t) => matches!(c.try_play_one(t).await, Ok(Some((200, _)))),
        };
        answered += usize::from(ok);
    }
    answered
}

/// 200,000 requests with made-up ids (well-formed ones unknown to the
/// server, and 3,900-character ones) grow the server by at most 15 MB.
#[test]
fn made_up_ids_hold_no_memory() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-ids");
    let served = serve(&dir.join("pt"), &["--generator", "random"]);
    let pid = served.child.id();
    // Kept-alive connections (fewer than an address's share): no ports run out.
    let client = Client {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .build()
            .unwrap(),
        base: served.base.clone(),
        token: None,
    };
    let rt = runtime();
    let (before, after, codes) = rt.block_on(async {
        // Threads, pools and the allocator's arenas at their working size.
        flood(&client, 0, 20_000).await;
        let before = rss_kib(pid);
        let codes = flood(&client, 20_000, 200_000).await;
        (before, rss_kib(pid), codes)
    });
    let grown = after.saturating_sub(before) as f64 / 1024.0;
    eprintln!(
        "made-up ids: resident {before} KiB before 200,000 requests, {after} KiB after (+{grown:.1} MB); {codes:?}"
    );
    let want = HashMap::from([
        ((404, "unknown_tester".to_owned()), 100_000),
        ((400, "bad_request".to_owned()), 100_000),
    ]);
    assert_eq!(codes, want, "every made-up id refused for what it is");
    assert!(grown <= 15.0, "the server grew by {grown:.1} MB");
}

/// Requests `from..from + n` of a flood of made-up ids, 32 at a time: the
/// (status, code) of their answers, counted.
async fn flood(c: &Client, from: usize, n: usize) -> HashMap<(u16, String), usize> {
    let workers = 32;
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let c = c.clone();
            tokio::spawn(async move {
                let mut codes: HashMap<(u16, String), usize> = HashMap::new();
                for i in (from + w..from + n).step_by(workers) {
                    let (path, body) = made_up(i);
                    let (status, answer) = c.post(path, &body).await;
                    let code = answer["code"].as_str().unwrap_or("").to_owned();
                    *codes.entry((status, code)).or_default() += 1;
                }
                codes
            })
        })
        .collect();
    let mut all = HashMap::new();
    for t in tasks {
        for (k, v) in t.await.unwrap() {
            *all.entry(k).or_default() += v;
        }
    }
    all
}

/// The `i`th made-up request: a move or a new game for a well-formed id the
/// server never saw, or a move or an arrival for a 3,900-character id.
fn made_up(i: usize) -> (&'static str, Value) {
    let well_formed = format!("{:016x}{:016x}", i, 0x5eed_u64 ^ std::process::id() as u64);
    let long = format!("{i:a>3900}");
    match i % 4 {
        0 => ("/api/move", move_body(&well_formed, 1)),
        1 => (
            "/api/new-game",
            json!({"tester": well_formed, "session": 0, "game": 0}),
        ),
        2 => ("/api/move", move_body(&long, 1)),
        _ => ("/api/state", json!({ "tester": long })),
    }
}

fn move_body(id: &str, ms: u64) -> Value {
    json!({"tester": id, "session": 0, "game": 0, "seen": 0, "slot": 0, "x": 0, "y": 0, "ms": ms})
}

/// A POST a cross-site page can send without asking (text/plain, a form)
/// is refused 415, and nothing of it is kept; the same as JSON is taken.
#[test]
fn a_post_not_declared_json_is_refused_and_changes_nothing() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-content-type");
    let out = dir.join("pt");
    let served = serve(&out, &["--generator", "random"]);
    let id = tester_id();
    let body = json!({ "tester": id }).to_string();
    runtime().block_on(async {
        let http = reqwest::Client::new();
        for ct in [
            Some("text/plain"),
            Some("text/plain;charset=UTF-8"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            None,
        ] {
            let mut req = http.post(format!("{}/api/state", served.base)).body(body.clone());
            if let Some(ct) = ct {
                req = req.header("content-type", ct);
            }
            let r = req.send().await.unwrap();
            assert_eq!(r.status().as_u16(), 415, "{ct:?}");
            let answer: Value = r.json().await.unwrap();
            assert_eq!(answer["code"], "content_type", "{answer}");
            assert!(
                answer["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("application/json")),
                "{answer}"
            );
        }
        assert!(!journalled(&out, &id), "a refused request made a journal");
        // The same body declared JSON arrives: the tester's journal is made.
        served.client().join(&id).await;
        assert!(journalled(&out, &id));
    });
}

/// Nothing of the link's query is written into the page: the page carries
/// the server's own token, whatever else the query holds.
#[test]
fn nothing_in_the_link_is_written_into_the_page() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-reflect");
    let served = serve(&dir.join("pt"), &["--generator", "random", "--token"]);
    let token = served.token.clone().unwrap();
    let open = serve_in_process(&dir.join("open"), |_| {});
    runtime().block_on(async {
        let page = |url: String| async move {
            let r = reqwest::get(url).await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        };
        let markup = "<script>alert(1)</script>";
        for query in [
            format!("t={token}&t={markup}"),
            format!("t={token}&t=%22%3E%3Cscript%3Ealert(1)%3C/script%3E"),
            format!("t={token}&x={markup}"),
        ] {
            let (status, html) = page(format!("{}/?{query}", served.base)).await;
            assert_eq!(status, 200, "{query}: {html}");
            assert!(!html.contains("alert(1)"), "{query} is reflected: {html}");
            assert!(html.contains(&format!("data-token=\"{token}\"")), "{html}");
        }
        // A wrong token is refused, and not echoed either.
        let (status, answer) = page(format!("{}/?t={markup}", served.base)).await;
        assert_eq!(status, 403);
        assert!(!answer.contains("alert(1)"), "{answer}");
        // Without a token the page carries none, whatever `t` says.
        let (status, html) = page(format!("{}/?t={markup}", open.base)).await;
        assert_eq!(status, 200);
        assert!(!html.contains("alert(1)"), "{html}");
        assert!(html.contains("data-token=\"\""), "{html}");
    });
}

/// A request from a page of another origin is refused 403 (and keeps
/// nothing); one from the server's own page is served.
#[test]
fn a_cross_origin_request_is_refused() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-origin");
    let out = dir.join("pt");
    let served = serve(&out, &["--generator", "random"]);
    runtime().block_on(async {
        let http = reqwest::Client::new();
        let arrive = |origin: String, id: String| {
            let req = http
                .post(format!("{}/api/state", served.base))
                .header("content-type", "application/json")
                .header("origin", origin)
                .body(json!({ "tester": id }).to_string());
            async move {
                let r = req.send().await.unwrap();
                let status = r.status().as_u16();
                (status, r.json::<Value>().await.unwrap())
            }
        };
        let port = addr_of(&served.base).port();
        for origin in [
            "http://evil.example".to_owned(),
            format!("http://evil.example:{port}"),
            format!("http://127.0.0.1:{}", port + 1),
            "null".to_owned(),
        ] {
            let id = tester_id();
            let (status, answer) = arrive(origin.clone(), id.clone()).await;
            assert_eq!(status, 403, "{origin}: {answer}");
            assert_eq!(answer["code"], "origin", "{answer}");
            assert!(
                !journalled(&out, &id),
                "{origin}: a refused request made a journal"
            );
        }
        let id = tester_id();
        let (status, answer) = arrive(served.base.clone(), id.clone()).await;
        assert_eq!(status, 200, "{answer}");
        assert!(journalled(&out, &id));
    });
}

/// A request addressed to a name the server was not given (a DNS rebinding
/// of an attacker's name) is refused, the answer naming `--allow-host`;
/// IP literals, localhost and the names allowed pass.
#[test]
fn a_foreign_host_is_refused() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-host");
    let out = dir.join("pt");
    let served = serve(&out, &["--generator", "random"]);
    let addr = addr_of(&served.base);
    let wait = Duration::from_secs(5);
    let (status, text) = raw(addr, "GET / HTTP/1.1\r\nHost: evil.example", b"", wait);
    assert_eq!(status, 421, "{text}");
    assert!(
        text.contains("evil.example") && text.contains("--allow-host evil.example"),
        "{text}"
    );
    let id = tester_id();
    let body = json!({ "tester": id }).to_string();
    let (status, text) = raw(
        addr,
        &post_head("/api/state", &format!("evil.example:{}", addr.port()), &body, ""),
        body.as_bytes(),
        wait,
    );
    assert_eq!(status, 421, "{text}");
    assert!(text.contains("\"code\":\"host\""), "{text}");
    assert!(!journalled(&out, &id), "a refused request made a journal");
    for host in [
        addr.to_string(),
        format!("localhost:{}", addr.port()),
        "127.0.0.1".to_owned(),
    ] {
        let (status, text) = raw(addr, &format!("GET / HTTP/1.1\r\nHost: {host}"), b"", wait);
        assert_eq!(status, 200, "{host}: {text}");
    }
    // A name the designer allowed (the proxy's public name) passes.
    let named = serve_in_process(&dir.join("named"), |c| {
        c.allowed_hosts = vec!["play.example.org".into()]
    });
    let (status, text) = raw(named.addr, "GET / HTTP/1.1\r\nHost: Play.Example.Org", b"", wait);
    assert_eq!(status, 200, "{text}");
    let (status, text) = raw(named.addr, "GET / HTTP/1.1\r\nHost: evil.example", b"", wait);
    assert_eq!(status, 421, "{text}");
}

/// A declared body far above the limit is answered 413 at once (its bytes
/// are never awaited); a length that is no number is a 400.
#[test]
fn an_oversized_content_length_is_answered_at_once() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-length");
    let served = serve(&dir.join("pt"), &["--generator", "random"]);
    let addr = addr_of(&served.base);
    let head = |length: &str| {
        format!(
            "POST /api/move HTTP/1.1\r\nHost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {length}"
        )
    };
    let started = Instant::now();
    let (status, text) = raw(addr, &head("99999999999"), b"", Duration::from_secs(5));
    let took = started.elapsed();
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("\"code\":\"body\""), "{text}");
    assert!(took < Duration::from_secs(1), "answered after {took:?}");
    let (status, text) = raw(addr, &head("12abc"), b"", Duration::from_secs(5));
    assert_eq!(status, 400, "{text}");
}

/// A move's time above a day (2^64 - 1 ms here) is refused 400, naming the
/// field and its bound, and nothing is written; a day itself is taken.
#[test]
fn an_absurd_move_time_is_refused() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-ms");
    let out = dir.join("pt");
    let served = serve(&out, &["--generator", "random"]);
    let client = served.client();
    runtime().block_on(async {
        let t = client.join(&tester_id()).await;
        let journal = out.join("journal").join(format!("{}-s0.journal", t.id));
        let written = std::fs::metadata(&journal).unwrap().len();
        let (slot, x, y, _) = common::playtest::first_fit(&t.state).unwrap();
        let mv = |ms: u64| {
            json!({"tester": t.id, "session": t.state["session"], "game": t.state["game"],
                   "seen": t.state["moves"], "slot": slot, "x": x, "y": y, "ms": ms})
        };
        let (status, answer) = client.post("/api/move", &mv(u64::MAX)).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["code"], "malformed", "{answer}");
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains("ms") && error.contains("86400000"), "{error}");
        assert_eq!(
            std::fs::metadata(&journal).unwrap().len(),
            written,
            "a refused move was written"
        );
        let (status, answer) = client.post("/api/move", &mv(24 * 3600 * 1000)).await;
        assert_eq!(status, 200, "{answer}");
    });
}

/// With a share of 2 connections an address: a third from the same address
/// is closed at once (another address is served meanwhile), a slot given
/// back is taken again, and the trusted proxy's own connections are not
/// counted.
#[test]
fn connections_are_capped_per_address_but_not_the_proxys() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-per-address");
    let server = serve_in_process(&dir.join("pt"), |c| {
        c.limits.per_address = 2;
        c.trusted_proxy = Some([127, 0, 0, 3].into());
    });
    let addr = server.addr;
    let get = format!("GET /page.css HTTP/1.1\r\nHost: {addr}");
    runtime().block_on(async {
        let mut a = connect_from(addr, [127, 0, 0, 2]).await.unwrap();
        let mut b = connect_from(addr, [127, 0, 0, 2]).await.unwrap();
        assert_eq!(ask(&mut a, &get, "").await, Some(200));
        assert_eq!(ask(&mut b, &get, "").await, Some(200));
        let mut third = connect_from(addr, [127, 0, 0, 2]).await.unwrap();
        assert!(
            closed_within(&mut third, Duration::from_secs(2)).await,
            "a third connection was kept"
        );
        let mut other = connect_from(addr, [127, 0, 0, 1]).await.unwrap();
        assert_eq!(
            ask(&mut other, &get, "").await,
            Some(200),
            "another address is served"
        );
        drop(a);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut again = connect_from(addr, [127, 0, 0, 2]).await.unwrap();
        assert_eq!(
            ask(&mut again, &get, "").await,
            Some(200),
            "a slot given back is taken"
        );
        let mut proxied = Vec::new();
        for _ in 0..6 {
            let mut s = connect_from(addr, [127, 0, 0, 3]).await.unwrap();
            assert_eq!(
                ask(&mut s, &get, "").await,
                Some(200),
                "the proxy's connections are not capped"
            );
            proxied.push(s);
        }
        drop((b, again));
    });
}

/// Behind the trusted proxy a client is the last `X-Forwarded-For` entry:
/// its requests in flight count against its share (2 here), whatever it
/// forged before that entry; from anyone else the header is ignored.
#[test]
fn a_client_behind_the_proxy_is_its_last_forwarded_address() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-forwarded");
    let server = serve_in_process(&dir.join("pt"), |c| {
        c.limits.per_address = 2;
        c.trusted_proxy = Some([127, 0, 0, 3].into());
    });
    let addr = server.addr;
    let host = addr.to_string();
    let body = |id: &str| json!({ "tester": id }).to_string();
    let via = |forwarded: &str, body: &str| {
        post_head(
            "/api/state",
            &host,
            body,
            &format!("\r\nx-forwarded-for: {forwarded}"),
        )
    };
    runtime().block_on(async {
        // Two requests of 203.0.113.9 in flight: their bodies half sent.
        let mut slow = Vec::new();
        for _ in 0..2 {
            let b = body(&tester_id());
            let mut s = connect_from(addr, [127, 0, 0, 3]).await.unwrap();
            s.write_all(format!("{}\r\n\r\n{}", via("6.6.6.6, 203.0.113.9", &b), &b[..5]).as_bytes())
                .await
                .unwrap();
            slow.push((s, b));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let status = |forwarded: &'static str, from: [u8; 4]| {
            let b = body(&tester_id());
            let head = via(forwarded, &b);
            async move {
                let mut s = connect_from(addr, from).await.unwrap();
                ask(&mut s, &head, &b).await
            }
        };
        assert_eq!(
            status("203.0.113.9", [127, 0, 0, 3]).await,
            Some(429),
            "a third of the client's"
        );
        assert_eq!(
            status("10.1.1.1, 203.0.113.9", [127, 0, 0, 3]).await,
            Some(429),
            "a forged first entry"
        );
        assert_eq!(
            status("203.0.113.9, 10.1.1.1", [127, 0, 0, 3]).await,
            Some(200),
            "another client"
        );
        assert_eq!(
            status("203.0.113.9", [127, 0, 0, 1]).await,
            Some(200),
            "not from the proxy"
        );
        // The slow requests finish: the client's share is free again.
        for (mut s, b) in slow {
            s.write_all(&b.as_bytes()[5..]).await.unwrap();
            let mut buf = [0u8; 12];
            s.read_exact(&mut buf).await.unwrap();
            assert_eq!(&buf[9..12], b"200");
        }
        assert_eq!(status("203.0.113.9", [127, 0, 0, 3]).await, Some(200));
    });
}

/// Behind a proxy that rewrites `Host` (to the server's address) and names
/// the browser's in `X-Forwarded-Host`, that name is the one checked (it
/// must be allowed, and the page's `Origin` is its); from anyone else the
/// header is ignored.
#[test]
fn behind_the_proxy_the_forwarded_host_is_checked() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-forwarded-host");
    let server = serve_in_process(&dir.join("pt"), |c| {
        c.trusted_proxy = Some([127, 0, 0, 3].into());
        c.allowed_hosts = vec!["play.example.org".into()];
    });
    let addr = server.addr;
    runtime().block_on(async {
        let proxy = [127, 0, 0, 3];
        assert_eq!(from_page(addr, proxy, "play.example.org").await, Some(200));
        assert_eq!(
            from_page(addr, proxy, "evil.example").await,
            Some(421),
            "a name not allowed"
        );
        assert_eq!(
            from_page(addr, [127, 0, 0, 1], "play.example.org").await,
            Some(403),
            "not from the proxy"
        );
    });
}

/// The page at https://play.example.org arriving, its request addressed to
/// the server's own address with `forwarded_host` named, sent from `from`.
async fn from_page(addr: SocketAddr, from: [u8; 4], forwarded_host: &str) -> Option<u16> {
    let body = json!({ "tester": tester_id() }).to_string();
    let extra = format!(
        "\r\norigin: https://play.example.org\r\nx-forwarded-host: {forwarded_host}\r\nx-forwarded-for: 203.0.113.9"
    );
    let mut s = connect_from(addr, from).await.unwrap();
    ask(
        &mut s,
        &post_head("/api/state", &addr.to_string(), &body, &extra),
        &body,
    )
    .await
}

/// The server raises its soft open-file limit to the hard one, and holds no
/// more connections than fit under it (room kept for the journals).
#[test]
fn the_connection_cap_fits_under_the_open_file_limit() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-capacity");
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
    // Lowered here (no other test runs now); the server raises it again.
    rlimit::setrlimit(rlimit::Resource::NOFILE, 512.min(hard), hard).unwrap();
    let huge = serve_in_process(&dir.join("huge"), |c| c.limits.connections = 100_000_000);
    let (soft, _) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
    assert_eq!(soft, hard, "the soft limit is raised to the hard");
    assert_eq!(huge.capacity.open_files, hard);
    let connections = huge.capacity.connections as u64;
    assert!(connections > 0 && connections + 64 <= hard, "{:?}", huge.capacity);
    let small = serve_in_process(&dir.join("small"), |c| c.limits.connections = 100);
    assert_eq!(
        small.capacity.connections, 100,
        "a limit under the files' is kept"
    );
}

/// One client making up ids as fast as it can is held to its address's
/// share of arrivals (10 a second, 120 at once): a tester arriving from
/// another address meanwhile gets in at once.
#[test]
fn one_client_making_up_ids_cannot_take_every_arrival() {
    let _one = one_at_a_time();
    let dir = scratch("hostile-arrivals");
    let served = serve(&dir.join("pt"), &["--generator", "random"]);
    let rt = runtime();
    rt.block_on(async {
        let flooder = Client {
            http: reqwest::Client::builder()
                .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
                .build()
                .unwrap(),
            base: served.base.clone(),
            token: None,
        };
        let started = std::time::Instant::now();
        let mut admitted = 0;
        let mut busy = 0;
        while started.elapsed() < Duration::from_secs(2) {
            let calls: Vec<_> = (0..16)
                .map(|_| {
                    let c = flooder.clone();
                    tokio::spawn(async move { c.post("/api/state", &json!({ "tester": tester_id() })).await })
                })
                .collect();
            for c in calls {
                let (status, body) = c.await.unwrap();
                match (status, body["code"].as_str()) {
                    (200, _) => admitted += 1,
                    (503, Some("busy")) => busy += 1,
                    other => panic!("{other:?}: {body}"),
                }
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        assert!(
            f64::from(admitted) <= 120.0 + 10.0 * seconds + 1.0,
            "{admitted} testers from one address in {seconds:.1} s"
        );
        assert!(busy > 0, "the flood was held back");
        // Another address arrives at once.
        let (status, body) = served
            .client()
            .post("/api/state", &json!({ "tester": tester_id() }))
            .await;
        assert_eq!(status, 200, "{body}");
    });
}
