//! Playtests for tests: the real `tenten playtest serve` (or the server
//! crate in this process, for limits a test tightens), and testers that
//! play it over HTTP, keeping every move the server acknowledged.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

/// The tests' tokio runtime (their testers are async).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A server the binary runs, on a port of its choosing.
pub struct Served {
    pub child: Child,
    pub link: String,
    pub base: String,
    pub token: Option<String>,
    pub dir: PathBuf,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

/// Starts `tenten playtest serve --out DIR --bind 127.0.0.1:0 ARGS` and
/// waits for its link.
pub fn serve(dir: &Path, args: &[&str]) -> Served {
    serve_under(dir, args, None)
}

/// As `serve`, under `ulimit -n N` (soft and hard: the server cannot raise
/// it) when `open_files` is given, as a default account runs it.
pub fn serve_under(dir: &Path, args: &[&str], open_files: Option<u32>) -> Served {
    let mut cmd = match open_files {
        None => Command::new(env!("CARGO_BIN_EXE_tenten")),
        Some(n) => {
            let mut c = Command::new("sh");
            c.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\"")])
                .arg(env!("CARGO_BIN_EXE_tenten"));
            c
        }
    };
    let mut child = cmd
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["playtest", "serve", "--out"])
        .arg(dir)
        .args(args)
        // A port of its choosing, unless the test gives one.
        .args(if args.contains(&"--bind") {
            &[][..]
        } else {
            &["--bind", "127.0.0.1:0"][..]
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    {
        let pipe = child.stderr.take().unwrap();
        let keep = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut k = keep.lock().unwrap();
                k.push_str(&line);
                k.push('\n');
            }
        });
    }
    let mut first = String::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut first).unwrap();
    // Keep reading stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in out.lines().map_while(Result::ok) {});
    let link = first
        .trim()
        .strip_prefix("link=")
        .unwrap_or_else(|| {
            panic!(
                "the server printed {first:?}, not its link; stderr: {}",
                stderr.lock().unwrap()
            )
        })
        .to_owned();
    let (base, token) = match link.split_once("?t=") {
        Some((b, t)) => (b.trim_end_matches('/').to_owned(), Some(t.to_owned())),
        None => (link.trim_end_matches('/').to_owned(), None),
    };
    Served {
        child,
        link,
        base,
        token,
        dir: dir.to_owned(),
        stderr,
    }
}

impl Served {
    /// SIGKILL: no chance to flush or close anything.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, as a service manager stops it; waits for the exit.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.child.wait().unwrap()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The server's stderr once `done` holds of it, or after 10 s: its
    /// lines arrive through a reader thread, late on a loaded machine (200
    /// ms was once too short beside two long rehearsals).
    pub fn stderr_when(&self, done: impl Fn(&str) -> bool) -> String {
        let start = std::time::Instant::now();
        loop {
            let text = self.stderr();
            if done(&text) || start.elapsed() > std::time::Duration::from_secs(10) {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    pub fn client(&self) -> Client {
        Client::new(&self.base, self.token.clone())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Talks to a server as the page does.
#[derive(Clone)]
pub struct Client {
    pub http: reqwest::Client,
    pub base: String,
    pub token: Option<String>,
}

/// A move the server acknowledged: (session, game, piece, column, row).
pub type Acked = (u32, u64, String, usize, usize);

/// A tester as a test plays them.
pub struct Tester {
    pub id: String,
    pub state: Value,
    pub acked: Vec<Acked>,
}

/// The shortest time a test's tester takes over a move (a fast person's).
pub const THINK: std::time::Duration = std::time::Duration::from_millis(60);

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A fresh tester id (distinct within the test process, and across runs).
pub fn tester_id() -> String {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    format!("{:016x}{:08x}{:08x}", n, std::process::id(), 0xfeed_u32)
}

impl Client {
    pub fn new(base: &str, token: Option<String>) -> Self {
        Self {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(4)
                .build()
                .unwrap(),
            base: base.to_owned(),
            token,
        }
    }

    /// POSTs `body` to `path`: the status and the JSON answer.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_raw(path, serde_json::to_vec(body).unwrap()).await
    }

    pub async fn post_raw(&self, path: &str, body: Vec<u8>) -> (u16, Value) {
        self.try_post_raw(path, body).await.expect("the server answers")
    }

    /// As `post`, the connection's failure returned (a server killed).
    pub async fn try_post(&self, path: &str, body: &Value) -> Result<(u16, Value), reqwest::Error> {
        self.try_post_raw(path, serde_json::to_vec(body).unwrap()).await
    }

    async fn try_post_raw(&self, path: &str, body: Vec<u8>) -> Result<(u16, Value), reqwest::Error> {
        let mut req = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body);
        if let Some(t) = &self.token {
            req = req.header("x-playtest-token", t);
        }
        let r = req.send().await?;
        let status = r.status().as_u16();
        let text = r.text().await?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::String(text))))
    }

    /// Arrives (or returns) as `id`.
    pub async fn join(&self, id: &str) -> Tester {
        let (status, state) = self.post("/api/state", &json!({ "tester": id })).await;
        assert_eq!(status, 200, "{state}");
        Tester {
            id: id.to_owned(),
            state,
            acked: Vec::new(),
        }
    }

    /// Plays the first placement that fits; the move and whether the
    /// server took it. `None` when the game is over.
    pub async fn play_one(&self, t: &mut Tester) -> Option<(u16, Value)> {
        self.try_play_one(t).await.expect("the server answers")
    }

    /// As `play_one`, the connection's failure returned.
    pub async fn try_play_one(&self, t: &mut Tester) -> Result<Option<(u16, Value)>, reqwest::Error> {
        if t.state["over"].as_bool().unwrap() {
            return Ok(None);
        }
        let (slot, x, y, piece) = first_fit(&t.state).expect("a game not over has a move");
        let body = json!({
            "tester": t.id, "session": t.state["session"], "game": t.state["game"],
            "seen": t.state["moves"], "slot": slot, "x": x, "y": y, "ms": 250,
        });
        let (status, answer) = self.try_post("/api/move", &body).await?;
        if status == 200 {
            t.acked.push((
                t.state["session"].as_u64().unwrap() as u32,
                t.state["game"].as_u64().unwrap(),
                piece,
                x,
                y,
            ));
            t.state = answer["state"].clone();
        }
        Ok(Some((status, answer)))
    }

    /// Plays until the game is over, a move every `THINK` at the fastest
    /// (the server refuses a tester faster than a person: 429, and then
    /// this waits); the moves made.
    pub async fn play_game(&self, t: &mut Tester) -> usize {
        let mut n = 0;
        loop {
            tokio::time::sleep(THINK).await;
            match self.play_one(t).await {
                None => return n,
                Some((200, _)) => n += 1,
                Some((429, _)) => tokio::time::sleep(std::time::Duration::from_millis(500)).await,
                Some((status, answer)) => panic!("{status}: {answer}"),
            }
        }
    }
}

/// The first (slot, column, row) where a holder piece fits, with its id.
pub fn first_fit(state: &Value) -> Option<(usize, usize, usize, String)> {
    let (w, h) = (
        state["width"].as_u64()? as usize,
        state["height"].as_u64()? as usize,
    );
    let board: Vec<Vec<u8>> = state["board"]
        .as_array()?
        .iter()
        .map(|r| r.as_str().unwrap().bytes().collect())
        .collect();
    for (slot, p) in state["holder"].as_array()?.iter().enumerate() {
        if p.is_null() {
            continue;
        }
        let cells: Vec<(usize, usize)> = p["cells"]
            .as_array()?
            .iter()
            .map(|c| (c[0].as_u64().unwrap() as usize, c[1].as_u64().unwrap() as usize))
            .collect();
        let (pw, ph) = (p["width"].as_u64()? as usize, p["height"].as_u64()? as usize);
        for y in 0..=h.saturating_sub(ph) {
            for x in 0..=w.saturating_sub(pw) {
                if cells.iter().all(|&(cx, cy)| board[y + cy][x + cx] == b'.') {
                    return Some((slot, x, y, p["id"].as_str()?.to_owned()));
                }
            }
        }
    }
    None
}

/// Every move a tester's logs hold, in order: (session, game, piece,
/// column, row); and the logs' line count.
pub fn logged_moves(dir: &Path, tester: &str) -> Vec<Acked> {
    let mut sessions: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_owned();
            let n = name
                .strip_prefix(&format!("{tester}-s"))?
                .strip_suffix(".jsonl")?
                .parse()
                .ok()?;
            Some((n, p))
        })
        .collect();
    sessions.sort();
    let mut out = Vec::new();
    for (n, path) in sessions {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let r: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: not JSON ({e}): {line}", path.display(), i + 1));
            assert_eq!(r["player"], tester);
            assert_eq!(r["session"], format!("s{n}"));
            for m in r["moves"].as_array().unwrap() {
                out.push((
                    n,
                    r["game"].as_u64().unwrap(),
                    m[0].as_str().unwrap().to_owned(),
                    m[1].as_u64().unwrap() as usize,
                    m[2].as_u64().unwrap() as usize,
                ));
            }
        }
    }
    out
}

/// The resident memory of process `pid` in KiB (`VmRSS` of Linux's
/// `/proc/PID/status`).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in /proc/{pid}/status"))
}

/// A server of the crate run in this process (on its own runtime and
/// thread), for limits a test tightens; stopped when dropped.
pub struct InProcess {
    pub base: String,
    pub addr: std::net::SocketAddr,
    pub capacity: tenten_playtest::server::Capacity,
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Serves the folder `dir` dealt by `random` on 127.0.0.1 (no token), its
/// config first changed by `adjust`.
pub fn serve_in_process(dir: &Path, adjust: impl FnOnce(&mut tenten_playtest::Config)) -> InProcess {
    let set = tenten_engine::model::pieces::PieceSet::classic();
    let mut config = tenten_playtest::Config {
        generators: vec![tenten_playtest::Generator {
            name: "random".into(),
            dealing: tenten_engine::play::dealing::Dealing::by_name("random", &set).unwrap(),
        }],
        set,
        size: tenten_engine::model::board::BoardSize::CLASSIC,
        k: 3,
        out: dir.to_owned(),
        bind: ([127, 0, 0, 1], 0).into(),
        assign: tenten_playtest::Assign::Alternate,
        token: tenten_playtest::Token::None,
        limits: tenten_playtest::Limits::default(),
        study: None,
        trusted_proxy: None,
        allowed_hosts: vec![],
        faults: Default::default(),
        who: "a test".into(),
        behaviour: tenten_playtest::BEHAVIOUR,
    };
    adjust(&mut config);
    let server = tenten_playtest::Server::bind(config).expect("the server binds");
    let (addr, capacity) = (server.addr, server.capacity);
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let shutdown = async move {
            let _ = tokio::task::spawn_blocking(move || stopped.recv()).await;
        };
        rt.block_on(server.run(shutdown)).unwrap();
    });
    InProcess {
        base: format!("http://{addr}"),
        addr,
        capacity,
        stop: Some(stop),
        thread: Some(thread),
    }
}

impl InProcess {
    pub fn client(&self) -> Client {
        Client::new(&self.base, None)
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sends `head` (a request's head, `\r\n`-separated, without the blank line
/// that ends it) and `body` on a new connection from 127.0.0.1; the answer's
/// status and text, as the server wrote them within `wait`.
pub fn raw(addr: std::net::SocketAddr, head: &str, body: &[u8], wait: std::time::Duration) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(wait)).unwrap();
    s.write_all(format!("{head}\r\n\r\n").as_bytes()).unwrap();
    let _ = s.write_all(body);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    // The head and a short JSON body: read until the connection closes, or
    // the body's length is in.
    while let Ok(n) = s.read(&mut chunk) {
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        if complete(&buf) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|t| t.get(..3))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// Whether `buf` holds a whole answer: its head and `content-length` bytes.
fn complete(buf: &[u8]) -> bool {
    let text = String::from_utf8_lossy(buf);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .is_some_and(|n| body.len() >= n)
}
