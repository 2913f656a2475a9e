//! The page's requests: the state of the tester's game, a move, a new
//! game. Every body is JSON read here (so a malformed one gets a JSON error
//! naming what is wrong), every refusal a 4xx with `{"error", "code"}`, and
//! the work itself, a file sync included, off the async threads.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use tenten_engine::model::board::Bits;

use crate::config::{Config, Study};
use crate::guard::Client;
use crate::limits::Buckets;
use crate::store::{Error, MoveRequest, Session, Store, Tester};
use crate::table::Refusal;

pub struct App {
    pub store: Store,
    pub testers: Buckets,
    /// New testers arriving, all together.
    pub arrivals: Buckets,
    /// New testers arriving from one address (a room behind one NAT
    /// arrives within seconds; a client making up ids is held to it).
    pub arrivals_by_address: Buckets,
}

/// A refusal as the page reads it.
pub fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    #[derive(Serialize)]
    struct Body<'a> {
        error: String,
        code: &'a str,
    }
    (
        status,
        Json(Body {
            error: message.into(),
            code,
        }),
    )
        .into_response()
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let (status, code) = match &self {
            Error::Refused(r) => (
                match r {
                    Refusal::NoSlot(_) | Refusal::OutOfBounds(_) => StatusCode::BAD_REQUEST,
                    _ => StatusCode::CONFLICT,
                },
                r.code(),
            ),
            Error::Bad(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            Error::Unknown => (StatusCode::NOT_FOUND, "unknown_tester"),
            Error::NoSession(_) => (StatusCode::NOT_FOUND, "unknown_session"),
            Error::Full(_) => (StatusCode::SERVICE_UNAVAILABLE, "full"),
            Error::Busy => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            Error::NotAgreed => (StatusCode::FORBIDDEN, "agree"),
            Error::Folder(m) | Error::Doubt(m) => {
                eprintln!("playtest: {m}");
                (StatusCode::INTERNAL_SERVER_ERROR, "storage")
            }
        };
        let message = match &self {
            // The folder's path is the designer's business, not the page's.
            Error::Folder(_) => "the server could not store this; nothing was changed, try again".to_owned(),
            Error::Doubt(_) => {
                "the server could not tell whether this was stored; reload the page".to_owned()
            }
            e => e.to_string(),
        };
        error(status, code, message)
    }
}

/// A JSON body, or the JSON error saying why not.
fn parse<T: for<'de> Deserialize<'de>>(body: Result<Bytes, BytesRejection>) -> Result<T, Box<Response>> {
    let bytes = body.map_err(|r| {
        let status = r.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "the request body is too large (a move is a few dozen bytes)".to_owned()
        } else {
            r.body_text()
        };
        Box::new(error(status, "body", message))
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        Box::new(error(
            StatusCode::BAD_REQUEST,
            "malformed",
            format!("malformed request: {e}"),
        ))
    })
}

/// Runs `work` on a blocking thread (it syncs files).
async fn blocking<T: Serialize + Send + 'static>(
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Response {
    // At most this many requests touch files at once: each holds a file
    // open while it syncs, and the server keeps a reserve of descriptors
    // beside its connections for them (the rest wait their turn here).
    static WORK_TURNS: std::sync::LazyLock<Arc<tokio::sync::Semaphore>> =
        std::sync::LazyLock::new(|| Arc::new(tokio::sync::Semaphore::new(crate::server::FILE_WORK)));
    let Ok(turn) = WORK_TURNS.clone().acquire_owned().await else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "busy", "the server is stopping");
    };
    // The turn goes with the work: a request the deadline drops still
    // holds it until its file work is done.
    let work = move || {
        let done = work();
        drop(turn);
        done
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the request failed; try again",
        ),
    }
}

/// A request made for a tester (its rate is theirs).
trait ForTester {
    fn tester(&self) -> &str;

    /// Its numbers within their bounds, or what is out of bounds.
    fn check(&self, _limits: &crate::config::Limits) -> Result<(), String> {
        Ok(())
    }
}

/// The request read, if its tester may make one now (429 if not). The id's
/// form and the numbers are checked before anything is kept for the id, and
/// only a tester the store knows is given a rate bucket: made-up ids (a
/// flood of them) hold no memory. An unknown id's request is then refused
/// by its handler, or arrives under the arrivals' own bucket.
fn admit<T: for<'de> Deserialize<'de> + ForTester>(
    app: &App,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, Box<Response>> {
    let req: T = parse(body)?;
    let id = req.tester();
    if !crate::ids::is_tester(id) {
        return Err(Box::new(error(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!(
                "tester id {:?} is not {} lower-case hex digits",
                id.chars().take(40).collect::<String>(),
                crate::ids::TESTER_LEN
            ),
        )));
    }
    req.check(&app.store.config.limits).map_err(|m| {
        Box::new(error(
            StatusCode::BAD_REQUEST,
            "malformed",
            format!("malformed request: {m}"),
        ))
    })?;
    if app.store.tester(id).is_ok() && !app.testers.allow(id) {
        return Err(Box::new(error(
            StatusCode::TOO_MANY_REQUESTS,
            "rate",
            "too many requests from this tester; slow down",
        )));
    }
    Ok(req)
}

impl ForTester for MoveRequest {
    fn tester(&self) -> &str {
        &self.tester
    }

    /// A deal's time is bounded (it is summed and averaged by every fit).
    fn check(&self, limits: &crate::config::Limits) -> Result<(), String> {
        if self.ms > limits.max_ms {
            return Err(format!(
                "ms is {}, above its bound of {} (a day: the longest a deal is taken over)",
                self.ms, limits.max_ms
            ));
        }
        Ok(())
    }
}

impl ForTester for StateRequest {
    fn tester(&self) -> &str {
        &self.tester
    }
}

impl ForTester for NewGameRequest {
    fn tester(&self) -> &str {
        &self.tester
    }
}

/// A piece as the page draws it.
#[derive(Serialize)]
struct PieceView {
    id: String,
    cells: Vec<(u8, u8)>,
    width: usize,
    height: usize,
}

/// Everything the page shows of a tester's game.
#[derive(Serialize)]
pub struct View {
    tester: String,
    session: u32,
    game: u64,
    round: u64,
    /// Moves made in the game: the page sends it back with its next move.
    moves: u64,
    score: u64,
    width: usize,
    height: usize,
    board: Vec<String>,
    holder: Vec<Option<PieceView>>,
    over: bool,
}

fn view(config: &Config, tester: &str, s: &Session) -> View {
    let e = &s.table.episode;
    View {
        tester: tester.to_owned(),
        session: s.number,
        game: s.table.game,
        round: u64::from(e.rounds),
        moves: s.table.moves,
        score: e.score,
        width: config.size.w(),
        height: config.size.h(),
        board: s.table.rows(),
        holder: e
            .holder
            .iter()
            .map(|p| {
                p.map(|p| {
                    let piece = config.set.piece(p);
                    PieceView {
                        id: piece.id.clone(),
                        cells: piece.cells().to_vec(),
                        width: piece.width(),
                        height: piece.height(),
                    }
                })
            })
            .collect(),
        over: s.table.over().is_some(),
    }
}

fn lock(t: &std::sync::Mutex<Tester>) -> std::sync::MutexGuard<'_, Tester> {
    t.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateRequest {
    tester: String,
}

/// What the page is shown on arrival: the game, or the study to agree to
/// first (nothing of the tester is kept until they agree).
#[derive(Serialize)]
#[serde(untagged)]
enum Arrival {
    Game(View),
    Study { tester: String, study: Study },
}

pub async fn state(
    State(app): State<Arc<App>>,
    client: Option<Extension<Client>>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let client = client.map(|Extension(c)| c);
    let req: StateRequest = match admit(&app, body) {
        Ok(r) => r,
        Err(e) => return *e,
    };
    blocking(move || {
        let study = || Arrival::Study {
            tester: req.tester.clone(),
            study: app.store.config.study.clone().expect("asked only with a study"),
        };
        // Nothing of a tester is kept before they agree to the study.
        if app.store.config.study.is_some() && matches!(app.store.tester(&req.tester), Err(Error::Unknown)) {
            return Ok(study());
        }
        on_tester(&app, &req.tester, client, |t| {
            if app.store.needs_agreement(t) {
                return Ok(study());
            }
            let id = t.id.clone();
            let s = app.store.session(t, false)?;
            Ok(Arrival::Game(view(&app.store.config, &id, s)))
        })
    })
    .await
}

/// Runs `work` on the tester `id`, locked, made first if new (and testers
/// may arrive now). A new tester whose first session is refused is
/// forgotten; a request that waited on a tester forgotten so is run on the
/// id looked up again.
fn on_tester<T>(
    app: &App,
    id: &str,
    client: Option<Client>,
    mut work: impl FnMut(&mut Tester) -> Result<T, Error>,
) -> Result<T, Error> {
    loop {
        let handle = match app.store.tester(id) {
            Ok(t) => t,
            Err(Error::Unknown) => arrive(app, id, client)?,
            Err(e) => return Err(e),
        };
        let mut t = lock(&handle);
        if t.gone {
            continue;
        }
        let done = work(&mut t);
        if done.is_err() {
            app.store.forget_new(&handle, &mut t);
        }
        return done;
    }
}

/// A tester seen for the first time (their id's form checked already by
/// the lookup that did not find them), if testers may arrive now: from
/// everyone together, and from the client's address (so one client making
/// up ids cannot take every arrival, nor fill the playtest by itself).
fn arrive(app: &App, id: &str, client: Option<Client>) -> Result<Arc<std::sync::Mutex<Tester>>, Error> {
    if let Some(Client(ip)) = client
        && !app.arrivals_by_address.allow(&ip.to_string())
    {
        return Err(Error::Busy);
    }
    if !app.arrivals.allow("") {
        return Err(Error::Busy);
    }
    app.store.arrive(id)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AgreeRequest {
    tester: String,
}

impl ForTester for AgreeRequest {
    fn tester(&self) -> &str {
        &self.tester
    }
}

/// The tester agrees to the study: journalled, and their game begins.
pub async fn agree(
    State(app): State<Arc<App>>,
    client: Option<Extension<Client>>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let client = client.map(|Extension(c)| c);
    let req: AgreeRequest = match admit(&app, body) {
        Ok(r) => r,
        Err(e) => return *e,
    };
    blocking(move || {
        on_tester(&app, &req.tester, client, |t| {
            let id = t.id.clone();
            let s = app.store.agree(t)?;
            Ok(view(&app.store.config, &id, s))
        })
    })
    .await
}

/// What a move did, and the game after it.
#[derive(Serialize)]
struct Moved {
    points: u64,
    /// Cells the lines it completed cleared, [column, row].
    cleared: Vec<(usize, usize)>,
    state: View,
}

fn cells(config: &Config, bits: Bits) -> Vec<(usize, usize)> {
    let w = config.size.w();
    (0..config.size.cells())
        .filter(|&i| bits >> i & 1 == 1)
        .map(|i| (i % w, i / w))
        .collect()
}

pub async fn play(State(app): State<Arc<App>>, body: Result<Bytes, BytesRejection>) -> Response {
    let req: MoveRequest = match admit(&app, body) {
        Ok(r) => r,
        Err(e) => return *e,
    };
    blocking(move || {
        let t = app.store.tester(&req.tester)?;
        let mut t = lock(&t);
        let placed = app.store.play(&mut t, &req)?;
        let id = t.id.clone();
        let s = t.session.as_ref().ok_or(Error::NoSession(req.session))?;
        let config = &app.store.config;
        Ok(Moved {
            points: placed.points,
            cleared: cells(config, placed.cleared),
            state: view(config, &id, s),
        })
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGameRequest {
    tester: String,
    session: u32,
    game: u64,
}

pub async fn new_game(State(app): State<Arc<App>>, body: Result<Bytes, BytesRejection>) -> Response {
    let req: NewGameRequest = match admit(&app, body) {
        Ok(r) => r,
        Err(e) => return *e,
    };
    blocking(move || {
        let t = app.store.tester(&req.tester)?;
        let mut t = lock(&t);
        app.store.new_game(&mut t, req.session, req.game)?;
        let id = t.id.clone();
        let s = t.session.as_ref().ok_or(Error::NoSession(req.session))?;
        Ok(view(&app.store.config, &id, s))
    })
    .await
}
