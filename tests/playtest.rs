//! The playtest server with its real parts: the binary over HTTP, many
//! testers at once, a SIGKILL mid-play, and every kind of bad request.

mod common;

use common::playtest::runtime;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::time::Duration;

use common::cli::{run_ok, scratch};
use common::playtest::{Client, Tester, logged_moves, serve, tester_id};
use serde_json::json;

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
    let stderr = served.stderr_when(|s| s.contains("cut short"));
    assert!(stderr.contains("cut short"), "{stderr}");
    let client = served.client();
    rt.block_on(async {
        for t in &testers {
            // The same game, at the acknowledged move or one past it (a move
            // made durable whose answer the kill cut off).
            let back = client.join(&t.id).await;
            let made = back.state["moves"].as_u64().unwrap();
            let seen = t.state["moves"].as_u64().unwrap();
            let (game, seen_game) = (
                back.state["game"].as_u64().unwrap(),
                t.state["game"].as_u64().unwrap(),
            );
            if game == seen_game + 1 {
                // Or the next game: a new game made durable whose answer
                // the kill cut off (asked for only when one was over, and
                // nothing played in it yet). Under load the kill lands
                // there now and then.
                assert_eq!(t.state["over"], true, "tester {}", t.id);
                assert_eq!(made, 0, "tester {}", t.id);
                continue;
            }
            assert_eq!(game, seen_game, "tester {}", t.id);
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

        // One tester floods (10,000 requests, as fast as it can, 100 at once:
        // within its address's share of connections); another plays a
        // whole game meanwhile.
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
                    if i % 100 == 99 {
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

/// chromedriver on a free port, stopped when dropped.
struct Driver {
    child: std::process::Child,
    port: u16,
}

impl Driver {
    fn start(path: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(path)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromedriver runs");
        let driver = Driver { child, port };
        let up = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                up.elapsed() < Duration::from_secs(20),
                "chromedriver never listened"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A WebDriver session, Chromium headless and offline, its profile fresh:
/// with `mobile`, a 360x640 phone (touch); else a plain desktop window.
async fn session(port: u16, browser: &str, profile: &std::path::Path, mobile: bool) -> fantoccini::Client {
    let mut args = vec![
        "--headless".to_owned(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--hide-scrollbars".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    if !mobile {
        args.push("--window-size=1280,650".into());
    }
    let mut options = json!({ "binary": browser, "args": args });
    if mobile {
        options["mobileEmulation"] = json!({
            "deviceMetrics": {"width": 360, "height": 640, "pixelRatio": 2.0, "touch": true}
        });
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    fantoccini::ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("chromedriver starts a session")
}

/// A 360x640 phone (touch).
async fn phone(port: u16, browser: &str, profile: &std::path::Path) -> fantoccini::Client {
    session(port, browser, profile, true).await
}

/// A desktop window (a mouse, no mobile emulation) whose page is 1280x650.
async fn desktop(port: u16, browser: &str, profile: &std::path::Path) -> fantoccini::Client {
    let c = session(port, browser, profile, false).await;
    let inner = |c: &fantoccini::Client| {
        let c = c.clone();
        async move {
            let v = c
                .execute("return [window.innerWidth, window.innerHeight];", vec![])
                .await
                .unwrap();
            (v[0].as_i64().unwrap(), v[1].as_i64().unwrap())
        }
    };
    let (w, h) = inner(&c).await;
    if (w, h) != (1280, 650) {
        let (ow, oh) = c.get_window_size().await.unwrap();
        c.set_window_size((ow as i64 + 1280 - w) as u32, (oh as i64 + 650 - h) as u32)
            .await
            .unwrap();
    }
    assert_eq!(inner(&c).await, (1280, 650), "the desktop page is 1280x650");
    c
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

/// The value of a JS expression.
async fn js(c: &fantoccini::Client, script: &str) -> serde_json::Value {
    c.execute(&format!("return ({script});"), vec![]).await.unwrap()
}

/// Drags from `from` to `to` (viewport pixels) with a finger, or the mouse.
async fn drag(c: &fantoccini::Client, from: (f64, f64), to: (f64, f64), touch: bool) {
    use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction, TouchActions};
    let step = |d: u64, (x, y): (f64, f64)| PointerAction::MoveTo {
        duration: Some(Duration::from_millis(d)),
        x,
        y,
    };
    let mid = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
    let moves = || {
        [
            step(0, from),
            PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            },
            step(80, mid),
            step(80, to),
            PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            },
        ]
    };
    if touch {
        let finger = moves()
            .into_iter()
            .fold(TouchActions::new("finger".into()), |a, m| a.then(m));
        c.perform_actions(finger).await.unwrap();
    } else {
        let mouse = moves()
            .into_iter()
            .fold(MouseActions::new("mouse".into()), |a, m| a.then(m));
        c.perform_actions(mouse).await.unwrap();
    }
}

/// Drags the piece of `slot` to put its top-left cell at (x, y).
async fn drag_piece(c: &fantoccini::Client, slot: usize, x: i64, y: i64, touch: bool) {
    let path = c
        .execute(
            "return window.playtest.dragPath(arguments[0], arguments[1], arguments[2], arguments[3]);",
            vec![
                json!(slot),
                json!(x),
                json!(y),
                json!(if touch { "touch" } else { "mouse" }),
            ],
        )
        .await
        .unwrap();
    let at = |k: &str| (path[k][0].as_f64().unwrap(), path[k][1].as_f64().unwrap());
    drag(c, at("from"), at("to"), touch).await;
}

/// Plays the first placement that fits and waits for the server's answer;
/// the move as the logs hold it. `None` when the game is over.
async fn play_first_fit(c: &fantoccini::Client, touch: bool) -> Option<(u32, u64, String, usize, usize)> {
    let state = js(c, "window.playtest.state()").await;
    if state["over"] == json!(true) {
        return None;
    }
    let (slot, x, y, piece) = common::playtest::first_fit(&state).unwrap();
    drag_piece(c, slot, x as i64, y as i64, touch).await;
    let moves = state["moves"].as_u64().unwrap();
    until(
        c,
        &format!(
            "Number(document.body.dataset.moves) === {} && !window.playtest.busy()",
            moves + 1
        ),
    )
    .await;
    Some((
        state["session"].as_u64().unwrap() as u32,
        state["game"].as_u64().unwrap(),
        piece,
        x,
        y,
    ))
}

/// What of the page is not wholly inside the viewport (no scrolling): every
/// button shown, the board and the holder; empty when all is.
async fn outside_viewport(c: &fantoccini::Client) -> Vec<String> {
    let v = js(
        c,
        r#"(() => {
            const out = [];
            const w = window.innerWidth, h = window.innerHeight;
            const check = (name, r) => {
                if (r.left < 0 || r.top < 0 || r.right > w || r.bottom > h) {
                    const at = JSON.stringify([r.left, r.top, r.right, r.bottom]);
                    out.push(name + " " + at + " in " + w + "x" + h);
                }
            };
            for (const b of document.querySelectorAll("button")) {
                if (b.getClientRects().length === 0) continue;
                check("button " + b.id + " (" + b.textContent + ")", b.getBoundingClientRect());
            }
            const rects = window.playtest.rects();
            if (rects) { check("board", rects.board); check("holder", rects.holder); }
            const tall = document.documentElement.scrollHeight;
            if (tall > h) out.push("the page scrolls: " + tall);
            return out;
        })()"#,
    )
    .await;
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

/// A screenshot, in `assets/NAME` when UPDATE_SNAPSHOTS is set (the guide's
/// pictures), else in `dir`.
async fn snapshot(c: &fantoccini::Client, dir: &std::path::Path, name: &str) {
    let png = c.screenshot().await.unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let keep = if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(name)
    } else {
        dir.join(name)
    };
    std::fs::write(keep, png).unwrap();
}

/// The files of `dir` and of `dir/journal` (the logs and the journal) that
/// name `tester`, in their name or in what they hold.
fn tester_files(dir: &std::path::Path, tester: &str) -> Vec<String> {
    [dir.to_owned(), dir.join("journal")]
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            let named = p.to_string_lossy().contains(tester);
            let bytes = std::fs::read(p).unwrap_or_default();
            named || bytes.windows(tester.len()).any(|w| w == tester.as_bytes())
        })
        .map(|p| p.display().to_string())
        .collect()
}

/// A study as a designer writes it: two paragraphs, long enough to scroll
/// on a phone.
const STUDY: &str = concat!(
    "(\n",
    "    title: \"Block puzzle playtest\",\n",
    "    text: \"Thank you for playing. This is a study of how people play a block puzzle: ",
    "you will drag pieces onto a board for as long as you like, and every move you make, ",
    "with how long you took over it, is recorded.\\n\\n",
    "Nothing else is recorded: not your name, not your e-mail address, not your IP address. ",
    "Your browser keeps a random number so that when you come back you go on as the same ",
    "player. The moves are used to fit models of players and to tune the game, and may be ",
    "published in a paper without anything that could identify you.\\n\\n",
    "You may stop at any time by closing the page.\",\n",
    "    contact: \"Ana Silva <ana.silva@example.org> (write to have your games deleted)\",\n",
    ")\n",
);

/// A whole game by touch drags in a real Chromium at 360x640, after the
/// study's agreement: the study first and nothing kept before "I agree",
/// the first deal's hint, a refused drop said in words, every button, the
/// board and the holder on screen at 360x640 and at 1280x650, the log
/// holding exactly the moves made and fitting, and a reload resuming.
#[test]
fn a_whole_game_by_touch_in_chromium() {
    let (browser, driver) = chromium();
    let dir = scratch("playtest-browser");
    let out = dir.join("pt");
    let study_file = dir.join("study.ron");
    std::fs::write(&study_file, STUDY).unwrap();
    let served = serve(
        &out,
        &[
            "--generator",
            "block-blast-like",
            "--study",
            study_file.to_str().unwrap(),
        ],
    );
    let driver = Driver::start(&driver);
    let rt = runtime();
    let (tester, placed) = rt.block_on(async {
        let c = phone(driver.port, &browser, &dir.join("profile")).await;
        c.goto(&served.link).await.unwrap();
        assert_eq!(
            js(&c, "window.innerWidth").await,
            json!(360),
            "the page is laid out for the phone"
        );
        assert_eq!(js(&c, "window.innerHeight").await, json!(640));

        // The study, full-screen, before anything else; nothing kept yet.
        until(&c, "window.playtest && window.playtest.study()").await;
        let tester = js(&c, "localStorage.getItem('tenten.tester')")
            .await
            .as_str()
            .unwrap()
            .to_owned();
        let shown = js(
            &c,
            r##"[document.getElementById("study-title").textContent,
                Array.from(document.querySelectorAll("#study-body p"), (p) => p.textContent),
                document.getElementById("study-contact").textContent,
                document.getElementById("agree").textContent,
                document.getElementById("study").innerText
                    .includes("If you do not agree, close this page: nothing is recorded."),
                document.getElementById("play").hidden]"##,
        )
        .await;
        assert_eq!(shown[0], json!("Block puzzle playtest"));
        let paragraphs = shown[1].as_array().unwrap();
        assert_eq!(paragraphs.len(), 3, "{shown}");
        assert!(
            paragraphs[0]
                .as_str()
                .unwrap()
                .starts_with("Thank you for playing.")
        );
        assert!(paragraphs[2].as_str().unwrap().starts_with("You may stop"));
        assert_eq!(
            shown[2],
            json!("Contact: Ana Silva <ana.silva@example.org> (write to have your games deleted)"),
            "the designer's words as text, never markup"
        );
        assert_eq!(shown[3], json!("I agree"));
        assert_eq!(shown[4], json!(true), "the way out is said");
        assert_eq!(shown[5], json!(true), "the game is not shown behind the study");
        assert_eq!(
            outside_viewport(&c).await,
            Vec::<String>::new(),
            "the study at 360x640"
        );
        let scrolls = js(
            &c,
            "(e => e.scrollHeight > e.clientHeight)(document.getElementById('study-text'))",
        )
        .await;
        assert_eq!(
            scrolls,
            json!(true),
            "a study longer than the phone scrolls, its answer on screen"
        );
        snapshot(&c, &dir, "playtest-study.png").await;
        assert_eq!(
            tester_files(&out, &tester),
            Vec::<String>::new(),
            "nothing of the tester is kept before they agree"
        );

        // "I agree": the first game, journalled.
        c.find(fantoccini::Locator::Id("agree"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until(&c, "window.playtest.state() && !window.playtest.study()").await;
        let kept = tester_files(&out, &tester);
        assert!(
            kept.iter().any(|f| f.contains("/journal/")),
            "the agreement is journalled: {kept:?}"
        );
        assert_eq!(
            js(&c, "document.getElementById('study').hidden").await,
            json!(true)
        );

        // The first deal: its hint; every control on screen, and none unexplained.
        let hint = js(&c, "window.playtest.message()").await;
        assert_eq!(hint["text"], json!("Drag a piece onto the board"), "{hint}");
        assert_eq!(hint["kind"], json!("hint"));
        let buttons = js(
            &c,
            "Array.from(document.querySelectorAll('button'), (b) => b.textContent.trim())",
        )
        .await;
        assert!(
            buttons.as_array().unwrap().iter().all(|b| b != "New session"),
            "{buttons}"
        );
        assert_eq!(js(&c, "document.getElementById('fresh')").await, json!(null));
        assert_eq!(
            outside_viewport(&c).await,
            Vec::<String>::new(),
            "the game at 360x640"
        );

        // A piece dropped off the board goes back, and the page says why.
        let path = js(&c, "window.playtest.dragPath(0, 0, 0, 'touch')").await;
        let from = (
            path["from"][0].as_f64().unwrap(),
            path["from"][1].as_f64().unwrap(),
        );
        drag(&c, from, (from.0, 12.0), true).await;
        until(&c, "window.playtest.message().kind === 'refusal'").await;
        assert_eq!(
            js(&c, "window.playtest.message().text").await,
            json!("Drop it on the board")
        );
        assert_eq!(js(&c, "window.playtest.state().moves").await, json!(0));
        // ...for a moment: then it fades, and the hint is back.
        until(
            &c,
            "window.playtest.message().kind === 'hint' && !window.playtest.message().fading",
        )
        .await;

        let mut placed = Vec::new();
        let mut refused_on_filled = false;
        while let Some(m) = play_first_fit(&c, true).await {
            placed.push(m);
            if placed.len() == 1 {
                let now = js(&c, "window.playtest.message()").await;
                assert_eq!(
                    now["text"],
                    json!(""),
                    "the hint is gone after the first move: {now}"
                );
            }
            // A piece dropped on filled cells (as soon as one can be): said
            // in words, and nothing played.
            let state = js(&c, "window.playtest.state()").await;
            let open = !refused_on_filled && state["over"] == json!(false);
            if let Some((slot, x, y)) = onto_filled(&state).filter(|_| open) {
                drag_piece(&c, slot, x, y, true).await;
                until(&c, "window.playtest.message().kind === 'refusal'").await;
                assert_eq!(
                    js(&c, "window.playtest.message().text").await,
                    json!("That piece does not fit there")
                );
                assert_eq!(js(&c, "window.playtest.state().moves").await, state["moves"]);
                refused_on_filled = true;
            }
            if placed.len() == 4 {
                // The guide's picture of the page, mid-game.
                snapshot(&c, &dir, "playtest-page.png").await;
                assert_eq!(
                    outside_viewport(&c).await,
                    Vec::<String>::new(),
                    "mid-game at 360x640"
                );
                // A reload resumes the same game: the same holder and board.
                let before = js(&c, "window.playtest.state()").await;
                c.refresh().await.unwrap();
                until(&c, "window.playtest && window.playtest.state()").await;
                let after = js(&c, "window.playtest.state()").await;
                for k in ["session", "game", "moves", "board", "holder", "score"] {
                    assert_eq!(after[k], before[k], "{k} after a reload");
                }
                assert_eq!(
                    js(&c, "window.playtest.study()").await,
                    json!(null),
                    "agreed once"
                );
            }
        }
        assert!(placed.len() >= 4, "a whole game: {} moves", placed.len());
        assert!(refused_on_filled, "a drop on filled cells was tried");
        let shown = js(&c, "!document.getElementById('over').hidden").await;
        assert_eq!(shown, json!(true), "'no more moves' is shown");
        assert_eq!(
            outside_viewport(&c).await,
            Vec::<String>::new(),
            "game over at 360x640"
        );
        c.close().await.unwrap();
        (tester, placed)
    });
    assert_eq!(logged_moves(&out, &tester), placed);
    let fit = run_ok(&["fit-player", out.to_str().unwrap()]);
    assert!(fit.contains(&format!("moves={}", placed.len())), "{fit}");

    // A desktop at 1280x650: the study, then a game by mouse, all of it on
    // screen.
    rt.block_on(async {
        let c = desktop(driver.port, &browser, &dir.join("profile-desktop")).await;
        c.goto(&served.link).await.unwrap();
        until(&c, "window.playtest && window.playtest.study()").await;
        assert_eq!(
            outside_viewport(&c).await,
            Vec::<String>::new(),
            "the study at 1280x650"
        );
        c.find(fantoccini::Locator::Id("agree"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until(&c, "window.playtest.state() && !window.playtest.study()").await;
        assert_eq!(
            outside_viewport(&c).await,
            Vec::<String>::new(),
            "the game at 1280x650"
        );
        for _ in 0..3 {
            play_first_fit(&c, false).await.expect("the game goes on");
        }
        assert_eq!(
            outside_viewport(&c).await,
            Vec::<String>::new(),
            "mid-game at 1280x650"
        );
        snapshot(&c, &dir, "playtest-desktop.png").await;
        c.close().await.unwrap();
    });
    drop(driver);
}

/// A piece of the holder and a place on the board where it would cover a
/// filled cell: (slot, column, row).
fn onto_filled(state: &serde_json::Value) -> Option<(usize, i64, i64)> {
    let (w, h) = (state["width"].as_i64()?, state["height"].as_i64()?);
    let board: Vec<Vec<u8>> = state["board"]
        .as_array()?
        .iter()
        .map(|r| r.as_str().unwrap().bytes().collect())
        .collect();
    for (slot, p) in state["holder"].as_array()?.iter().enumerate() {
        if p.is_null() {
            continue;
        }
        let (pw, ph) = (p["width"].as_i64()?, p["height"].as_i64()?);
        for y in 0..=h - ph {
            for x in 0..=w - pw {
                let covers = p["cells"].as_array()?.iter().any(|c| {
                    let (cx, cy) = (c[0].as_i64().unwrap(), c[1].as_i64().unwrap());
                    board[(y + cy) as usize][(x + cx) as usize] != b'.'
                });
                if covers {
                    return Some((slot, x, y));
                }
            }
        }
    }
    None
}
