//! One scripted tester of `playtest rehearse`: a population's simulated
//! player at a real server's page API, over HTTP. It joins as a page does
//! (an id it makes up), reads the board and holder the server shows,
//! places the pieces where the player model chooses, one move a request,
//! and after each game asks the quit model whether to stop the session;
//! a stopped session ends as a tester's does in the field, by going idle.
//! The server deals, checks and logs; the tester sees only what a page
//! sees.

use std::time::Duration;

use serde_json::{Value, json};
use tenten_engine::fits::population::quit::{MAX_GAMES, Quit};
use tenten_engine::fits::population::session::QUIT_STREAM;
use tenten_engine::model::board::Bits;
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::play::adaptive::History;
use tenten_engine::play::game::{End, Strategy, lost_to};
use tenten_engine::play::player::{Player, PlayerStrategy};
use tenten_engine::progress::Progress;

/// The server a tester plays at, and what its requests share.
pub struct Site<'a> {
    pub http: &'a reqwest::Client,
    pub base: &'a str,
    pub shapes: &'a Shapes,
    pub set: &'a PieceSet,
    /// Requests in flight at once, over all testers: the loopback's
    /// sockets stay within the open-file limit.
    pub gate: &'a tokio::sync::Semaphore,
    /// Sessions played at once. A tester waits for a place before a
    /// session, never inside one: with every tester mid-game at once, a
    /// tester's next request could wait past the idle limit and the server
    /// would end the session under it.
    pub playing: &'a tokio::sync::Semaphore,
    /// How long a session left alone takes to end (the server's idle
    /// limit, and a margin: it counts whole seconds).
    pub idle: Duration,
    pub max_rounds: u32,
    /// Sessions played to their end, over all testers (what the ticker
    /// says while a server of an hour plays).
    pub progress: &'a Progress,
}

/// What one tester did, as the tester counted it (the server's logs are
/// what the comparison reads; these are a cross-check).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Played {
    pub sessions: u32,
    pub games: u32,
    pub moves: u64,
    pub requests: u64,
}

/// Plays `sessions` sessions as `player` under `quit`, its choices and
/// its quits drawn from `seed`.
pub async fn play(
    site: &Site<'_>,
    id: &str,
    player: Player,
    quit: &Quit,
    sessions: u32,
    seed: u64,
) -> Result<Played, String> {
    let mut strategy = PlayerStrategy::new(player);
    let mut rng = Generator::new(seed);
    let mut quits = Generator::new(seed ^ QUIT_STREAM);
    let mut history = History::default();
    let mut done = Played::default();
    for s in 0..sessions {
        if s > 0 {
            // The last session ends as a tester's does: no move for the
            // server's idle limit; the next visit begins a new one.
            tokio::time::sleep(site.idle).await;
        }
        let _place = site.playing.acquire().await.map_err(|e| e.to_string())?;
        let mut view = post(site, &mut done, "/api/state", &json!({ "tester": id })).await?;
        if number(&view, "session")? != u64::from(s) {
            return Err(format!(
                "tester {id}: the server opened session {} where {s} was due",
                number(&view, "session")?
            ));
        }
        history.new_session();
        done.sessions += 1;
        for g in 0..MAX_GAMES {
            let rounds;
            (view, rounds) = play_game(site, &mut done, id, &view, &mut strategy, &mut rng).await?;
            done.games += 1;
            history.ended(rounds.0, rounds.1 == End::Unfair);
            // A session's games stop at the simulation's cap too.
            if quits.unit() < quit.chance_after(&history) || g + 1 == MAX_GAMES {
                break;
            }
            let body = json!({ "tester": id, "session": s, "game": number(&view, "game")? });
            view = post(site, &mut done, "/api/new-game", &body).await?;
        }
        site.progress.advance(1);
    }
    Ok(done)
}

/// One game from `view` (a fresh game's) to its end: the last view, and
/// the game's rounds and how it ended, judged as the engine judges a game.
async fn play_game(
    site: &Site<'_>,
    done: &mut Played,
    id: &str,
    start: &Value,
    strategy: &mut PlayerStrategy,
    rng: &mut Generator,
) -> Result<(Value, (u32, End)), String> {
    let never = Progress::default();
    let mut view = start.clone();
    let mut moves = Vec::new();
    loop {
        let rounds = u32::try_from(number(&view, "round")?).unwrap_or(u32::MAX);
        let (board, mut slots) = read_view(site.set, &view)?;
        let holder: Vec<PieceIdx> = slots.iter().flatten().copied().collect();
        if view["over"].as_bool() == Some(true) {
            // Over before a move: the deal could not be started.
            return Ok((
                view,
                (rounds, lost_to(site.shapes, site.set, board, &holder, false)),
            ));
        }
        if rounds >= site.max_rounds {
            // The simulation's cap: the game counts as cut off, and the
            // tester leaves it for a new one.
            return Ok((view, (rounds, End::Censored)));
        }
        if holder.is_empty() {
            return Err(format!(
                "tester {id}: the server shows an empty holder in a game not over"
            ));
        }
        let played = strategy.play(site.shapes, board, &holder, rng, &mut moves, &never);
        let w = site.shapes.size().w() as u32;
        for &(piece, anchor) in &moves {
            let slot = slots
                .iter()
                .position(|p| *p == Some(piece))
                .ok_or_else(|| format!("tester {id}: the player placed a piece the holder lacks"))?;
            slots[slot] = None;
            let body = json!({
                "tester": id,
                "session": number(&view, "session")?,
                "game": number(&view, "game")?,
                "seen": number(&view, "moves")?,
                "slot": slot,
                "x": anchor % w,
                "y": anchor / w,
            });
            let answer = post(site, done, "/api/move", &body).await?;
            view = answer["state"].clone();
            done.moves += 1;
        }
        if played.is_none() {
            // Stuck: the pieces placed are in, and the game's end is the
            // deal's, judged on the board it was dealt on. Where the server
            // still sees a piece that fits (a player that gave up), the
            // caller leaves the game as a tester does: by a new game, or by
            // going idle after the session's last (the server then logs
            // the unfinished deal, which a log reads as the end, and its
            // history of the player, which an adaptive arm deals from,
            // has the game so too).
            let end = lost_to(site.shapes, site.set, board, &holder, false);
            return Ok((view, (rounds, end)));
        }
    }
}

/// The board and the holder's slots of a view (`None`: placed).
fn read_view(set: &PieceSet, view: &Value) -> Result<(Bits, Vec<Option<PieceIdx>>), String> {
    let rows = view["board"].as_array().ok_or("the view has no board")?;
    let mut board: Bits = 0;
    let w = rows.first().and_then(Value::as_str).map_or(0, str::len);
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.as_str().ok_or("a board row is not text")?.chars().enumerate() {
            if c == '#' {
                board |= 1 << (y * w + x);
            }
        }
    }
    let mut slots = Vec::new();
    for p in view["holder"].as_array().ok_or("the view has no holder")? {
        slots.push(match p.get("id").and_then(Value::as_str) {
            Some(piece) => Some(
                set.index_of(piece)
                    .ok_or_else(|| format!("the server dealt {piece:?}, not in the set"))?,
            ),
            None => None,
        });
    }
    Ok((board, slots))
}

fn number(v: &Value, field: &str) -> Result<u64, String> {
    v[field]
        .as_u64()
        .ok_or_else(|| format!("the server's answer has no {field}: {v}"))
}

/// A POST as the page makes it: refused for load (429, 503) it waits and
/// tries again, as the page does; any other refusal is an error naming
/// the request and the server's words.
async fn post(site: &Site<'_>, done: &mut Played, path: &str, body: &Value) -> Result<Value, String> {
    let mut wait = Duration::from_millis(50);
    for _ in 0..40 {
        let _permit = site.gate.acquire().await.map_err(|e| e.to_string())?;
        done.requests += 1;
        let r = site
            .http
            .post(format!("{}{path}", site.base))
            .json(body)
            .send()
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        let status = r.status().as_u16();
        let answer: Value = r.json().await.map_err(|e| format!("{path}: {e}"))?;
        match status {
            200 => return Ok(answer),
            429 | 503 => {
                drop(_permit);
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
            _ => return Err(format!("{path} answered {status}: {answer}")),
        }
    }
    Err(format!("{path}: refused for load 40 times in a row"))
}
