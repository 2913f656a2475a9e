//! A playtest from the Population view: its folder followed live (read
//! every two seconds on a job: the journals replayed, nothing changed), a
//! refit when enough new games arrived, and a server run on a job until
//! stopped (its cancel is the server's shutdown). Where the server writes
//! is decided here too: a new folder under the data folder's `playtests/`
//! unless the designer names one, never under the program's `presets/`.

use std::net::{IpAddr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::dealing::Dealing;
use tenten_playtest::{Assign, Config, Generator, Limits, Server, Status, Token};

use super::job::{Background, Job};

/// How often a followed folder is read again.
pub const EVERY: Duration = Duration::from_secs(2);

/// The port a server from the window listens on first; the next ones
/// when it is taken (another program, another window).
pub const PORT: u16 = 8080;
const PORTS: u16 = 20;

/// The data folder's folder of playtests served from the window.
pub const FOLDER: &str = "playtests";

/// Who a second server on the same folder is told holds it.
pub const WHO: &str = "the workbench's window";

/// Who can open a served link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Bound to the loopback address: this machine's browsers only.
    ThisMachine,
    /// Bound to every interface, the link on this machine's outward address.
    Outward,
    /// Bound to every interface, but no outward address was found: the
    /// link says 127.0.0.1, which no other device can open.
    NoOutward,
}

/// What a server job says.
pub enum ServerMessage {
    /// Listening: the link testers open, who can open it, and what the
    /// folder held.
    Started {
        link: String,
        reach: Reach,
        resumed: String,
    },
    Failed(String),
}

/// A server to start: the generator testers are dealt by, the game's
/// rules, the folder (already checked: `serve_folder`), and whether other
/// devices may reach it.
pub struct ServeRequest {
    pub generator: String,
    pub set: PieceSet,
    pub size: BoardSize,
    pub k: usize,
    pub folder: PathBuf,
    pub open: bool,
}

#[derive(Default)]
pub struct PlaytestLive {
    /// The folder followed, if any.
    pub folder: Option<PathBuf>,
    pub status: Option<Result<Status, String>>,
    /// When the folder was last read.
    pub read_at: Option<Instant>,
    reading: Option<Job<Result<Status, String>>>,
    /// Refit when this many games arrived since the last fit.
    pub refit_every: Option<u64>,
    /// Games in the folder when its population was last fitted.
    pub fitted_at: Option<u64>,
    pub server: Option<Job<ServerMessage>>,
    pub link: Option<String>,
    /// Who can open `link`.
    pub reach: Option<Reach>,
    /// What the served folder held when the server started.
    pub resumed: Option<String>,
    /// The folder served now (or last).
    pub served: Option<PathBuf>,
    /// The folder served before the server starting now, back in `served`
    /// if this one never starts.
    before: Option<PathBuf>,
    /// The server running now has started (sent its link).
    started: bool,
    /// Why the last Serve did not start or the server stopped, in full;
    /// kept until the next Serve.
    pub server_error: Option<String>,
    /// Where a Serve without a folder writes: the data folder's
    /// `playtests/` (`None` without a data folder).
    pub home: Option<PathBuf>,
}

impl Background for PlaytestLive {
    type Message = ServerMessage;
    fn job(&self) -> Option<&Job<ServerMessage>> {
        self.server.as_ref()
    }
}

impl PlaytestLive {
    pub fn follow(&mut self, folder: Option<PathBuf>) {
        if let Some(j) = self.reading.take() {
            j.cancel();
        }
        self.folder = folder;
        self.status = None;
        self.read_at = None;
        self.fitted_at = None;
    }

    /// Games in the folder, as last read.
    pub fn games(&self) -> Option<u64> {
        match &self.status {
            Some(Ok(s)) => Some(s.total().games),
            _ => None,
        }
    }

    /// Takes what the jobs sent, reads the folder again when due; true
    /// when a refit is due (enough new games since the last fit).
    pub fn poll(&mut self, ctx: &egui::Context) -> bool {
        if let Some(job) = &mut self.reading {
            if let Some(r) = job.drain().pop() {
                self.status = Some(r);
            }
            if job.ended() {
                self.reading = None;
            }
        }
        if let Some(job) = &mut self.server {
            for m in job.drain() {
                match m {
                    ServerMessage::Started { link, reach, resumed } => {
                        self.started = true;
                        self.link = Some(link);
                        self.reach = Some(reach);
                        self.resumed = Some(resumed);
                    }
                    ServerMessage::Failed(e) => self.server_error = Some(e),
                }
            }
            if job.ended() {
                if !self.started {
                    // Refused: the folder was never served.
                    self.served = self.before.take();
                }
                self.server = None;
                self.link = None;
                self.reach = None;
                self.resumed = None;
            }
        }
        let Some(folder) = self.folder.clone() else {
            return false;
        };
        let due = self.read_at.is_none_or(|t| t.elapsed() >= EVERY);
        if due && self.reading.is_none() {
            self.read_at = Some(Instant::now());
            let read = Job::spawn("playtest-status", ctx, move |send, _| {
                send(tenten_playtest::status(&folder).map_err(|e| e.to_string()));
            });
            match read {
                Ok(j) => self.reading = Some(j),
                Err(e) => self.status = Some(Err(format!("cannot read the folder: {e}"))),
            }
        }
        ctx.request_repaint_after(EVERY);
        match (self.refit_every, self.games()) {
            (Some(n), Some(games)) if games > 0 => games >= self.fitted_at.unwrap_or(0) + n,
            _ => false,
        }
    }

    /// Starts a server on `req` (on a job; its cancel stops it). It
    /// listens on `PORT`, or the first free port after it.
    pub fn serve(&mut self, req: ServeRequest, ctx: &egui::Context) {
        if self.server.is_some() {
            return;
        }
        self.server_error = None;
        self.link = None;
        self.reach = None;
        self.resumed = None;
        self.started = false;
        self.before = self.served.replace(req.folder.clone());
        let job = Job::spawn("playtest-server", ctx, move |send, progress| {
            let dealing = match Dealing::by_name(&req.generator, &req.set) {
                Ok(d) => d,
                Err(e) => return send(ServerMessage::Failed(e.to_string())),
            };
            let ip: IpAddr = if req.open {
                [0, 0, 0, 0].into()
            } else {
                [127, 0, 0, 1].into()
            };
            let mut config = Config {
                generators: vec![Generator {
                    name: req.generator.clone(),
                    dealing,
                }],
                set: req.set,
                size: req.size,
                k: req.k,
                out: req.folder,
                bind: (ip, PORT).into(),
                assign: Assign::Alternate,
                token: if req.open { Token::Kept } else { Token::None },
                limits: Limits::default(),
                study: None,
                trusted_proxy: None,
                allowed_hosts: vec![],
                faults: Default::default(),
                who: WHO.into(),
                behaviour: tenten_playtest::BEHAVIOUR,
            };
            let mut server = None;
            for port in PORT..PORT + PORTS {
                let addr = SocketAddr::from((ip, port));
                // A port another program (or window) holds is skipped; any
                // other refusal (the folder's lock, its identity) is told.
                if std::net::TcpListener::bind(addr).is_err() {
                    continue;
                }
                config.bind = addr;
                match Server::bind(config.clone()) {
                    Ok(s) => {
                        server = Some(s);
                        break;
                    }
                    Err(_) if std::net::TcpListener::bind(addr).is_err() => continue,
                    Err(e) => return send(ServerMessage::Failed(e.to_string())),
                }
            }
            let Some(server) = server else {
                return send(ServerMessage::Failed(format!(
                    "cannot listen on {ip}: ports {PORT} to {} are all taken",
                    PORT + PORTS - 1
                )));
            };
            let link = server.link();
            let r = &server.recovery;
            send(ServerMessage::Started {
                reach: reach(&link, req.open),
                link,
                resumed: if r.testers == 0 {
                    "a new playtest".to_owned()
                } else {
                    format!(
                        "resumed: {} testers so far, {} sessions resumed",
                        r.testers, r.resumed
                    )
                },
            });
            let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return send(ServerMessage::Failed(format!("cannot start the server: {e}"))),
            };
            let stopped = async {
                while !progress.cancelled() {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            };
            if let Err(e) = runtime.block_on(server.run(stopped)) {
                send(ServerMessage::Failed(format!("the server failed: {e}")));
            }
        });
        match job {
            Ok(j) => self.server = Some(j),
            Err(e) => {
                self.served = self.before.take();
                self.server_error = Some(format!("cannot start the server: {e}"));
            }
        }
    }
}

/// Who can open `link`: this machine only when not `open`; when open, an
/// outward address, or none found (the link fell back to 127.0.0.1).
pub fn reach(link: &str, open: bool) -> Reach {
    if !open {
        return Reach::ThisMachine;
    }
    let host = link
        .split_once("://")
        .map_or(link, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    match host.parse::<SocketAddr>() {
        Ok(a) if a.ip().is_loopback() || a.ip().is_unspecified() => Reach::NoOutward,
        _ => Reach::Outward,
    }
}

/// Where a Serve writes: the folder the designer chose (checked), else a
/// new folder under `home` (the data folder's `playtests/`) named after
/// the generator and the time; without either, why not.
pub fn serve_folder(chosen: Option<&Path>, home: Option<&Path>, generator: &str) -> Result<PathBuf, String> {
    let folder = match (chosen, home) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(home)) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            new_folder(home, generator, now)
        }
        (None, None) => {
            return Err(
                "there is no data folder to make a new playtest folder in: type the folder to serve into \
                 (a new or empty one, or a playtest's folder to resume it)"
                    .to_owned(),
            );
        }
    };
    check_folder(&folder)?;
    Ok(folder)
}

/// A folder a server may write into: not under the program's `presets/`,
/// not a file, not a folder of logs that is no playtest's.
pub fn check_folder(dir: &Path) -> Result<(), String> {
    if let Some(presets) = under_presets(dir) {
        return Err(format!(
            "{} is under the program's presets folder ({}), which holds the shipped examples: \
             serve into a folder of your own, or leave the folder empty for a new one in the data folder",
            dir.display(),
            presets.display()
        ));
    }
    if dir.is_file() {
        return Err(format!("{} is a file, not a folder", dir.display()));
    }
    if dir.is_dir() && !dir.join("playtest.json").exists() {
        let logs = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: cannot read the folder: {e}", dir.display()))?
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "jsonl"));
        if logs {
            return Err(format!(
                "{} holds logs but no playtest.json: it is no playtest's folder, and the testers' logs \
                 would mix with its own. Serve into a new or empty folder, or a playtest's folder to resume it",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// The folder holds a playtest (`playtest.json`): serving it resumes it.
pub fn is_playtest(dir: &Path) -> bool {
    dir.join("playtest.json").is_file()
}

/// The program's `presets/` folder `dir` is in, if any (the working
/// folder's, or the one of the clone this binary was built from).
fn under_presets(dir: &Path) -> Option<PathBuf> {
    let here = std::env::current_dir().ok().map(|d| d.join("presets"));
    let built = Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("presets"));
    let dir = resolved(dir);
    [here, built]
        .into_iter()
        .flatten()
        .filter(|p| p.is_dir())
        .map(|p| resolved(&p))
        .find(|p| dir.starts_with(p))
}

/// `path` made absolute, `.` and `..` taken out, and its deepest existing
/// folder's links followed (so a link into `presets/` is seen).
fn resolved(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut plain = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                plain.pop();
            }
            c => plain.push(c),
        }
    }
    let mut rest = Vec::new();
    let mut at = plain.as_path();
    loop {
        if let Ok(mut real) = at.canonicalize() {
            real.extend(rest.iter().rev());
            return real;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                at = parent;
            }
            _ => return plain,
        }
    }
}

/// A new folder under `home`: `GENERATOR-YYYY-MM-DD-HHMMSS` (UTC), with
/// `-2`, `-3`… when that one exists.
pub fn new_folder(home: &Path, generator: &str, unix_secs: u64) -> PathBuf {
    let base = format!("{}-{}", slug(generator), stamp(unix_secs));
    (1..)
        .map(|n| {
            home.join(if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            })
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| home.join(base))
}

/// A generator's name (or file's stem) as a folder name.
fn slug(generator: &str) -> String {
    let name = Path::new(generator)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(generator);
    let name = name.strip_suffix(".ron").unwrap_or(name);
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(48)
        .collect();
    let s = s.trim_matches('-');
    if s.is_empty() {
        "playtest".to_owned()
    } else {
        s.to_owned()
    }
}

/// `YYYY-MM-DD-HHMMSS` of a Unix time, in UTC.
fn stamp(unix_secs: u64) -> String {
    let days = i64::try_from(unix_secs / 86_400).unwrap_or(0);
    let s = unix_secs % 86_400;
    // Days to a civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}-{:02}{:02}{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_the_utc_date_and_time() {
        assert_eq!(stamp(0), "1970-01-01-000000");
        assert_eq!(stamp(1_700_000_000), "2023-11-14-221320");
        assert_eq!(stamp(951_782_400), "2000-02-29-000000");
        assert_eq!(stamp(4_102_444_799), "2099-12-31-235959");
    }

    #[test]
    fn a_new_folder_is_named_after_the_generator_and_never_reused() {
        let home = std::env::temp_dir().join(format!("tenten-serve-new-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let a = new_folder(&home, "/some/where/my tuned.ron", 0);
        assert_eq!(a, home.join("my-tuned-1970-01-01-000000"));
        std::fs::create_dir_all(&a).unwrap();
        assert_eq!(
            new_folder(&home, "my tuned.ron", 0),
            home.join("my-tuned-1970-01-01-000000-2")
        );
        assert_eq!(slug("?!"), "playtest");
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn presets_are_refused_and_no_folder_without_a_data_folder() {
        let presets = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets");
        let e = serve_folder(Some(&presets.join("cohorts/demo/random")), None, "random").unwrap_err();
        assert!(
            e.contains("presets folder") && e.contains("shipped examples"),
            "{e}"
        );
        // A folder not made yet, reached through `..`, is refused too.
        let sneaky = presets.join("cohorts/../new-playtest");
        assert!(serve_folder(Some(&sneaky), None, "random").is_err());
        let e = serve_folder(None, None, "random").unwrap_err();
        assert!(e.contains("no data folder"), "{e}");
        let home = std::env::temp_dir().join("tenten-serve-home");
        let f = serve_folder(None, Some(&home), "block-blast-like").unwrap();
        assert!(
            f.starts_with(&home)
                && f.file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with("block-blast-like-20")
        );
    }

    #[test]
    fn a_link_on_the_loopback_reaches_no_phone() {
        assert_eq!(reach("http://127.0.0.1:8080/", false), Reach::ThisMachine);
        assert_eq!(reach("http://127.0.0.1:8080/?t=ab", true), Reach::NoOutward);
        assert_eq!(reach("http://192.168.1.20:8081/?t=ab", true), Reach::Outward);
    }
}
