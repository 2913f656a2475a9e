//! The headless subcommands: validate, repair, deal, danger, bench. Bad input exits
//! with code 2 and one message naming the file, line and column.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser, Subcommand};

use tenten_engine::danger::{self, Danger};
use tenten_engine::io::formats::{self, Deal, FormatError};
use tenten_engine::model::board::{Board, BoardSize};
use tenten_engine::model::generator::Generator;
use tenten_engine::model::pieces::MAX_HOLDER;
use tenten_engine::model::pieces::{PieceIdx, PieceSet};
use tenten_engine::model::shapes::Shapes;
use tenten_engine::perf::bench;
use tenten_engine::perf::{throttle, timing};
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::progress::Progress;
use tenten_engine::search::changer::{ChangeOptions, DEFAULT_MAX_REDRAWS, Outcome, Repair, repair};
use tenten_engine::search::heuristic::{FMatrix, Policy, Reading};
use tenten_engine::search::validator::{Validation, validate};
use tenten_engine::study::results::Shard;
use tenten_engine::study::tune::Verdict;

#[derive(Parser, Debug)]
#[command(
    name = "tenten",
    version,
    about = "Tenten Workbench: design, debug and teach the block generators of 1010!-style puzzles\n\
             (validate, repair, deal, simulate, tune, fit; Lohanda et al. 2019).\n\
             Run without arguments to open the workbench window."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The files a command writes (not checkpoints, which a run resumes from),
/// and whether --force lets it replace them.
fn outputs(c: &Command) -> (Vec<&Path>, bool) {
    let mut out: Vec<&Path> = Vec::new();
    let force = match c {
        Command::Tune { out: o, force, .. } | Command::FitPopulation { out: o, force, .. } => {
            out.push(o);
            *force
        }
        Command::Adapt {
            out: o,
            static_out,
            force,
            ..
        } => {
            out.push(o);
            out.extend(static_out.as_deref());
            *force
        }
        Command::FitGenerator {
            out: o,
            report,
            force,
            ..
        } => {
            out.push(o);
            out.extend(report.as_deref());
            *force
        }
        Command::FitPlayer { out: o, force, .. } | Command::Forecast { out: o, force, .. } => {
            out.extend(o.as_deref());
            *force
        }
        Command::Bench { csv, force, .. } => {
            out.extend(csv.as_deref());
            *force
        }
        Command::Simulate {
            csv, out: o, force, ..
        }
        | Command::Merge {
            csv, out: o, force, ..
        } => {
            out.extend(csv.as_deref());
            out.extend(o.as_deref());
            *force
        }
        Command::Cohort { force, .. } => *force,
        Command::Calibrate(a) => {
            out.extend(a.csv.as_deref());
            out.extend(a.out.as_deref());
            a.force
        }
        _ => false,
    };
    (out, force)
}

/// Every file read by `parse` (text, file name), when the first is of its
/// kind (`None` when it is not: another kind of result file); a later file
/// of another kind is refused with `not_one`.
fn shard_files<T>(
    files: &[PathBuf],
    parse: impl Fn(&str, &str) -> Option<Result<T, String>>,
    not_one: &str,
) -> Option<Result<Vec<(String, T)>, FormatError>> {
    let first = files.first()?;
    let _ = parse(&formats::read_text(first).ok()?, &first.display().to_string())?;
    Some(
        files
            .iter()
            .map(|f| {
                let name = f.display().to_string();
                match parse(&formats::read_text(f)?, &name) {
                    Some(Ok(s)) => Ok((name, s)),
                    Some(Err(e)) => Err(FormatError::new(&name, None, e)),
                    None => Err(FormatError::new(&name, None, not_one)),
                }
            })
            .collect(),
    )
}

/// Refuses a file that exists unless `--force` was given.
fn refuse_existing(paths: &[&Path], force: bool) -> Result<(), FormatError> {
    match paths.iter().find(|p| p.exists()) {
        Some(p) if !force => Err(FormatError::new(
            &p.display().to_string(),
            None,
            "exists; pass --force to replace it, or name another file",
        )),
        _ => Ok(()),
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate each deal of a deal or batch file: `<index> <solvable|unsolvable> nodes=<n>`.
    Validate {
        /// Which failure of an order becomes ub(j) in F (shown with --explain).
        #[arg(long, default_value = "deepest", value_parser = parse_policy)]
        policy: Policy,
        /// How repeated pieces share failures in F: the failing slot, or every copy of the piece.
        #[arg(long, default_value = "slot", value_parser = parse_reading)]
        reading: Reading,
        /// Append ` us=<microseconds>` of the fast-path validation alone.
        #[arg(long)]
        time: bool,
        /// Print the solution, or unfitBlock and F, under each line.
        #[arg(long)]
        explain: bool,
        /// Piece set the holder ids refer to (default: the deal's, else classic).
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// A deal file or a batch (a RON list of deals).
        file: PathBuf,
    },
    /// Repair each deal: `<index> unchanged final=..`, `<index> repaired attempts=<a> final=..` or `<index> dead`.
    Repair {
        /// Seed of the redraws (default: the deal's seed, else 0), plus the deal's index.
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// Weighted redraws before the exhaustive fallback.
        #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_REDRAWS)]
        max_attempts: usize,
        #[arg(long, default_value = "deepest", value_parser = parse_policy)]
        policy: Policy,
        /// How repeated pieces share failures in F: the failing slot, or every copy of the piece.
        #[arg(long, default_value = "slot", value_parser = parse_reading)]
        reading: Reading,
        /// Print every attempt: holder, unfitBlock, F, chosen slot, new piece, verdict, time.
        #[arg(long)]
        explain: bool,
        file: PathBuf,
    },
    /// Deal a holder from the seeded weighted generator.
    Deal {
        #[arg(long)]
        seed: u64,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
        holder_size: u8,
        /// Deal for this board (a deal or board file; default an empty 10x10 board).
        #[arg(long, value_name = "FILE")]
        board: Option<PathBuf>,
        /// Run the changer on the dealt holder and print its verdict.
        #[arg(long)]
        repair: bool,
        #[arg(long, default_value = "deepest", value_parser = parse_policy)]
        policy: Policy,
        #[arg(long, default_value = "slot", value_parser = parse_reading)]
        reading: Reading,
        /// Instead, print a batch of N deals met in self-play (random weighted
        /// holders, each piece at a random spot), as a playtest log holds them.
        /// Its games start on an empty board (--size): not with --board or --repair.
        #[arg(
            long,
            value_name = "N",
            value_parser = clap::value_parser!(u32).range(1..=1_000_000),
            conflicts_with_all = ["board", "repair"]
        )]
        log: Option<u32>,
        /// With --log: the deals this player met (a preset or a player file), each with the
        /// placements it made: a playtest log to fit a player to.
        #[arg(long, value_name = "P", requires = "log", value_parser = players::parse_model)]
        player: Option<players::Model>,
        /// With --log and --player: the log as a RON batch, or as JSON Lines (one record
        /// per deal, as a game's telemetry sends them; docs/formats.md).
        #[arg(long, value_enum, default_value = "ron", requires = "player")]
        format: players::LogFormat,
        /// The generator that deals (a built-in, a preset generator file's name or a generator
        /// file): without --log, deal 0 of the seed's game for the board, as a game dealing
        /// from that file would (its check included; not with --repair); with --log and
        /// --player (default random), a log to learn a generator from.
        #[arg(long, value_name = "G", conflicts_with = "repair")]
        generator: Option<String>,
        /// With --generator: the player's games before this one, for a file's adaptive rules:
        /// each game's rounds in order, `u` after an unfair one, `|` where a new session began
        /// (`12u,40,3|20`).
        #[arg(long, value_name = "GAMES", requires = "generator", conflicts_with = "log")]
        after: Option<String>,
        /// With --log: the board its games are played on (empty at each game's start).
        #[arg(long, value_name = "WxH", default_value = "10x10", requires = "log", value_parser = simulate::parse_size)]
        size: BoardSize,
    },
    /// Tune a generator file's weights toward targets for players (Nelder-Mead, every
    /// candidate on the same seeds), validate the best few on other seeds, check the
    /// start and the winner on fresh seeds, give each target a verdict from its interval
    /// (met, missed or undecided) and write the winner. Exits 1 when a target is missed,
    /// 3 when none is missed but one is undecided, unless --allow-miss.
    Tune {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        /// The generator file to start from (or a preset name: random, repair, reject, bag).
        #[arg(long, value_name = "BASE.ron")]
        generator: String,
        /// Who plays: preset players, bots or player files, comma separated; every
        /// target holds for each of them (their misses summed).
        #[arg(long, default_value = "casual", value_parser = simulate::parse_players)]
        player: simulate::Players,
        /// Tune for an audience instead: this population's players (a file, or demo), --games of
        /// them one session each, every candidate on the same players; the targets are then
        /// reach=ROUND:SHARE (ROUND 10, 25, 50 or 100), games_per_session=N and unfair_share=S.
        #[arg(long, value_name = "POP.ron", conflicts_with = "player")]
        population: Option<String>,
        /// KEY=VALUE: median_rounds=N, unfair_share=S (at most), small_share=BAND:S, and with
        /// --population reach=ROUND:S and games_per_session=N; repeat the option for several.
        /// Each is met within a tolerance, 5 % of a median or of games per session (at least a
        /// round, or 0.1 game) or 0.02 of a share, or as given after @ (median_rounds=35@2).
        #[arg(long, required = true, value_name = "KEY=VALUE[@TOL]")]
        target: Vec<String>,
        /// Keep the mix near the base's: the strength of a penalty on the divergence (KL,
        /// nats) of the tuned weights from the base's (0: none).
        #[arg(long, value_name = "STRENGTH", default_value_t = 0.0)]
        keep_mix: f64,
        /// Exit 0 even when a target is missed or undecided (the verdicts are printed either
        /// way).
        #[arg(long)]
        allow_miss: bool,
        /// The pieces whose weights move (default all).
        #[arg(long, value_name = "ID,ID,...")]
        free: Option<String>,
        /// Every free weight stays in LO..HI, in tenths of a base weight (fewer steps when a
        /// base weight passes 100), at most 1000.
        #[arg(long, value_name = "LO,HI", default_value = "1,200")]
        bounds: String,
        /// Games per candidate (all on the same seeds).
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        games: u32,
        /// Hold-out games on fresh seeds for the final check: each target is met when its
        /// interval lies inside its tolerance, missed when outside, else undecided. Without
        /// it the hold-out is planned from the tuned candidate's spread: for a median, games
        /// enough that its interval's half-width at the middle of three looks is half its
        /// tolerance (at least 200).
        #[arg(long, value_parser = clap::value_parser!(u32).range(20..=100_000))]
        holdout: Option<u32>,
        /// An undecided target grows the hold-out on fresh seeds, doubling, up to this many
        /// games (default 4 x --holdout); a planned hold-out takes three looks, from half to
        /// twice the games its plan asks for, all within this (default 20,000). Every look's
        /// interval is at 1 - 0.05/K for K looks, so the verdicts stay wrong at most 5 % of
        /// the time.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=400_000))]
        holdout_max: Option<u32>,
        /// Seconds to search.
        #[arg(long, default_value_t = 120.0)]
        budget: f64,
        /// Stop after this many evaluations too: a run cut by evaluations, not seconds, is
        /// repeatable on any machine.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        max_evaluations: Option<u32>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_name = "R", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
        max_rounds: u32,
        /// Where to write the tuned generator file (atomically).
        #[arg(long, value_name = "TUNED.ron")]
        out: PathBuf,
    },
    /// Learn a generator from the deals it dealt: every check (none, reject, the paper's repair
    /// under each policy, a bag) fitted by exact likelihood, the best one's adaptive rules
    /// (repeat_previous, fill bands, mercy) tested by likelihood ratio, and the generator file
    /// it writes. Prints `deals=<n> games=<g> check=none|reject|repair|bag ...` with each weight's
    /// 95 % interval, the smoking gun (unsolvable holders observed against `none`'s
    /// expectation), one `model=...` line per model compared and the predictive check.
    FitGenerator {
        /// Replace --out and --report when they exist.
        #[arg(long)]
        force: bool,
        /// Logs of deals in the order dealt: JSON Lines (a playtest's or a cohort's, or a
        /// recording with only `board` and `holder`), RON batches or logs, or folders of them.
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// The piece set the deals were dealt from (the learned file names it).
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// The board size the logs must be of (refused otherwise; default: the first deal's).
        #[arg(long, value_name = "WxH", value_parser = simulate::parse_size)]
        board: Option<BoardSize>,
        /// Write the learned generator file here (atomically), with the fit's figures as its
        /// header.
        #[arg(long, value_name = "LEARNED.ron")]
        out: PathBuf,
        /// Write the model table here too: RON, or CSV for a name ending in .csv.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// The predictive check's first seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The predictive check's replications (its ranges are their 2.5 and 97.5 percentiles).
        #[arg(long, value_name = "N", default_value_t = 40, value_parser = clap::value_parser!(u32).range(10..=10_000))]
        replications: u32,
        /// Skip the held-out log-likelihood (two folds by game: each model fitted twice more).
        #[arg(long)]
        no_held_out: bool,
        /// Fit repair under these failure policies only (repeatable; default all three).
        #[arg(long = "policy", value_name = "POLICY", value_parser = parse_policy)]
        policies: Vec<Policy>,
        /// Fit the checks only: do not test repeat_previous, fill bands and mercy.
        #[arg(long)]
        no_rules: bool,
        /// The learned generator's name (default: "learned from <the first log's stem>").
        #[arg(long)]
        name: Option<String>,
    },
    /// Fit a player to a playtest log by maximum likelihood over every recorded move. Rank
    /// choice (the default) fits temperature and slip with 95 % profile-likelihood intervals:
    /// `temperature=<t> temperature_ci=<lo>,<hi> slip=<e> slip_ci=<lo>,<hi> moves=<n> ...`;
    /// `--model value` fits the five criteria weights (beta) and the slip; `--compare` ranks
    /// every model by held-out log-likelihood and checks how well the best explains the log.
    FitPlayer {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        /// A playtest log: a RON batch of deals with `moves`, or JSON Lines (tenten deal --log N
        /// --player P writes either); or a folder of JSON Lines logs (a playtest's or a cohort's),
        /// every tester's moves fitted as one player.
        log: PathBuf,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// How the player looks ahead: one piece at a time, or the whole holder (a planner: a
        /// plan drawn by softmax over every plan's end board, its first move played).
        #[arg(long, value_enum, default_value = "piece")]
        lookahead: players::LookaheadArg,
        /// The choice model: `rank` (a softmax over the moves' ranks under --evaluation, at a
        /// temperature) or `value` (the conditional logit over the five criteria, beta fitted).
        #[arg(long, value_enum, default_value = "rank")]
        model: players::ModelArg,
        /// The five criteria weights a rank player judges boards with.
        #[arg(long, value_name = "DIGITS", default_value = "10025", value_parser = simulate::parse_weights)]
        evaluation: CoelhoWeights,
        /// Value choice: the criteria to fit, numbered 1 to 5 (free cells, 5x5 square, large
        /// pieces, alignment, surface); the others are held at zero.
        #[arg(long, value_name = "LIST", default_value = "1,2,3,4,5", value_parser = players::parse_criteria)]
        criteria: [bool; 5],
        /// Fit every model (rank and value choice, piece and holder lookahead), rank them by
        /// held-out log-likelihood per move (k-fold over whole games), and check the best: top-1
        /// agreement, mean chance of the moves made, calibration, survival against the log.
        #[arg(long)]
        compare: bool,
        /// Folds of the comparison.
        #[arg(long, value_name = "K", default_value_t = 5, value_parser = clap::value_parser!(u16).range(2..=100))]
        folds: u16,
        /// The generator of the survival check (default: the one the log names, else random).
        #[arg(long, value_name = "NAME")]
        generator: Option<String>,
        /// Games the fitted player plays for the survival check.
        #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        games: u32,
        /// Seed of the survival check's games (game g on seed + g).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The fitted player's name (default: from the log's file name).
        #[arg(long)]
        name: Option<String>,
        /// Write the fitted player file here (atomically); with --compare, the best model's.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Draw testers from a population (a file in presets/populations, or `demo`) and play whole
    /// sessions of whole games under one generator; write one JSON Lines log per tester
    /// (DIR/t00.jsonl, ...), with player and session ids: the ground truth a population fit and
    /// a forecast's check are tested against.
    Cohort {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        /// A population file, or a preset's name (demo).
        #[arg(long, value_name = "POP.ron")]
        population: String,
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
        testers: u32,
        /// Sessions each tester plays (each ends when the quit model says so, or at 100 games).
        #[arg(long, value_name = "S", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000))]
        sessions: u32,
        /// The generator: a built-in one (random, repair, reject, bag), a preset generator file's
        /// name (block-blast-like) or a generator file.
        #[arg(long, value_name = "G")]
        generator: String,
        /// Tester i is player i of this seed (as in `forecast --seed`).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
        size: BoardSize,
        #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
        holder_size: u8,
        /// Rounds a game lasts at most.
        #[arg(long, value_name = "R", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        max_rounds: u32,
        /// The folder the logs go in (made if missing; each log written atomically).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Fit a population to many testers' JSON Lines logs: every tester fitted (in parallel), the
    /// mean and spread of each parameter across testers by a random-effects model (REML, each
    /// tester's standard error its measurement error, so a spread below the noise comes out near
    /// 0), each tester's shrunken estimate, and the quit model by logistic regression over game
    /// ends. Prints `testers=.. moves=.. games=.. temperature_median=.. temperature_median_ci=lo,hi
    /// temperature_log_sd=.. .. slip_median=.. .. quit_base=.. quit_base_ci=lo,hi quit_unfair_odds=..
    /// .. quit_per_log_round=.. quit_per_log_round_ci=lo,hi ..` (95 % intervals: the quit base is
    /// the chance to stop after a fair game of one round, its interval Wald on the logit; for the
    /// value model each beta's mean and sd) and writes the population file.
    FitPopulation {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        /// Logs (JSON Lines), or folders of them (every .jsonl file inside).
        #[arg(required = true, value_name = "LOG")]
        logs: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "rank")]
        model: players::ModelArg,
        #[arg(long, value_enum, default_value = "piece")]
        lookahead: players::LookaheadArg,
        /// The five criteria weights rank players judge boards with.
        #[arg(long, value_name = "DIGITS", default_value = "10025", value_parser = simulate::parse_weights)]
        evaluation: CoelhoWeights,
        /// Value choice: the criteria to fit, numbered 1 to 5.
        #[arg(long, value_name = "LIST", default_value = "1,2,3,4,5", value_parser = players::parse_criteria)]
        criteria: [bool; 5],
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// The population's name (default: the output file's stem).
        #[arg(long)]
        name: Option<String>,
        /// Write the fitted population here (atomically).
        #[arg(long, value_name = "POP.ron")]
        out: PathBuf,
    },
    /// Forecast an audience: N players drawn from a population each play one session under its
    /// quit model, under each generator (player i is the same under every generator). One line per
    /// generator: reach_10/25/50/100 (the share of games reaching each round), games_per_session,
    /// players_returning_after_1/3/10 (the share still playing after k games), unfair_share
    /// (unfair losses over losses) and sessions_ended_by_unfair, each with a 95 % interval. The
    /// intervals hold the fit's uncertainty and the simulation's noise: the players are split into
    /// 20 replicates, each drawing the population's parameters once from the fit's sampling
    /// distribution (the standard errors its file holds), and the interval is the pooled figure
    /// ± t(19) times the replicates' spread times √(1 + 1/20). A population that was not fitted
    /// has the simulation's noise alone (± t(19) times the spread / √20).
    Forecast {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        /// A population file (fit-population writes one), or a preset's name (demo).
        #[arg(long, value_name = "POP.ron")]
        population: String,
        #[arg(long, value_name = "G,G,...", default_value = "random,block-blast-like", value_parser = simulate::parse_generators)]
        generator: simulate::Generators,
        #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
        players: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also a line per skill decile (1: the least skilled tenth; skill is read off each player's
        /// draws: cooler and steadier is higher).
        #[arg(long)]
        by_skill: bool,
        /// Compare the forecast of the generator these logs were played under with them (logs or
        /// folders): each reach_r and games per session against its interval widened by the
        /// cohort's own noise, survival by the log-rank test, and a verdict line.
        #[arg(long, value_name = "LOG")]
        check: Vec<PathBuf>,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
        size: BoardSize,
        #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
        holder_size: u8,
        #[arg(long, value_name = "R", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        max_rounds: u32,
        /// Play only shard I of N: the players i with i mod N = I, as one process would play
        /// them; needs --out. `tenten merge` prints the lines one process would have printed.
        #[arg(long, value_name = "I/N", value_parser = simulate::parse_shard, requires = "out", conflicts_with_all = ["check", "by_skill"])]
        shard: Option<Shard>,
        /// Write the shard's players (and everything that decided them) to this file, atomically.
        #[arg(long, value_name = "FILE", requires = "shard")]
        out: Option<PathBuf>,
    },
    /// Optimise an adaptive generator against a population: rules that read the player (after an
    /// unfair loss, after a game shorter or longer than the player's typical one, otherwise), each
    /// tilting the weights toward small or large pieces, searched on --players simulated players
    /// (the same for every candidate), beside the best static generator found with the same
    /// budget: one check (the base's, none, reject or repair) and one tilt for everyone; the
    /// adaptive rules keep the static one's check. The
    /// verdict is on --holdout other players: a line per arm, then `vs=base|static objective=..
    /// gain=.. gain_ci=LO,HI verdict=better|worse|undecided` (the gain relative, 0.05 for 5 %),
    /// the gain over static under each churn model the population's quit model allows, and per
    /// skill decile. A model's forecast, not measured people.
    Adapt {
        /// Replace --out when it exists.
        #[arg(long)]
        force: bool,
        /// A population file (fit-population writes one), or a preset's name (demo, demo-churn).
        #[arg(long, value_name = "POP.ron")]
        population: String,
        /// The static generator to start from: a file or a preset's name.
        #[arg(long, value_name = "G", default_value = "random")]
        base: String,
        /// games_per_session, reach=R (10, 25, 50, 100) or returning_after=N (1, 3, 10).
        #[arg(long, default_value = "games_per_session")]
        objective: String,
        /// The most KL divergence (nats) any rule's tilted piece shares may have from the base's.
        #[arg(long, value_name = "KL", default_value_t = 0.1)]
        max_distortion: f64,
        /// Seconds for each search (static, shared among its checks, then adaptive).
        #[arg(long, value_name = "S", default_value_t = 60.0)]
        budget: f64,
        /// Stop each search after this many candidates too (the static search's shared among its
        /// checks, at least one each): a run cut by candidates, not seconds, is repeatable on any
        /// machine.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        max_candidates: Option<u32>,
        /// Players every candidate plays, one session each.
        #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
        players: u32,
        /// Players of the verdict, on another seed.
        #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u32).range(2..=10_000_000))]
        holdout: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
        size: BoardSize,
        #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
        holder_size: u8,
        #[arg(long, value_name = "R", default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        max_rounds: u32,
        /// Where to write the adaptive generator file (atomically).
        #[arg(long, value_name = "ADAPTIVE.ron")]
        out: PathBuf,
        /// Also write the best static generator it was compared with (an A/B's other arm).
        #[arg(long, value_name = "STATIC.ron")]
        static_out: Option<PathBuf>,
    },
    /// The exact chance that a fresh deal cannot be placed, per board (holders ignored):
    /// `<index> danger=<probability> killers=<unsolvable deals>`.
    Danger {
        /// Piece set and weights of the deals (default: the file's, else classic).
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// Pieces per deal.
        #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
        holder_size: u8,
        /// Also print the killer deals, the dead regions and the ten most influential cells.
        #[arg(long)]
        explain: bool,
        /// A deal, board or batch file.
        file: PathBuf,
    },
    /// Open the workbench window with a file: a deal, board, batch, JSON Lines log, piece set,
    /// generator, a run's result (shown in the Lab) or a calibration study (on the Calibration page).
    Open { file: PathBuf },
    /// Time validate and validate+change on a seeded corpus of self-play deals (use a release build).
    Bench {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        #[arg(long, default_value_t = 20_000)]
        deals: usize,
        #[arg(long, default_value_t = 2019)]
        seed: u64,
        /// Sweep these CPU-throttle factors (1 to 20, e.g. 1,4,6): one line per factor, then the headroom.
        #[arg(long, value_name = "F,F,...", value_parser = parse_factors)]
        throttle: Option<Factors>,
        /// The deals of the sweep: met in random self-play, or dealt in games with the repairing generator.
        #[arg(long, value_enum, default_value = "realistic", requires = "throttle")]
        corpus: CorpusArg,
        /// Games of the gameplay corpus (the deals are shared among them).
        #[arg(long, default_value_t = 5, requires = "throttle")]
        games: usize,
        /// Write every measurement (one row per deal and factor) to this CSV file.
        #[arg(long, value_name = "FILE", requires = "throttle")]
        csv: Option<PathBuf>,
    },
    /// Self-play games comparing generators (the generator lab's engine), one line per
    /// generator; game g of every generator is seeded with seed + g, so they are paired.
    Simulate {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        #[arg(long, value_name = "G,G,...", default_value = "random,repair,reject,bag", value_parser = simulate::parse_generators)]
        generator: simulate::Generators,
        /// Who plays: bots (random, greedy, coelho), preset players (novice, casual,
        /// skilled, expert, machine) or player files (.ron, see presets/players), comma
        /// separated; each plays every generator on the same seeds. --strategy is the
        /// same option under its old name.
        #[arg(long, visible_alias = "strategy", value_name = "P,P,...", default_value = "greedy", value_parser = simulate::parse_players)]
        player: simulate::Players,
        /// The coelho strategy's five criteria weights, as the 1010! analysis writes them:
        /// free cells, 5x5 square, large pieces, alignment, surface.
        #[arg(long, value_name = "DIGITS", default_value = "10025", value_parser = simulate::parse_weights)]
        weights: CoelhoWeights,
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        games: u32,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
        size: BoardSize,
        #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
        holder_size: u8,
        #[arg(long, value_name = "R", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
        max_rounds: u32,
        /// Write one row per game to this CSV file (atomically).
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Play only shard I of N: the games g with g mod N = I, seeded as in one
        /// process; needs --out. `tenten merge` puts the shards back together.
        #[arg(long, value_name = "I/N", value_parser = simulate::parse_shard)]
        shard: Option<Shard>,
        /// Write the games (every record a merge needs, and the settings) to this
        /// result file, atomically.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Keep the games played so far in this file (atomically, every
        /// --checkpoint-seconds seconds, or --checkpoint-games games if given); the
        /// same command run again resumes from it.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        checkpoint_games: Option<u32>,
        #[arg(long, value_name = "T", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
        checkpoint_seconds: u32,
    },
    /// Check an estimator by simulation-based calibration: R true settings drawn from ranges
    /// (or one population held fixed), the data a designer would have simulated, the
    /// estimator run as its command runs, and per parameter the coverage of its 95 %
    /// interval (with that coverage's own interval), bias, RMSE, width and failures:
    /// `parameter=<p> coverage=<c> coverage_ci=<lo>,<hi> bias=<b> rmse=<r> width=<w> failed=<n>`.
    Calibrate(calibrate::Args),
    /// A playtest with people: `serve` a page testers play on their phones, dealt by your
    /// generator; `status` of its folder.
    Playtest(playtest::Args),
    /// Plan a playtest by simulation: the testers (at --sessions each) that give a figure's
    /// 95 % interval a --width, or with --compare G1,G2 the testers per generator that
    /// detect a --difference with --power; each answer checked at the design it names.
    PlanPlaytest(calibrate::PlanArgs),
    /// Merge the result files of a sharded run (simulate, forecast or calibrate --shard I/N
    /// --out FILE): prints exactly the lines one process would have printed.
    Merge {
        /// Replace output files (--out, --csv, a cohort's folder) that exist; without it they
        /// are refused, as the window asks before replacing a file.
        #[arg(long)]
        force: bool,
        /// Every shard's result file.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Write one row per game to this CSV file, as simulate --csv does.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Write the merged result to this file (the window opens it in the Lab).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Print the shell completion script for SHELL (bash, zsh, fish, elvish, powershell).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page tenten(1), or with --dir write tenten.1 and a page per
    /// subcommand (tenten-simulate.1, ...) into a folder.
    Man {
        /// Write every page into this folder (made if missing) instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

fn parse_policy(s: &str) -> Result<Policy, String> {
    s.parse()
}

fn parse_reading(s: &str) -> Result<Reading, String> {
    s.parse()
}

/// Throttle factors, checked and sorted.
#[derive(Clone, Debug)]
struct Factors(Vec<f64>);

fn parse_factors(s: &str) -> Result<Factors, String> {
    throttle::parse_factors(s).map(Factors)
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum CorpusArg {
    Realistic,
    Gameplay,
}

/// Whether `args` (without the program name) form a valid command line, as
/// the parser reads them, without running it: the cluster recipes' tests
/// hold their command lines to it.
pub fn parses(args: &[String]) -> Result<(), String> {
    Cli::try_parse_from(std::iter::once("tenten".to_owned()).chain(args.iter().cloned()))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Every man page, as `tenten man --dir` writes them: (file name, roff).
pub fn man_pages() -> Vec<(String, String)> {
    manual::man_pages(Cli::command())
}

/// The subcommands' names, as the parser knows them.
pub fn subcommand_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect()
}

/// Runs the CLI on `args` (without the program name); returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let cli = match Cli::try_parse_from(std::iter::once(OsString::from("tenten")).chain(args)) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let (written, force) = outputs(&cli.command);
    if let Err(e) = refuse_existing(&written, force) {
        eprintln!("error: {e}");
        return 2;
    }
    let mut out = String::new();
    let mut verdict_code = 0;
    let result = match cli.command {
        Command::Validate {
            policy,
            reading,
            time,
            explain,
            pieces,
            file,
        } => cmd_validate(
            &file,
            pieces.as_deref(),
            (policy, reading),
            time,
            explain,
            &mut out,
        ),
        Command::Repair {
            seed,
            pieces,
            max_attempts,
            policy,
            reading,
            explain,
            file,
        } => {
            let options = ChangeOptions {
                policy,
                reading,
                max_redraws: max_attempts,
            };
            cmd_repair(&file, pieces.as_deref(), seed, options, explain, &mut out)
        }
        Command::Deal {
            seed,
            pieces,
            holder_size,
            log: Some(n),
            player: Some(player),
            format,
            generator,
            size,
            ..
        } => players::cmd_player_log(
            seed,
            (pieces.as_deref(), size),
            usize::from(holder_size),
            n as usize,
            (&player, format, generator.as_deref()),
            &mut out,
        ),
        Command::Deal {
            log: Some(_),
            player: None,
            generator: Some(_),
            ..
        } => Err(FormatError::new(
            "--generator",
            None,
            "with --log, --generator names who deals the log of a --player: give --player too".to_owned(),
        )),
        Command::Deal {
            seed,
            pieces,
            holder_size,
            log: Some(n),
            size,
            ..
        } => cmd_deal_log(
            seed,
            (pieces.as_deref(), size),
            usize::from(holder_size),
            n as usize,
            &mut out,
        ),
        Command::Tune {
            generator,
            player,
            population,
            target,
            keep_mix,
            allow_miss,
            free,
            bounds,
            games,
            holdout,
            holdout_max,
            budget,
            max_evaluations,
            seed,
            max_rounds,
            out: file,
            force: _,
        } => tune::cmd_tune(
            tenten_engine::study::tune_run::Options {
                generator,
                players: player.0,
                population,
                targets: target,
                keep_mix,
                free,
                bounds,
                games: games as usize,
                holdout: holdout.map(|n| n as usize),
                holdout_max: holdout_max.map(|n| n as usize),
                budget,
                max_evaluations: max_evaluations.map(|n| n as usize),
                seed,
                max_rounds,
            },
            &file,
            &mut out,
        )
        .map(|verdict| {
            if !allow_miss {
                verdict_code = match verdict {
                    Verdict::Met => 0,
                    Verdict::Missed => 1,
                    Verdict::Undecided => 3,
                };
            }
        }),
        Command::FitGenerator {
            logs,
            pieces,
            board,
            out: file,
            report,
            seed,
            replications,
            no_held_out,
            policies,
            no_rules,
            name,
            force: _,
        } => generators::cmd_fit_generator(
            &generators::FitArgs {
                logs,
                pieces,
                board,
                out: file,
                report,
                seed,
                replications: replications as usize,
                held_out: !no_held_out,
                policies,
                rules: !no_rules,
                name,
            },
            &mut out,
        ),
        Command::FitPlayer {
            log,
            pieces,
            lookahead,
            model,
            evaluation,
            criteria,
            compare,
            folds,
            generator,
            games,
            seed,
            name,
            out: file,
            force: _,
        } => players::cmd_fit_player(
            &log,
            pieces.as_deref(),
            &tenten_engine::fits::fit_player::Request {
                model: match model {
                    players::ModelArg::Rank => tenten_engine::fits::compare::Model::Rank {
                        lookahead: lookahead.into(),
                        evaluation,
                    },
                    players::ModelArg::Value => tenten_engine::fits::compare::Model::Value {
                        lookahead: lookahead.into(),
                        free: criteria,
                    },
                },
                evaluation,
                criteria,
                compare,
                folds: usize::from(folds),
                generator,
                games: games as usize,
                seed,
                name: name.unwrap_or_else(|| tenten_engine::fits::fit_player::default_name(&log)),
            },
            file.as_deref(),
            &mut out,
        ),
        Command::Cohort {
            population,
            testers,
            sessions,
            generator,
            seed,
            pieces,
            size,
            holder_size,
            max_rounds,
            out: dir,
            force,
        } => population::cmd_cohort(
            &population::CohortArgs {
                population,
                testers: testers as usize,
                sessions: sessions as usize,
                generator,
                seed,
                out: dir,
                force,
            },
            &population::Rules {
                pieces,
                size,
                k: usize::from(holder_size),
                max_rounds,
            },
            &mut out,
        ),
        Command::FitPopulation {
            logs,
            model,
            lookahead,
            evaluation,
            criteria,
            pieces,
            name,
            out: file,
            force: _,
        } => population::cmd_fit_population(
            &population::FitArgs {
                logs,
                choice: match model {
                    players::ModelArg::Rank => tenten_engine::play::player::Choice::Rank,
                    players::ModelArg::Value => tenten_engine::play::player::Choice::Value,
                },
                lookahead: lookahead.into(),
                evaluation,
                criteria,
                name,
                out: file,
            },
            pieces.as_deref(),
            &mut out,
        ),
        Command::Adapt {
            population,
            base,
            objective,
            max_distortion,
            budget,
            max_candidates,
            players,
            holdout,
            seed,
            pieces,
            size,
            holder_size,
            max_rounds,
            out: file,
            static_out,
            force: _,
        } => adapt::cmd_adapt(
            &adapt::AdaptArgs {
                population,
                base,
                objective,
                max_distortion,
                budget,
                max_candidates: max_candidates.map(|m| m as usize),
                players: players as usize,
                holdout: holdout as usize,
                seed,
                static_out,
            },
            &population::Rules {
                pieces,
                size,
                k: usize::from(holder_size),
                max_rounds,
            },
            &file,
            &mut out,
        ),
        Command::Forecast {
            population,
            generator,
            players,
            seed,
            by_skill,
            check,
            pieces,
            size,
            holder_size,
            max_rounds,
            shard,
            out: shard_file,
            force: _,
        } => population::cmd_forecast(
            &population::ForecastArgs {
                population,
                generators: generator.0,
                players: players as usize,
                seed,
                by_skill,
                check,
                shard: shard.zip(shard_file),
            },
            &population::Rules {
                pieces,
                size,
                k: usize::from(holder_size),
                max_rounds,
            },
            &mut out,
        ),
        Command::Deal {
            seed,
            pieces,
            holder_size,
            board,
            log: None,
            generator: Some(generator),
            after,
            ..
        } => generators::cmd_deal_from(
            seed,
            pieces.as_deref(),
            usize::from(holder_size),
            board.as_deref(),
            (&generator, after.as_deref()),
            &mut out,
        ),
        Command::Deal {
            seed,
            pieces,
            holder_size,
            board,
            repair,
            policy,
            reading,
            log: None,
            ..
        } => cmd_deal(
            seed,
            pieces.as_deref(),
            usize::from(holder_size),
            board.as_deref(),
            repair,
            ChangeOptions {
                policy,
                reading,
                ..ChangeOptions::default()
            },
            &mut out,
        ),
        Command::Danger {
            pieces,
            holder_size,
            explain,
            file,
        } => cmd_danger(
            &file,
            pieces.as_deref(),
            usize::from(holder_size),
            explain,
            &mut out,
        ),
        #[cfg(feature = "gui")]
        Command::Open { file } => {
            return match crate::app::run(Some(file)) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: could not open the window: {e}");
                    1
                }
            };
        }
        #[cfg(not(feature = "gui"))]
        Command::Open { file } => {
            eprintln!(
                "error: cannot open {}: this tenten is the headless build (no window); build with default features",
                file.display()
            );
            return 2;
        }
        Command::Bench {
            deals,
            seed,
            throttle: Some(Factors(factors)),
            corpus,
            games,
            csv,
            force: _,
        } => cmd_sweep(deals, seed, factors, corpus, games, csv.as_deref(), &mut out),
        Command::Simulate {
            generator,
            player,
            weights,
            games,
            seed,
            pieces,
            size,
            holder_size,
            max_rounds,
            csv,
            shard,
            out: result_file,
            checkpoint,
            checkpoint_games,
            checkpoint_seconds,
            force: _,
        } => {
            let shard = shard.unwrap_or(Shard::ALL);
            if shard.of > 1 && result_file.is_none() {
                eprintln!("error: --shard {shard} needs --out FILE: a shard's games are for `tenten merge`");
                return 2;
            }
            let output = simulate::Output {
                shard,
                out: result_file,
                checkpoint,
                every_games: checkpoint_games.map(|n| n as usize),
                every_seconds: f64::from(checkpoint_seconds),
            };
            simulate::cmd_simulate(
                &generator.0,
                &player.0,
                weights,
                games as usize,
                seed,
                pieces.as_deref(),
                size,
                usize::from(holder_size),
                max_rounds,
                csv.as_deref(),
                &output,
                &mut out,
            )
        }
        Command::Calibrate(a) => calibrate::cmd_calibrate(&a, &mut out),
        Command::Playtest(a) => playtest::cmd_playtest(&a, &mut out),
        Command::PlanPlaytest(a) => calibrate::cmd_plan_playtest(&a, &mut out),
        Command::Merge {
            files,
            csv,
            out: merged,
            force: _,
        } => match (population::forecast_shards(&files), calibrate::studies(&files)) {
            (Some(shards), _) => shards.and_then(|s| population::cmd_merge_forecast(&s, &mut out)),
            (None, Some(studies)) => {
                studies.and_then(|s| calibrate::cmd_merge(&s, csv.as_deref(), merged.as_deref(), &mut out))
            }
            (None, None) => simulate::cmd_merge(&files, csv.as_deref(), merged.as_deref(), &mut out),
        },
        Command::Completions { shell } => {
            out.push_str(&manual::completions(Cli::command(), shell));
            Ok(())
        }
        Command::Man { dir } => manual::cmd_man(Cli::command(), dir.as_deref(), &mut out),
        Command::Bench { deals, seed, .. } => {
            eprintln!("building and timing {deals} deals (seed {seed})...");
            let samples = bench::run(deals, seed);
            out.push_str(&bench::report(&samples, seed));
            let extra = (deals / 4).max(1);
            eprintln!("timing holders of 4 on 10x10 and of 3 on 8x8 ({extra} deals each)...");
            out.push('\n');
            for (size, k) in [(BoardSize::CLASSIC, 4), (BoardSize { width: 8, height: 8 }, 3)] {
                let c = bench::run_validate(size, k, extra, seed);
                out.push_str(&bench::corpus_report(&c, seed));
            }
            eprintln!("timing the danger of every 10th board and 20 per-cell maps...");
            let d = bench::run_danger(deals, seed, 10, 20);
            out.push_str(&bench::danger_report(&d, seed));
            eprintln!("playing greedy and coelho games on one core...");
            out.push('\n');
            // TENTEN_NO_DEDUP measures the coelho search without its table of
            // boards already evaluated.
            let dedup = std::env::var_os("TENTEN_NO_DEDUP").is_none();
            let s = tenten_engine::perf::bench_selfplay::run(seed, 2_000, 3, 400, dedup);
            out.push_str(&tenten_engine::perf::bench_selfplay::report(&s, seed));
            Ok(())
        }
    };
    // A reader that stopped early (`tenten deal ... | head`) closed the
    // pipe: the command is done, quietly (no panic, the code it had).
    if let Err(e) = emit(&out)
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: could not write the output: {e}");
        return 2;
    }
    match result {
        // A tune printed its verdicts: a missed or undecided target is not
        // a success (1 and 3; 2 is bad input).
        Ok(()) => verdict_code,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// Writes a command's output to stdout, the one place every command prints
/// through: an error (a closed pipe) is returned, not a panic as `print!`'s.
pub fn emit(out: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()
}

/// The piece set of `--pieces FILE`, or the classic set without one: the
/// one reading of that option for every command.
fn piece_set(pieces: Option<&Path>) -> Result<PieceSet, FormatError> {
    match pieces {
        Some(p) => formats::load_piece_set(p),
        None => Ok(PieceSet::classic()),
    }
}

/// The deals of `file`, with the piece set their holders refer to: `--pieces`,
/// else the file's own `pieces`, else the classic set.
fn load_deals(
    file: &Path,
    pieces: Option<&Path>,
    need_holder: bool,
) -> Result<(PieceSet, Vec<Deal>), FormatError> {
    let text = formats::read_text(file)?;
    let name = file.display().to_string();
    let raws = formats::parse_deals(&text, &name)?;
    let set = match (pieces, raws[0].pieces.as_deref()) {
        (None, Some(p)) => formats::load_pieces_of(file, p)?.0,
        (pieces, _) => piece_set(pieces)?,
    };
    let mut deals = Vec::with_capacity(raws.len());
    for (i, raw) in raws.iter().enumerate() {
        if need_holder && raw.holder.is_empty() {
            let what = if raws.len() > 1 {
                format!("deal {i}: ")
            } else {
                String::new()
            };
            return Err(FormatError {
                file: name,
                at: None,
                message: format!("{what}the holder is empty; it takes 1 to {MAX_HOLDER} pieces"),
            });
        }
        deals.push(raw.resolve(&set, &text, &name)?);
    }
    Ok((set, deals))
}

fn cmd_validate(
    file: &Path,
    pieces: Option<&Path>,
    (policy, reading): (Policy, Reading),
    time: bool,
    explain: bool,
    out: &mut String,
) -> Result<(), FormatError> {
    let (set, deals) = load_deals(file, pieces, true)?;
    for (i, deal) in deals.iter().enumerate() {
        let shapes = Shapes::new(&set, deal.board.size());
        let bits = deal.board.bits();
        let v = validate(&shapes, bits, &deal.holder);
        let verdict = if v.solvable { "solvable" } else { "unsolvable" };
        let _ = write!(out, "{i} {verdict} nodes={}", v.nodes);
        if time {
            let us = bench::time_validate(&shapes, bits, &deal.holder);
            let _ = write!(out, " us={us:.3}");
        }
        out.push('\n');
        if explain {
            // The words the window uses: placements are what `nodes=` counts.
            let (_, trace) = tenten_engine::search::validator::validate_traced(&shapes, bits, &deal.holder);
            let tree = tenten_engine::search::tree::Tree::build(&trace.events);
            let _ = writeln!(
                out,
                "  {} placements (nodes= counts these); the search tree has {} tree nodes with the root, the orders and the failed leaves",
                v.nodes,
                tree.len()
            );
            explain_validation(&set, &v, policy, reading, out);
        }
    }
    Ok(())
}

fn cmd_repair(
    file: &Path,
    pieces: Option<&Path>,
    seed: Option<u64>,
    options: ChangeOptions,
    explain: bool,
    out: &mut String,
) -> Result<(), FormatError> {
    let (set, deals) = load_deals(file, pieces, true)?;
    for (i, deal) in deals.iter().enumerate() {
        let shapes = Shapes::new(&set, deal.board.size());
        let base = seed.or(deal.seed).unwrap_or(0);
        let mut generator = Generator::new(base.wrapping_add(i as u64));
        let r = repair(
            &shapes,
            &set,
            deal.board.bits(),
            &deal.holder,
            &mut generator,
            options,
        );
        let _ = write!(out, "{i} ");
        repair_line(&set, &r, out);
        if explain {
            explain_repair(&set, &r, out);
        }
    }
    Ok(())
}

fn repair_line(set: &PieceSet, r: &Repair, out: &mut String) {
    let _ = match r.outcome {
        Outcome::Unchanged => writeln!(out, "unchanged final={}", set.ids(&r.holder)),
        Outcome::Repaired => writeln!(
            out,
            "repaired attempts={} final={}",
            r.changes(),
            set.ids(&r.holder)
        ),
        Outcome::Dead => writeln!(out, "dead"),
    };
}

fn cmd_deal(
    seed: u64,
    pieces: Option<&Path>,
    k: usize,
    board: Option<&Path>,
    run_repair: bool,
    options: ChangeOptions,
    out: &mut String,
) -> Result<(), FormatError> {
    let (set, board) = match board {
        Some(file) => {
            let (set, deals) = load_deals(file, pieces, false)?;
            (set, deals[0].board.clone())
        }
        None => {
            let set = piece_set(pieces)?;
            (set, Board::empty(BoardSize::CLASSIC))
        }
    };
    let mut generator = Generator::new(seed);
    let holder = generator.deal(&set, k);
    let _ = writeln!(out, "holder={}", set.ids(&holder));
    if run_repair {
        let shapes = Shapes::new(&set, board.size());
        let r = repair(&shapes, &set, board.bits(), &holder, &mut generator, options);
        repair_line(&set, &r, out);
    }
    Ok(())
}

/// A batch of `n` deals met in self-play on an empty classic board.
fn cmd_deal_log(
    seed: u64,
    (pieces, size): (Option<&Path>, BoardSize),
    k: usize,
    n: usize,
    out: &mut String,
) -> Result<(), FormatError> {
    let set = piece_set(pieces)?;
    let shapes = Shapes::new(&set, size);
    let deals =
        tenten_engine::play::random_fill::played_deals(&shapes, &set, k, n, &mut Generator::new(seed));
    let texts: Vec<String> = deals
        .iter()
        .map(|d| formats::deal_to_ron(&Board::from_bits(size, d.board), &d.holder, &set, None, None))
        .collect();
    let comment = format!(
        "{n} deals met in self-play: tenten deal --seed {seed} --log {n}{}{}.\n\
         Random weighted holders of {k} ({}), each piece at a random fitting spot;\n\
         a game restarts on an empty {size} board when a piece finds no spot.",
        if k == 3 {
            String::new()
        } else {
            format!(" --holder-size {k}")
        },
        if size == BoardSize::CLASSIC {
            String::new()
        } else {
            format!(" --size {size}")
        },
        set.name
    );
    out.push_str(&tenten_engine::io::batch_file::batch_to_ron(&texts, &comment));
    Ok(())
}

fn cmd_danger(
    file: &Path,
    pieces: Option<&Path>,
    k: usize,
    explain: bool,
    out: &mut String,
) -> Result<(), FormatError> {
    let (set, deals) = load_deals(file, pieces, false)?;
    let name = file.display().to_string();
    for (i, deal) in deals.iter().enumerate() {
        let shapes = Shapes::new(&set, deal.board.size());
        let bits = deal.board.bits();
        let d = danger::danger(&shapes, &set, bits, k).map_err(|message| FormatError {
            file: name.clone(),
            at: None,
            message,
        })?;
        let _ = writeln!(out, "{i} danger={:.9} killers={}", d.probability, d.killers.len());
        if explain {
            explain_danger(&set, &shapes, bits, &d, out);
        }
    }
    Ok(())
}

fn cmd_sweep(
    deals: usize,
    seed: u64,
    factors: Vec<f64>,
    corpus: CorpusArg,
    games: usize,
    csv: Option<&Path>,
    out: &mut String,
) -> Result<(), FormatError> {
    let bad = |message: String| FormatError {
        file: "bench".to_owned(),
        at: None,
        message,
    };
    if deals == 0 {
        return Err(bad("--deals must be at least 1".to_owned()));
    }
    if games == 0 {
        return Err(bad("--games must be at least 1".to_owned()));
    }
    let set = PieceSet::classic();
    let size = BoardSize::CLASSIC;
    let shapes = Shapes::new(&set, size);
    let options = ChangeOptions::default();
    let corpus = match corpus {
        CorpusArg::Realistic => timing::realistic(&shapes, &set, 3, deals, seed),
        CorpusArg::Gameplay => timing::gameplay(
            &shapes,
            &set,
            3,
            deals,
            games,
            seed,
            options,
            &Progress::default(),
        ),
    };
    eprintln!(
        "timing {} at {} (seed {seed})...",
        tenten_engine::text::count(corpus.len() as u64, "deal", "deals"),
        tenten_engine::text::count(factors.len() as u64, "throttle factor", "throttle factors")
    );
    let sweep = timing::Sweep {
        set,
        size,
        deals: corpus,
        seed,
        options,
        factors,
    };
    let mut all = Vec::new();
    timing::run(&sweep, &Progress::default(), |chunk| all.extend(chunk));
    let summaries = timing::summarize(&all);
    for s in &summaries {
        let _ = writeln!(out, "{}", timing::cli_line(s));
    }
    let _ = writeln!(out, "{}", timing::headroom_line(&summaries));
    if let Some(path) = csv {
        formats::write_atomic(path, &timing::csv(&all))?;
        eprintln!("wrote {} rows to {}", all.len(), path.display());
    }
    Ok(())
}

mod adapt;
mod calibrate;
mod explain;
mod generators;
mod manual;
mod players;
mod playtest;
mod population;
mod rehearse;
mod rehearse_tally;
mod rehearse_tester;
mod simulate;
mod ticker;
mod tune;
use explain::{explain_danger, explain_repair, explain_validation};
