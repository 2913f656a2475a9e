//! The playtest server under load: N testers play whole games over HTTP
//! against the real binary (every move synced to disk), at a person's pace
//! (a move a second, jittered) and flat out (each tester's next move as
//! soon as the last is answered, up to the server's per-tester limit).
//! Prints the latency table of docs/benchmarks.md:
//! `cargo bench --bench playtest_load` (one run at a time: 2 cores).

// The tests' testers (each test uses its own part of the harness).
#[allow(dead_code)]
#[path = "../tests/common/playtest.rs"]
mod playtest;

use std::time::{Duration, Instant};

use playtest::{Client, serve, tester_id};
use serde_json::json;

#[derive(Clone, Copy, PartialEq)]
enum Pace {
    Person,
    FlatOut,
}

struct Run {
    latencies: Vec<Duration>,
    limited: usize,
    seconds: f64,
}

async fn tester(c: Client, pace: Pace, start: Instant, end: Instant, seed: u64) -> (Vec<Duration>, usize) {
    // Join, waiting while the server holds back a crowd arriving at once.
    let id = tester_id();
    let mut t = loop {
        let (s, v) = c.post("/api/state", &json!({ "tester": id })).await;
        if s == 200 {
            break playtest::Tester {
                id: id.clone(),
                state: v,
                acked: Vec::new(),
            };
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut rng = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut latencies = Vec::new();
    let mut limited = 0;
    tokio::time::sleep_until(start.into()).await;
    while Instant::now() < end {
        if pace == Pace::Person {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let ms = 500 + (rng >> 33) % 1000;
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        if t.state["over"] == json!(true) {
            let body = json!({"tester": t.id, "session": t.state["session"], "game": t.state["game"]});
            let (s, v) = c.post("/api/new-game", &body).await;
            if s == 200 {
                t.state = v;
            }
            continue;
        }
        let asked = Instant::now();
        match c.play_one(&mut t).await {
            Some((200, _)) if Instant::now() < end => latencies.push(asked.elapsed()),
            Some((200, _)) => {}
            Some((429, _)) => {
                limited += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Some((s, v)) => panic!("{s}: {v}"),
            None => {}
        }
    }
    (latencies, limited)
}

fn run(testers: usize, pace: Pace, seconds: u64) -> Run {
    let dir = std::env::temp_dir().join(format!("tenten-bench-playtest-{testers}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let served = serve(
        &dir,
        &[
            "--generator",
            "repair",
            "--arrival-rate",
            "1000",
            "--arrival-rate-per-address",
            "1000",
        ],
    );
    // Testers on eight addresses (127.0.0.1-8), as phones come from many:
    // the server caps connections per address (256).
    let clients: Vec<Client> = (1..=8u8)
        .map(|i| Client {
            http: reqwest::Client::builder()
                .local_address(std::net::IpAddr::from([127, 0, 0, i]))
                .pool_max_idle_per_host(256)
                .build()
                .unwrap(),
            base: served.base.clone(),
            token: served.token.clone(),
        })
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    // Time for a thousand testers to arrive (the server lets 1,000 a second in).
    let start = Instant::now() + Duration::from_secs_f64(2.0 + testers as f64 / 1000.0);
    let end = start + Duration::from_secs(seconds);
    let (latencies, limited) = rt.block_on(async {
        let tasks: Vec<_> = (0..testers)
            .map(|i| {
                tokio::spawn(tester(
                    clients[i % clients.len()].clone(),
                    pace,
                    start,
                    end,
                    i as u64 + 1,
                ))
            })
            .collect();
        let mut all = Vec::new();
        let mut limited = 0;
        for t in tasks {
            let (l, n) = t.await.unwrap();
            all.extend(l);
            limited += n;
        }
        (all, limited)
    });
    drop(served);
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        latencies,
        limited,
        seconds: seconds as f64,
    }
}

fn quantile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn main() {
    let seconds = std::env::var("SECONDS_PER_RUN")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    println!("| testers | pace | moves | moves/s | p50 ms | p99 ms | max ms | refused 429 |");
    println!("|---|---|---|---|---|---|---|---|");
    for pace in [Pace::Person, Pace::FlatOut] {
        for testers in [10, 100, 1000] {
            let mut r = run(testers, pace, seconds);
            r.latencies.sort();
            println!(
                "| {testers} | {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {} |",
                if pace == Pace::Person {
                    "a move a second"
                } else {
                    "flat out"
                },
                r.latencies.len(),
                r.latencies.len() as f64 / r.seconds,
                quantile(&r.latencies, 0.5),
                quantile(&r.latencies, 0.99),
                quantile(&r.latencies, 1.0),
                r.limited
            );
        }
    }
}
