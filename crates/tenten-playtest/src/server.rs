//! The server: axum's routes on hyper connections we accept ourselves, so
//! a client that sends nothing is cut off (hyper's header-read timeout,
//! which `axum::serve` does not expose), connections are capped (in all,
//! to what the open-file limit allows, and per client address), every
//! request is admitted by `guard` first, and its handling has a deadline.

use std::future::Future;
use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::api::{self, App, error};
use crate::config::Config;
use crate::guard::{self, Guard};
use crate::limits::Buckets;
use crate::page;
use crate::recover::Recovery;
use crate::store::{Error, Store};

pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    guard: Arc<Guard>,
    pub recovery: Recovery,
    pub addr: SocketAddr,
    pub capacity: Capacity,
}

/// How many connections the server holds at once, and what bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// The configured limit, or what the open-file limit leaves room for.
    pub connections: usize,
    /// The process's open-file limit (its soft limit raised to the hard).
    pub open_files: u64,
}

/// Files kept free of connections, besides those open at start: a request
/// in flight opens its journal and log (one at a time), then closes them.
const FILE_RESERVE: u64 = 64;

/// Requests doing file work at once (`api::blocking` waits for a turn):
/// each holds at most two files open (a journal and its folder, or a log),
/// so they stay well inside `FILE_RESERVE`.
pub const FILE_WORK: usize = 24;

impl Capacity {
    /// Raises the open-file limit as far as it goes (the soft limit is
    /// often 1,024 where the hard one allows far more), and caps `wanted`
    /// connections to what fits under it: past it, accepting fails (and a
    /// journal cannot be opened) instead of a connection being refused.
    fn of(wanted: usize) -> Self {
        let open_files = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
        let reserve = (FILE_RESERVE + open_now()).min(open_files / 2);
        let room = usize::try_from(open_files - reserve).unwrap_or(usize::MAX);
        Self {
            connections: wanted.min(room).max(1),
            open_files,
        }
    }
}

/// Files this process holds open now (Linux's count; elsewhere none known).
fn open_now() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count() as u64)
}

impl Server {
    /// Binds the address and opens the folder (resuming what it holds).
    pub fn bind(config: Config) -> Result<Self, Error> {
        if config.generators.is_empty() {
            return Err(Error::Bad("give at least one generator".into()));
        }
        // The folder first: a second server on it is told who holds it,
        // not that the port is taken.
        let bind = config.bind;
        let limits = config.limits;
        let guard = Arc::new(Guard::new(&config));
        let (store, recovery) = Store::open(config)?;
        let listener =
            TcpListener::bind(bind).map_err(|e| Error::Folder(format!("cannot listen on {bind}: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::Folder(format!("cannot listen on {bind}: {e}")))?;
        Ok(Self {
            listener,
            app: Arc::new(App {
                store,
                testers: Buckets::new(limits.per_second, limits.burst),
                arrivals: Buckets::new(limits.arrivals_per_second, limits.arrival_burst),
                arrivals_by_address: Buckets::new(
                    limits.arrivals_per_address,
                    limits.arrivals_per_address * 12.0,
                ),
            }),
            guard,
            recovery,
            addr,
            capacity: Capacity::of(limits.connections),
        })
    }

    /// The link a tester opens: this machine's address (its outward one
    /// when bound to all interfaces), with the token if there is one.
    pub fn link(&self) -> String {
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            // Connecting a UDP socket sends nothing; it picks the interface.
            if let Some(ip) = UdpSocket::bind("0.0.0.0:0")
                .and_then(|s| s.connect("192.0.2.1:9").and_then(|()| s.local_addr()))
                .ok()
                .map(|a| a.ip())
                .filter(|ip| !ip.is_unspecified())
            {
                addr.set_ip(ip);
            } else {
                addr.set_ip([127, 0, 0, 1].into());
            }
        }
        match self.app.store.token() {
            Some(t) => format!("http://{addr}/?t={t}"),
            None => format!("http://{addr}/"),
        }
    }

    pub fn router(&self) -> Router {
        let app = self.app.clone();
        let timeout = app.store.config.limits.request_timeout;
        Router::new()
            .route("/", get(page::index))
            .route("/page.js", get(page::script))
            .route("/page.css", get(page::style))
            .route("/api/state", post(api::state))
            .route("/api/move", post(api::play))
            .route("/api/new-game", post(api::new_game))
            .route("/api/agree", post(api::agree))
            .layer(axum::extract::DefaultBodyLimit::max(
                app.store.config.limits.body_bytes,
            ))
            .layer(middleware::from_fn_with_state(app.clone(), token))
            .layer(middleware::from_fn_with_state(timeout, deadline))
            // Outermost: a request refused here costs nothing further.
            .layer(middleware::from_fn_with_state(self.guard.clone(), guard::admit))
            .with_state(app)
    }

    /// Serves until `shutdown` completes; then lets requests in flight
    /// finish (a few seconds at most).
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> std::io::Result<()> {
        self.listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(self.listener.try_clone()?)?;
        let router = self.router();
        let limits = self.app.store.config.limits;
        let slots = Arc::new(Semaphore::new(self.capacity.connections));
        let graceful = GracefulShutdown::new();
        let sweeper = {
            let app = self.app.clone();
            let every = (limits.idle_session / 4).clamp(Duration::from_millis(200), Duration::from_secs(60));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let a = app.clone();
                    let _ = tokio::task::spawn_blocking(move || {
                        a.store.sweep();
                        a.testers.prune();
                        a.arrivals.prune();
                        a.arrivals_by_address.prune();
                    })
                    .await;
                }
            })
        };
        tokio::pin!(shutdown);
        loop {
            let (stream, peer) = tokio::select! {
                got = listener.accept() => match got {
                    Ok(s) => s,
                    // Out of file descriptors and the like: wait, go on.
                    Err(_) => { tokio::time::sleep(Duration::from_millis(50)).await; continue; }
                },
                () = &mut shutdown => break,
            };
            // An address holding its share is closed at once, before it
            // can take a slot of all (one client cannot pin them all).
            let Some(held) = self.guard.connect(peer.ip()) else {
                drop(stream);
                continue;
            };
            let Ok(permit) = slots.clone().try_acquire_owned() else {
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            // The peer, for the guard to know the trusted proxy by.
            let service = router
                .clone()
                .map_request(move |mut r: hyper::Request<hyper::body::Incoming>| {
                    r.extensions_mut().insert(ConnectInfo(peer));
                    r
                });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
            let conn = graceful.watch(conn);
            tokio::spawn(async move {
                let _ = conn.await;
                drop((permit, held));
            });
        }
        sweeper.abort();
        let _ = tokio::time::timeout(Duration::from_secs(5), graceful.shutdown()).await;
        Ok(())
    }
}

/// Every request carries the token, when the server has one: `?t=` on the
/// page's URL, the `x-playtest-token` header on the page's requests.
async fn token(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    if let Some(want) = app.store.token() {
        let from_header = req
            .headers()
            .get("x-playtest-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let from_query = req.uri().query().and_then(|q| {
            q.split('&')
                .find_map(|kv| kv.strip_prefix("t="))
                .map(str::to_owned)
        });
        let got = from_header.or(from_query);
        if got.as_deref() != Some(want) {
            return error(
                StatusCode::FORBIDDEN,
                "token",
                if got.is_none() {
                    "this playtest needs the link's token"
                } else {
                    "the token is wrong; open the link you were sent"
                },
            );
        }
    }
    next.run(req).await
}

/// A request (its body read included) that takes too long is answered 408.
async fn deadline(State(limit): State<Duration>, req: Request, next: Next) -> Response {
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => error(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            "the request took too long; a move may have been kept all the same: reload the page",
        ),
    }
}
