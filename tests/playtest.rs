//! The playtest server with its real parts: the binary over HTTP, many
//! testers at once, a SIGKILL mid-play, and every kind of bad request.

mod common;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::time::Duration;

use common::cli::{run_ok, scratch};
use common::playtest::{Client, Tester, logged_moves, serve, tester_id};
use serde_json::json;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// 100 testers at once, each a whole game: every acknowledged move is in
/// the logs once, in order; the folder fits and reports.
#[test]
fn a_hundred_testers_at_once_lose_nothing() {
    let dir = scratch("playtest-load");
    let out = dir.join("pt");
    let served = serve(
        &out,
        &["--generator", "block-blast-like", "--generator", "random"],
    );
    let client = served.client();
    let testers: Vec<Tester> = runtime().block_on(async {
        let tasks: Vec<_> = (0..100)
            .map(|_| {
                let c = client.clone();
                tokio::spawn(async move {
                    let mut t = c.join(&tester_id()).await;
                    c.play_game(&mut t).await;
                    t
                })
            })
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await.unwrap());
        }
        all
    });
    let mut moves = 0;
    for t in &testers {
        assert!(t.state["over"].as_bool().unwrap());
        assert!(!t.acked.is_empty());
        // The game ended in its last deal: the log holds all of it.
        assert_eq!(logged_moves(&out, &t.id), t.acked, "tester {}", t.id);
        moves += t.acked.len();
    }
    // Assigned alternately: 50 and 50.
    let status = run_ok(&["playtest", "status", out.to_str().unwrap()]);
    assert!(
        status.contains(&format!(
            "testers=100 sessions=100 open=100 games=100 moves={moves} "
        )),
        "{status}"
    );
    assert!(
        status.contains("generator=block-blast-like testers=50 "),
        "{status}"
    );
    assert!(status.contains("generator=random testers=50 "), "{status}");
    // The blind test's arm is in every log line; the fit reads the folder.
    let fit = run_ok(&["fit-player", out.to_str().unwrap()]);
    assert!(fit.contains(&format!("moves={moves}")), "{fit}");
    let population = dir.join("testers.ron");
    let fit = run_ok(&[
        "fit-population",
        out.to_str().unwrap(),
        "--out",
        population.to_str().unwrap(),
    ]);
    assert!(
        fit.contains(&format!("testers=100 moves={moves} games=100")),
        "{fit}"
    );
}

/// SIGKILL while 20 testers play: on restart every acknowledged move is
/// there, none twice, every game resumes with the same holder, and the
/// logs parse line by line (a torn last line is cut off and reported).
#[test]
fn a_kill_mid_play_loses_no_acknowledged_move() {
    let dir = scratch("playtest-crash");
    let out = dir.join("pt");
    let mut served = serve(&out, &["--generator", "repair"]);
    let client = served.client();
    let rt = runtime();
    let ids: Vec<String> = (0..20).map(|_| tester_id()).collect();
    // Testers play until the server dies under them.
    let tasks: Vec<_> = ids
        .iter()
        .map(|id| {
            let (c, id) = (client.clone(), id.clone());
            rt.spawn(async move {
                let mut t = c.join(&id).await;
                loop {
                    tokio::time::sleep(common::playtest::THINK).await;
                    match c.try_play_one(&mut t).await {
                        Ok(Some((200, _))) => {}
                        Ok(Some((s, v))) => panic!("{s}: {v}"),
                        Ok(None) => {
                            let body = json!({"tester": t.id, "session": t.state["session"], "game": t.state["game"]});
                            match c.try_post("/api/new-game", &body).await {
                                Ok((200, v)) => t.state = v,
                                Ok((s, v)) => panic!("{s}: {v}"),
                                Err(_) => break,
                            }
                        }
                        // The server died under the request.
                        Err(_) => break,
                    }
                }
                t
            })
        })
        .collect();
    // Wait for a few hundred moves, then kill.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let journal = out.join("journal");
        let bytes: u64 = std::fs::read_dir(&journal)
            .map(|d| d.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum())
            .unwrap_or(0);
        if bytes > 60_000 || std::time::Instant::now() > deadline {
            break;
        }
    }
    served.kill();
    let testers: Vec<Tester> = rt.block_on(async {
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await.unwrap());
        }
        all
    });
    let acked: usize = testers.iter().map(|t| t.acked.len()).sum();
    assert!(
        acked > 100,
        "only {acked} moves were acknowledged before the kill"
    );
    // A crash can leave a half-written line; make one at a journal's end
    // and a log's, as a kill mid-write would.
    let victim = &testers[0].id;
    let journal = out.join("journal").join(format!("{victim}-s0.journal"));
    std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap()
        .write_all(b"{\"e\":\"move\",\"game\":0,\"sl")
        .unwrap();
    let before_status = run_ok(&["playtest", "status", out.to_str().unwrap()]);
    assert!(before_status.contains("cut short"), "{before_status}");
    // Restart on the same folder.
    let served = serve(&out, &["--generator", "repair"]);
    let stderr_wait = std::time::Instant::now();
    while !served.stderr().contains("cut short") && stderr_wait.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(served.stderr().contains("cut short"), "{}", served.stderr());
    let client = served.client();
    rt.block_on(async {
        for t in &testers {
            // The same game, at the acknowledged move or one past it (a move
            // made durable whose answer the kill cut off).
            let back = client.join(&t.id).await;
            let made = back.state["moves"].as_u64().unwrap();
            let seen = t.state["moves"].as_u64().unwrap();
            assert_eq!(back.state["game"], t.state["game"], "tester {}", t.id);
            assert!(
                made == seen || made == seen + 1,
                "tester {}: {made} vs {seen}",
                t.id
            );
            if made == seen {
                assert_eq!(
                    back.state["holder"], t.state["holder"],
                    "the same holder on reload"
                );
                assert_eq!(back.state["board"], t.state["board"]);
            }
        }
    });
    // Everyone plays their game to its end; then every acknowledged move is
    // in the logs, in order, once.
    let finished: Vec<(Tester, Vec<common::playtest::Acked>)> = rt.block_on(async {
        let mut all = Vec::new();
        for t in testers {
            let mut again = client.join(&t.id).await;
            client.play_game(&mut again).await;
            all.push((t, again.acked));
        }
        all
    });
    for (t, after) in &finished {
        let logged = logged_moves(&out, &t.id);
        assert_eq!(&logged[..t.acked.len()], &t.acked[..], "tester {}", t.id);
        let rest = &logged[t.acked.len()..];
        // At most one move past the acknowledged ones (durable, unanswered),
        // then exactly what was played after the restart.
        assert!(
            rest.len() == after.len() || rest.len() == after.len() + 1,
            "tester {}",
            t.id
        );
        assert_eq!(&rest[rest.len() - after.len()..], &after[..], "tester {}", t.id);
    }
    // Every log parses line by line, and fits.
    let fit = run_ok(&["fit-player", out.to_str().unwrap()]);
    assert!(!fit.is_empty());
}

/// Every kind of bad request gets its error and writes nothing; another
/// tester plays on throughout.
#[test]
fn bad_requests_get_their_errors_and_change_nothing() {
    let dir = scratch("playtest-bad");
    let out = dir.join("pt");
    let served = serve(&out, &["--generator", "random", "--token"]);
    let client = served.client();
    let rt = runtime();
    rt.block_on(async {
        let mut t = client.join(&tester_id()).await;
        let journal = out.join("journal").join(format!("{}-s0.journal", t.id));
        let size = || std::fs::metadata(&journal).unwrap().len();
        let mv = |t: &Tester, slot: u64, x: u64, y: u64| {
            json!({"tester": t.id, "session": t.state["session"], "game": t.state["game"],
                   "seen": t.state["moves"], "slot": slot, "x": x, "y": y, "ms": 10})
        };
        let refused = |(status, body): (u16, serde_json::Value), want: u16, code: &str| {
            assert_eq!(status, want, "{body}");
            assert_eq!(body["code"], code, "{body}");
            assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
        };
        let written = size();
        refused(client.post_raw("/api/move", b"{\"tester\": ".to_vec()).await, 400, "malformed");
        refused(client.post_raw("/api/move", b"[1,2,3]".to_vec()).await, 400, "malformed");
        refused(client.post("/api/move", &mv(&t, 7, 0, 0)).await, 400, "no_slot");
        refused(client.post("/api/move", &mv(&t, 0, 10, 0)).await, 400, "out_of_bounds");
        // A 10 MB body is refused unread: the answer comes before the body
        // is sent (and a client that sends it anyway is cut off).
        let addr = client.base.trim_start_matches("http://").to_owned();
        let token = served.token.clone().unwrap();
        let answer = tokio::task::spawn_blocking(move || {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            write!(
                s,
                "POST /api/move HTTP/1.1\r\nHost: x\r\nx-playtest-token: {token}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                10 << 20
            )
            .unwrap();
            let _ = s.write_all(&[b' '; 65536]);
            let mut buf = vec![0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            String::from_utf8_lossy(&buf[..n]).into_owned()
        })
        .await
        .unwrap();
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        assert!(answer.contains("\"code\":\"body\""), "{answer}");
        for bad in ["../../../etc/passwd", "0123456789abcdef0123456789abcde\u{0}", ""] {
            refused(client.post("/api/state", &json!({"tester": bad})).await, 400, "bad_request");
            let mut m = mv(&t, 0, 0, 0);
            m["tester"] = json!(bad);
            refused(client.post("/api/move", &m).await, 400, "bad_request");
        }
        let mut m = mv(&t, 0, 0, 0);
        m["session"] = json!(9);
        refused(client.post("/api/move", &m).await, 404, "unknown_session");
        let mut m = mv(&t, 0, 0, 0);
        m["tester"] = json!(tester_id());
        refused(client.post("/api/move", &m).await, 404, "unknown_tester");
        assert_eq!(size(), written, "nothing is written for a refused request");
        // A good move, then the same move again (replayed), a move of the
        // piece placed, one on the cells it filled, and a stale game.
        let (slot, x, y, _) = common::playtest::first_fit(&t.state).unwrap();
        let first = mv(&t, slot as u64, x as u64, y as u64);
        let (s, v) = client.post("/api/move", &first).await;
        assert_eq!(s, 200, "{v}");
        t.state = v["state"].clone();
        let written = size();
        refused(client.post("/api/move", &first).await, 409, "stale");
        refused(client.post("/api/move", &mv(&t, slot as u64, 0, 0)).await, 409, "placed_already");
        let other = (0..3).find(|&s| s != slot && !t.state["holder"][s].is_null()).unwrap();
        let filled = t.state["board"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .find_map(|(yy, r)| r.as_str().unwrap().find('#').map(|xx| (xx, yy)))
            .unwrap();
        refused(
            client.post("/api/move", &mv(&t, other as u64, filled.0 as u64, filled.1 as u64)).await,
            409,
            "filled",
        );
        let mut m = mv(&t, other as u64, 0, 0);
        m["game"] = json!(5);
        refused(client.post("/api/move", &m).await, 409, "stale");
        assert_eq!(size(), written, "nothing is written for a refused request");
        // No token, a wrong one.
        let none = Client::new(&client.base, None);
        refused(none.post("/api/state", &json!({"tester": t.id})).await, 403, "token");
        let wrong = Client::new(&client.base, Some("0".repeat(32)));
        refused(wrong.post("/api/state", &json!({"tester": t.id})).await, 403, "token");
        let page = reqwest::get(format!("{}/", client.base)).await.unwrap();
        assert_eq!(page.status().as_u16(), 403);
        let page = reqwest::get(served.link.clone()).await.unwrap();
        assert_eq!(page.status().as_u16(), 200);
        assert!(page.text().await.unwrap().contains("<canvas"));

        // One tester floods (10,000 requests, as fast as it can); another
        // plays a whole game meanwhile.
        let flooder = client.join(&tester_id()).await;
        let flood = {
            let c = client.clone();
            let body = json!({"tester": flooder.id});
            tokio::spawn(async move {
                let mut codes: HashMap<u16, usize> = HashMap::new();
                let mut tasks = tokio::task::JoinSet::new();
                for i in 0..10_000 {
                    let (c, body) = (c.clone(), body.clone());
                    tasks.spawn(async move { c.post("/api/state", &body).await.0 });
                    if i % 200 == 199 {
                        while let Some(code) = tasks.join_next().await {
                            *codes.entry(code.unwrap()).or_default() += 1;
                        }
                    }
                }
                while let Some(code) = tasks.join_next().await {
                    *codes.entry(code.unwrap()).or_default() += 1;
                }
                codes
            })
        };
        let mut calm = client.join(&tester_id()).await;
        let made = client.play_game(&mut calm).await;
        assert!(made > 0);
        let codes = flood.await.unwrap();
        assert_eq!(codes.values().sum::<usize>(), 10_000);
        assert!(codes.get(&429).copied().unwrap_or(0) > 9_000, "{codes:?}");
        assert!(codes.keys().all(|c| *c == 200 || *c == 429), "{codes:?}");
    });
    // Connections that send nothing are cut off; the server still serves.
    let addr = served.base.trim_start_matches("http://").to_owned();
    let mut idle: Vec<std::net::TcpStream> = (0..20)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    let mut slow = std::net::TcpStream::connect(&addr).unwrap();
    slow.write_all(b"POST /api/state HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let started = std::time::Instant::now();
    for s in idle.iter_mut().chain(std::iter::once(&mut slow)) {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = [0u8; 256];
        // Closed (0 bytes, or a reset), or a 408 and then closed: never held open.
        let n = s.read(&mut buf).unwrap_or(0);
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(n == 0 || text.starts_with("HTTP/1.1 408"), "{text}");
    }
    assert!(started.elapsed() < Duration::from_secs(30));
    rt.block_on(async {
        let t = client.join(&tester_id()).await;
        assert_eq!(t.state["moves"], 0);
    });
}

/// Debian's Chromium and its driver (`.ci/run` installs both).
fn chromium() -> (String, String) {
    let find = |names: &[&str]| {
        names
            .iter()
            .find(|p| std::path::Path::new(p).exists())
            .map(|p| p.to_string())
    };
    let browser = find(&["/usr/bin/chromium", "/usr/bin/chromium-browser"]);
    let driver = find(&["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]);
    match (browser, driver) {
        (Some(b), Some(d)) => (b, d),
        _ => panic!(
            "the browser test needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver (.ci/run does)"
        ),
    }
}

/// A WebDriver session on a 360x640 phone (touch), Chromium headless and
/// offline, its profile fresh.
async fn phone(port: u16, browser: &str, profile: &std::path::Path) -> fantoccini::Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": browser,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                format!("--user-data-dir={}", profile.display()),
            ],
            "mobileEmulation": {"deviceMetrics": {"width": 360, "height": 640, "pixelRatio": 2.0, "touch": true}},
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    fantoccini::ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("chromedriver starts a session")
}

/// Polls `script` (a JS expression) until it is true, up to 10 s.
async fn until(c: &fantoccini::Client, script: &str) {
    let give_up = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let v = c.execute(&format!("return !!({script});"), vec![]).await.unwrap();
        if v == json!(true) {
            return;
        }
        assert!(
            std::time::Instant::now() < give_up,
            "the page never reached {script}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A whole game by touch drags in a real Chromium at 360x640: the log holds
/// exactly those moves and fits, and a reload resumes the game.
#[test]
fn a_whole_game_by_touch_in_chromium() {
    let (browser, driver) = chromium();
    let dir = scratch("playtest-browser");
    let out = dir.join("pt");
    let served = serve(&out, &["--generator", "block-blast-like"]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut chromedriver = std::process::Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromedriver runs");
    let up = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            up.elapsed() < Duration::from_secs(20),
            "chromedriver never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let rt = runtime();
    let (tester, placed) = rt.block_on(async {
        let c = phone(port, &browser, &dir.join("profile")).await;
        c.goto(&served.link).await.unwrap();
        until(&c, "window.playtest && window.playtest.state()").await;
        let width = c.execute("return window.innerWidth;", vec![]).await.unwrap();
        assert_eq!(width, json!(360), "the page is laid out for the phone");
        let tester = c
            .execute("return localStorage.getItem('tenten.tester');", vec![])
            .await
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned();
        let mut placed = Vec::new();
        loop {
            let state = c
                .execute("return window.playtest.state();", vec![])
                .await
                .unwrap();
            if state["over"] == json!(true) {
                break;
            }
            let (slot, x, y, piece) = common::playtest::first_fit(&state).unwrap();
            let path = c
                .execute(
                    "return window.playtest.dragPath(arguments[0], arguments[1], arguments[2], 'touch');",
                    vec![json!(slot), json!(x), json!(y)],
                )
                .await
                .unwrap();
            let at = |k: &str, i: usize| path[k][i].as_f64().unwrap();
            use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, PointerAction, TouchActions};
            let step = |d: u64, x: f64, y: f64| PointerAction::MoveTo {
                duration: Some(Duration::from_millis(d)),
                x,
                y,
            };
            let finger = TouchActions::new("finger".into())
                .then(step(0, at("from", 0), at("from", 1)))
                .then(PointerAction::Down {
                    button: MOUSE_BUTTON_LEFT,
                })
                .then(step(
                    80,
                    (at("from", 0) + at("to", 0)) / 2.0,
                    (at("from", 1) + at("to", 1)) / 2.0,
                ))
                .then(step(80, at("to", 0), at("to", 1)))
                .then(PointerAction::Up {
                    button: MOUSE_BUTTON_LEFT,
                });
            c.perform_actions(finger).await.unwrap();
            let moves = state["moves"].as_u64().unwrap();
            until(
                &c,
                &format!(
                    "Number(document.body.dataset.moves) === {} && !window.playtest.busy()",
                    moves + 1
                ),
            )
            .await;
            placed.push((0u32, state["game"].as_u64().unwrap(), piece, x, y));
            if placed.len() == 4 {
                // The guide's picture of the page, mid-game.
                let png = c.screenshot().await.unwrap();
                assert_eq!(&png[1..4], b"PNG");
                let keep = if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
                    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/playtest-page.png")
                } else {
                    dir.join("page.png")
                };
                std::fs::write(keep, png).unwrap();
                // A reload resumes the same game: the same holder and board.
                let before = c
                    .execute("return window.playtest.state();", vec![])
                    .await
                    .unwrap();
                c.refresh().await.unwrap();
                until(&c, "window.playtest && window.playtest.state()").await;
                let after = c
                    .execute("return window.playtest.state();", vec![])
                    .await
                    .unwrap();
                for k in ["session", "game", "moves", "board", "holder", "score"] {
                    assert_eq!(after[k], before[k], "{k} after a reload");
                }
            }
        }
        assert!(placed.len() >= 4, "a whole game: {} moves", placed.len());
        let shown = c
            .execute("return !document.getElementById('over').hidden;", vec![])
            .await
            .unwrap();
        assert_eq!(shown, json!(true), "'no more moves' is shown");
        c.close().await.unwrap();
        (tester, placed)
    });
    let _ = chromedriver.kill();
    let _ = chromedriver.wait();
    assert_eq!(logged_moves(&out, &tester), placed);
    let fit = run_ok(&["fit-player", out.to_str().unwrap()]);
    assert!(fit.contains(&format!("moves={}", placed.len())), "{fit}");
}
