//! The core of `tenten.env`: one game (`EnvCore`) or N games stepped in
//! one call (`VecEnvCore`), over the engine's `Episode`. The Gymnasium
//! classes are thin Python subclasses around these.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenten_engine::danger as engine_danger;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::play::episode::{Episode, Step};
use tenten_engine::play::game::End;
use tenten_engine::search::validator::verdict;

use crate::args;
use crate::errors::{format, input};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<EnvCore>()?;
    m.add_class::<VecEnvCore>()?;
    Ok(())
}

/// The reward of a step that placed a piece.
#[derive(Clone, Copy, PartialEq)]
enum Reward {
    /// The points the placement scored (cells, and lines cleared).
    Score,
    /// 1 when the placement finished a round.
    Rounds,
    /// 1 for every piece placed.
    Placed,
}

/// What an illegal action earns: nothing changes, and this.
pub const ILLEGAL_PENALTY: f64 = -1.0;

/// How a game ended, as `info["end"]` says it: the generator's fault
/// ("unfair": the holder could not be placed while another could), the
/// player's ("stuck"), nobody's ("dead": no holder fits), or the cap.
fn end_name(end: Option<End>) -> Option<&'static str> {
    end.map(|e| match e {
        End::Unfair => "unfair",
        End::Stuck => "stuck",
        End::Dead => "dead",
        End::Censored => "capped",
    })
}

/// The end as a code for the vector env: 0 not ended, then as `end_name`.
fn end_code(end: Option<End>) -> u8 {
    match end {
        None => 0,
        Some(End::Stuck) => 1,
        Some(End::Unfair) => 2,
        Some(End::Dead) => 3,
        Some(End::Censored) => 4,
    }
}

fn reward_of(reward: Reward, step: &Step) -> f64 {
    if !step.placed {
        return ILLEGAL_PENALTY;
    }
    match reward {
        Reward::Score => step.points as f64,
        Reward::Rounds => f64::from(u8::from(step.round_over)),
        Reward::Placed => 1.0,
    }
}

/// The parts of a game both cores build alike.
struct Setup {
    episode: Episode,
    reward: Reward,
}

fn setup(
    generator: &str,
    board: (usize, usize),
    holder: usize,
    reward: &str,
    max_rounds: u32,
    pieces: Option<&str>,
) -> PyResult<Setup> {
    let set = args::pieces(pieces)?;
    let size = args::size("board", board)?;
    let holder = args::holder_size("holder", holder)?;
    let reward = match reward {
        "score" => Reward::Score,
        "rounds" => Reward::Rounds,
        "placed" => Reward::Placed,
        other => {
            return Err(input(
                "reward",
                format!("{other:?}; choose score, rounds or placed"),
            ));
        }
    };
    let dealing = Dealing::by_name(generator, &set).map_err(format)?;
    Ok(Setup {
        episode: Episode::new(dealing, set, size, holder, max_rounds),
        reward,
    })
}

/// The board's cells, row by row, 1 filled.
fn board_cells(e: &Episode) -> impl Iterator<Item = u8> + '_ {
    (0..e.size().cells()).map(|i| (e.board >> i & 1) as u8)
}

/// The holder's k slots: a piece's index, or the set's size once placed
/// (or after a game's end), as the observation space says.
fn holder_array(e: &Episode) -> impl Iterator<Item = i64> + '_ {
    let empty = e.set.pieces.len() as i64;
    (0..e.k).map(move |i| e.holder.get(i).copied().flatten().map_or(empty, i64::from))
}

/// One game for Python, a placement at a time.
#[pyclass(module = "tenten._tenten", unsendable)]
pub struct EnvCore {
    setup: Setup,
    danger: bool,
}

#[pymethods]
impl EnvCore {
    #[new]
    #[pyo3(signature = (generator="random", board=(10, 10), holder=3, reward="score", max_rounds=1000, pieces=None, danger=false))]
    fn new(
        generator: &str,
        board: (usize, usize),
        holder: usize,
        reward: &str,
        max_rounds: u32,
        pieces: Option<&str>,
        danger: bool,
    ) -> PyResult<Self> {
        Ok(Self {
            setup: setup(generator, board, holder, reward, max_rounds, pieces)?,
            danger,
        })
    }

    /// (height, width, holder size, pieces in the set)
    fn dims(&self) -> (usize, usize, usize, usize) {
        let e = &self.setup.episode;
        (e.size().h(), e.size().w(), e.k, e.set.pieces.len())
    }

    /// Each piece's cells in a 5x5 box: uint8 (pieces, 5, 5).
    fn shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let set = &self.setup.episode.set;
        let mut out = vec![0u8; set.pieces.len() * 25];
        for (i, p) in set.pieces.iter().enumerate() {
            for &(x, y) in p.cells() {
                out[i * 25 + usize::from(y) * 5 + usize::from(x)] = 1;
            }
        }
        out.into_pyarray(py).reshape([set.pieces.len(), 5, 5])
    }

    fn piece_ids(&self) -> Vec<String> {
        self.setup
            .episode
            .set
            .pieces
            .iter()
            .map(|p| p.id.clone())
            .collect()
    }

    /// Starts game `seed`: (board, holder, info).
    fn reset<'py>(&mut self, py: Python<'py>, seed: u64) -> PyResult<Bound<'py, PyAny>> {
        self.setup.episode.reset(seed);
        let info = self.info(py, true)?;
        self.observe(py, info)
    }

    /// Plays `action`: (board, holder, reward, terminated, truncated, info).
    fn step<'py>(&mut self, py: Python<'py>, action: i64) -> PyResult<Bound<'py, PyAny>> {
        let step = match usize::try_from(action) {
            Ok(a) => self.setup.episode.step(a),
            Err(_) => Step::default(),
        };
        let reward = reward_of(self.setup.reward, &step);
        let info = self.info(py, step.round_over)?;
        info.set_item("legal", step.placed)?;
        let e = &self.setup.episode;
        let terminated = matches!(e.end, Some(End::Stuck | End::Unfair | End::Dead));
        let truncated = e.end == Some(End::Censored);
        let (board, holder) = self.arrays(py)?;
        (board, holder, reward, terminated, truncated, info)
            .into_pyobject(py)
            .map(|t| t.into_any())
    }

    /// 1 for each legal action, int8 (holder * height * width,).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let e = &self.setup.episode;
        let mut mask = vec![0u8; e.actions()];
        e.mask_into(&mut mask);
        mask.into_iter()
            .map(|m| m as i8)
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    #[getter]
    fn rounds(&self) -> u32 {
        self.setup.episode.rounds
    }

    #[getter]
    fn score(&self) -> u64 {
        self.setup.episode.score
    }

    /// Games ended this session (each game that ends joins the player's
    /// history, which a generator's adaptive rules read).
    #[getter]
    fn session_games(&self) -> u32 {
        self.setup.episode.history.session_games
    }

    /// The next game starts a new session: the session's counts start
    /// again, the player's typical game is kept.
    fn new_session(&mut self) {
        self.setup.episode.new_session();
    }
}

impl EnvCore {
    #[allow(clippy::type_complexity)]
    fn arrays<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyArray2<u8>>, Bound<'py, PyArray1<i64>>)> {
        let e = &self.setup.episode;
        let board = board_cells(e)
            .collect::<Vec<_>>()
            .into_pyarray(py)
            .reshape([e.size().h(), e.size().w()])?;
        Ok((board, holder_array(e).collect::<Vec<_>>().into_pyarray(py)))
    }

    fn observe<'py>(&self, py: Python<'py>, info: Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
        let (board, holder) = self.arrays(py)?;
        (board, holder, info).into_pyobject(py).map(|t| t.into_any())
    }

    /// The step's info: the mask, the rounds and score, the end; at a new
    /// deal whether it can be placed (and the board's danger if asked).
    fn info<'py>(&self, py: Python<'py>, dealt: bool) -> PyResult<Bound<'py, PyDict>> {
        let e = &self.setup.episode;
        let info = PyDict::new(py);
        info.set_item("action_mask", self.action_mask(py))?;
        info.set_item("rounds", e.rounds)?;
        info.set_item("score", e.score)?;
        info.set_item("end", end_name(e.end))?;
        if dealt && !e.holder.is_empty() {
            let holder: Vec<u8> = e.holder.iter().flatten().copied().collect();
            info.set_item("solvable", verdict(&e.shapes, e.board, &holder).solvable)?;
            if self.danger {
                let d = engine_danger::danger_probability(&e.shapes, &e.set, e.board, e.k)
                    .map_err(|m| input("danger", m))?;
                info.set_item("danger", d)?;
            }
        }
        Ok(info)
    }
}

/// N games stepped in one call, each reset in place when it ends (with the
/// next seed), its end and rounds reported in that step's arrays.
#[pyclass(module = "tenten._tenten", unsendable)]
pub struct VecEnvCore {
    games: Vec<Setup>,
    next_seed: u64,
}

#[pymethods]
impl VecEnvCore {
    #[new]
    #[pyo3(signature = (n, generator="random", board=(10, 10), holder=3, reward="score", max_rounds=1000, pieces=None))]
    fn new(
        n: usize,
        generator: &str,
        board: (usize, usize),
        holder: usize,
        reward: &str,
        max_rounds: u32,
        pieces: Option<&str>,
    ) -> PyResult<Self> {
        if n == 0 || n > 65_536 {
            return Err(input("n", format!("is {n}; a vector env has 1 to 65,536 games")));
        }
        let games = (0..n)
            .map(|_| setup(generator, board, holder, reward, max_rounds, pieces))
            .collect::<PyResult<_>>()?;
        Ok(Self { games, next_seed: 0 })
    }

    /// Starts game i on seed + i (later resets take seed + n, seed + n + 1,
    /// ... in the order games end): (boards, holders, masks).
    fn reset<'py>(&mut self, py: Python<'py>, seed: u64) -> PyResult<Bound<'py, PyAny>> {
        for (i, g) in self.games.iter_mut().enumerate() {
            g.episode.reset(seed.wrapping_add(i as u64));
        }
        self.next_seed = seed.wrapping_add(self.games.len() as u64);
        let (boards, holders, masks) = self.arrays(py)?;
        (boards, holders, masks).into_pyobject(py).map(|t| t.into_any())
    }

    /// Plays one action per game: (boards, holders, masks, rewards,
    /// terminated, truncated, ends, rounds); a game that ended is already
    /// reset in the arrays, its end code (1 stuck, 2 unfair, 3 dead, 4
    /// capped) and rounds given.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let actions = actions.as_array();
        let n = self.games.len();
        if actions.len() != n {
            return Err(input(
                "actions",
                format!("has {} actions for {n} games", actions.len()),
            ));
        }
        let mut rewards = vec![0f64; n];
        let (mut terminated, mut truncated) = (vec![false; n], vec![false; n]);
        let (mut ends, mut rounds) = (vec![0u8; n], vec![0u32; n]);
        let mut next = self.next_seed;
        for (i, g) in self.games.iter_mut().enumerate() {
            let step = match usize::try_from(actions[i]) {
                Ok(a) => g.episode.step(a),
                Err(_) => Step::default(),
            };
            rewards[i] = reward_of(g.reward, &step);
            rounds[i] = g.episode.rounds;
            if let Some(end) = g.episode.end {
                ends[i] = end_code(Some(end));
                terminated[i] = end != End::Censored;
                truncated[i] = end == End::Censored;
                g.episode.reset(next);
                next = next.wrapping_add(1);
            }
        }
        self.next_seed = next;
        let (boards, holders, masks) = self.arrays(py)?;
        (
            boards,
            holders,
            masks,
            rewards.into_pyarray(py),
            terminated.into_pyarray(py),
            truncated.into_pyarray(py),
            ends.into_pyarray(py),
            rounds.into_pyarray(py),
        )
            .into_pyobject(py)
            .map(|t| t.into_any())
    }
}

impl VecEnvCore {
    #[allow(clippy::type_complexity)]
    fn arrays<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyArray3<u8>>,
        Bound<'py, PyArray2<i64>>,
        Bound<'py, PyArray2<i8>>,
    )> {
        let e = &self.games[0].episode;
        let (n, h, w, k, a) = (self.games.len(), e.size().h(), e.size().w(), e.k, e.actions());
        let mut boards = Vec::with_capacity(n * h * w);
        let mut holders = Vec::with_capacity(n * k);
        let mut masks = vec![0u8; n * a];
        for (g, mask) in self.games.iter().zip(masks.chunks_mut(a)) {
            boards.extend(board_cells(&g.episode));
            holders.extend(holder_array(&g.episode));
            g.episode.mask_into(mask);
        }
        let masks: Vec<i8> = masks.into_iter().map(|m| m as i8).collect();
        Ok((
            boards.into_pyarray(py).reshape([n, h, w])?,
            holders.into_pyarray(py).reshape([n, k])?,
            masks.into_pyarray(py).reshape([n, a])?,
        ))
    }
}
