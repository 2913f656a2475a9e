//! The playtest server as the field runs it: a second server on the same
//! folder, ten thousand testers under a default open-file limit, `kill -9`
//! and a restart with the old link, journals a crash left empty or cut in
//! their first line, and a tester forgotten on request.

mod common;

use common::playtest::runtime;

use std::time::Duration;

use common::cli::{run_ok, scratch, tenten};
use common::playtest::{Client, serve, serve_under, tester_id};
use serde_json::json;

/// A second `serve` on a served folder exits non-zero, naming the server
/// that holds it; once that one stops, the folder serves again.
#[test]
fn a_second_server_on_a_served_folder_is_refused_naming_the_holder() {
    let dir = scratch("playtest-lock");
    let out = dir.join("pt");
    let mut first = serve(&out, &["--generator", "random"]);
    let second = tenten()
        .args([
            "playtest",
            "serve",
            "--generator",
            "random",
            "--bind",
            "127.0.0.1:0",
            "--out",
        ])
        .arg(&out)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", first.child.id())) && stderr.contains("tenten playtest serve"),
        "the holder is named: {stderr}"
    );
    assert!(stderr.contains("stop it first"), "{stderr}");
    // Forgetting a tester needs the folder too.
    let forget = tenten()
        .args(["playtest", "forget"])
        .arg(&out)
        .arg(tester_id())
        .output()
        .unwrap();
    assert_eq!(forget.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&forget.stderr).contains("stop it first"));
    assert!(first.stop().success());
    let again = serve(&out, &["--generator", "random"]);
    assert!(again.link.starts_with("http://127.0.0.1:"));
}

/// Under `ulimit -n 1024` ten thousand testers hold open sessions at once;
/// the ones past `--max-testers` get 503 and leave nothing on disk; after
/// `kill -9` the folder serves all of them again.
#[test]
fn ten_thousand_testers_under_a_thousand_open_files() {
    const TESTERS: usize = 10_000;
    const MORE: usize = 40;
    let dir = scratch("playtest-capacity");
    let out = dir.join("pt");
    let args = [
        "--generator",
        "random",
        "--max-testers",
        "10000",
        "--arrival-rate",
        "2000",
        "--arrival-rate-per-address",
        "2000",
    ];
    let mut served = serve_under(&out, &args, Some(1024));
    let client = served.client();
    let rt = runtime();
    let ids: Vec<String> = (0..TESTERS + MORE).map(|_| tester_id()).collect();
    let answers: Vec<(String, u16, String)> = rt.block_on(async {
        let mut answers = Vec::new();
        // 32 at a time: the arrival limit (2,000 a second) is the pace.
        for chunk in ids.chunks(32) {
            let calls = chunk.iter().map(|id| {
                let client = client.clone();
                let id = id.clone();
                async move {
                    loop {
                        let (status, body) = client.post("/api/state", &json!({ "tester": id })).await;
                        // Arriving faster than the limit: the page waits and asks again.
                        if body["code"] == "busy" {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                        return (id, status, body["code"].as_str().unwrap_or("").to_owned());
                    }
                }
            });
            answers.extend(futures_join(calls).await);
        }
        answers
    });
    let ok: Vec<&String> = answers.iter().filter(|a| a.1 == 200).map(|a| &a.0).collect();
    let refused: Vec<&(String, u16, String)> = answers.iter().filter(|a| a.1 != 200).collect();
    assert_eq!(ok.len(), TESTERS, "{:?}", &refused[..refused.len().min(5)]);
    assert_eq!(refused.len(), MORE);
    assert!(
        refused.iter().all(|a| a.1 == 503 && a.2 == "full"),
        "{:?}",
        &refused[..3]
    );
    let journals: Vec<String> = std::fs::read_dir(out.join("journal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".journal"))
        .collect();
    assert_eq!(journals.len(), TESTERS);
    for (id, _, _) in &refused {
        assert!(
            !journals.iter().any(|n| n.starts_with(id.as_str())),
            "{id} left a journal"
        );
        assert!(!out.join(format!("{id}-s0.jsonl")).exists());
    }
    assert!(
        served.stderr().is_empty() || !served.stderr().contains("Too many open files"),
        "{}",
        served.stderr()
    );
    served.kill();
    // Served again under the same limit: every session resumes.
    let served = serve_under(&out, &args, Some(1024));
    let stderr_ok = |s: &str| {
        s.contains(&format!(
            "{TESTERS} testers so far, {TESTERS} open sessions resumed"
        ))
    };
    let client = served.client();
    rt.block_on(async {
        for id in ok.iter().step_by(997) {
            let (status, body) = client.post("/api/state", &json!({ "tester": id })).await;
            assert_eq!((status, &body["session"]), (200, &json!(0)), "{body}");
        }
    });
    assert!(stderr_ok(&served.stderr()), "{}", served.stderr());
    let status = run_ok(&["playtest", "status", out.to_str().unwrap()]);
    assert!(
        status.contains(&format!("testers={TESTERS} sessions={TESTERS} open={TESTERS}")),
        "{status}"
    );
}

/// Runs futures together, their results in order.
async fn futures_join<F>(calls: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = calls.map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// After `kill -9` and a restart the link testers were sent still works
/// (the token is the folder's), and journals a crash left empty or cut in
/// their first line are set aside and reported while the rest are served.
#[test]
fn after_kill_9_the_old_link_works_and_broken_journals_are_set_aside() {
    let dir = scratch("playtest-restart");
    let out = dir.join("pt");
    // A port of our own, as a designer's link names one.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bind = format!("127.0.0.1:{port}");
    let args = ["--generator", "repair", "--token", "--bind", &bind];
    let mut served = serve(&out, &args);
    let link = served.link.clone();
    assert!(link.contains("?t="), "{link}");
    let token = std::fs::read_to_string(out.join("token")).unwrap();
    assert_eq!(Some(token.trim()), served.token.as_deref());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join("token")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the token is the owner's alone");
    }
    let rt = runtime();
    let id = tester_id();
    let before = rt.block_on(async {
        let client = served.client();
        let mut t = client.join(&id).await;
        for _ in 0..4 {
            client.play_one(&mut t).await;
        }
        t.state
    });
    served.kill();
    let (empty, cut) = (tester_id(), tester_id());
    std::fs::write(out.join("journal").join(format!("{empty}-s0.journal")), "").unwrap();
    std::fs::write(
        out.join("journal").join(format!("{cut}-s0.journal")),
        "{\"e\":\"session\",\"tes",
    )
    .unwrap();
    let status = run_ok(&["playtest", "status", out.to_str().unwrap()]);
    assert_eq!(status.matches("cannot replay:").count(), 2, "{status}");
    let mut served = serve(&out, &args);
    assert_eq!(served.link, link, "the same link after a restart");
    let stderr = served.stderr_when(|s| s.matches("set aside:").count() >= 2);
    assert_eq!(stderr.matches("set aside:").count(), 2, "{stderr}");
    assert!(stderr.contains(&empty) && stderr.contains(&cut), "{stderr}");
    rt.block_on(async {
        let client = Client::new(&served.base, served.token.clone());
        let (status, state) = client.post("/api/state", &json!({ "tester": id })).await;
        assert_eq!(status, 200, "{state}");
        for k in ["session", "game", "moves", "board", "holder", "score"] {
            assert_eq!(state[k], before[k], "{k} after kill -9 and a restart");
        }
    });
    let aside = out.join("journal").join("set-aside");
    assert!(aside.join(format!("{empty}-s0.journal")).exists());
    assert!(aside.join(format!("{cut}-s0.journal")).exists());
    assert!(served.stop().success());
    // A new token replaces the old: the old link stops working.
    let served = serve(&out, &["--generator", "repair", "--new-token"]);
    assert_ne!(served.link, link);
    rt.block_on(async {
        let old = Client::new(&served.base, Some(token.trim().to_owned()));
        let (status, _) = old.post("/api/state", &json!({ "tester": id })).await;
        assert_eq!(status, 403);
    });
}

/// `playtest forget` removes a tester's records, and refuses while their
/// session is open.
#[test]
fn a_tester_is_forgotten_and_an_open_session_is_refused() {
    let dir = scratch("playtest-forget");
    let out = dir.join("pt");
    let mut served = serve(&out, &["--generator", "random"]);
    let rt = runtime();
    let b = tester_id();
    rt.block_on(async {
        let client = served.client();
        let mut t = client.join(&b).await;
        for _ in 0..4 {
            client.play_one(&mut t).await;
        }
        // A new session on demand is no longer offered: a client asking for
        // one per request would make a file each time.
        let (status, body) = client
            .post("/api/state", &json!({ "tester": b, "fresh": true }))
            .await;
        assert_eq!(status, 400, "{body}");
    });
    assert!(served.stop().success());
    let open = tenten()
        .args(["playtest", "forget"])
        .arg(&out)
        .arg(&b)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&open.stderr);
    assert_eq!(open.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("still open"), "{stderr}");
    assert!(out.join(format!("{b}-s0.jsonl")).exists(), "nothing removed");
    let bad = tenten()
        .args(["playtest", "forget"])
        .arg(&out)
        .arg("../../etc")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a tester id"));
}
