//! `tenten playtest serve`, `status`, `compare` and `forget`: a playtest
//! with people (the server is the tenten-playtest crate's).

use std::net::SocketAddr;
use std::time::Duration;

use super::rehearse;
use super::*;
use tenten_engine::play::dealing::Dealing;
use tenten_engine::study::results::Shard;
use tenten_playtest::{Assign, Config, Generator, Limits, Server, Study, Token};

#[derive(clap::Args, Debug)]
pub(super) struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Serve a page testers play on (phone or desktop), dealt by your generator: every move
    /// checked by the engine and on disk before the page is told. Prints `link=URL` first.
    Serve(ServeArgs),
    /// What a playtest's folder holds, per generator: testers, sessions (open ones too),
    /// games, moves and unfair losses. Reads without changing anything (a server may run).
    Status {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Compare a playtest's arms: the testers' logs grouped by the generator each names, the
    /// objective per arm with its 95 % interval clustered by tester, and each arm against the
    /// first (by name): `vs=A arm=B objective=.. gain=.. gain_ci=LO,HI verdict=better|worse|undecided`,
    /// the gain relative (0.05 for 5 %). Reads logs only (a server may run).
    Compare {
        /// Playtest folders or logs (JSON Lines).
        #[arg(value_name = "DIR", required = true)]
        logs: Vec<PathBuf>,
        /// games_per_session, reach=R (10, 25, 50, 100) or returning_after=N (1, 3, 10).
        #[arg(long, default_value = "games_per_session")]
        objective: String,
        /// The piece set the logs were dealt from (default classic).
        #[arg(long, value_name = "SET.ron")]
        pieces: Option<PathBuf>,
        /// The arm the others are compared with (a generator the logs name; default the
        /// first by name).
        #[arg(long, value_name = "G")]
        baseline: Option<String>,
    },
    /// Rehearse an A/B playtest before people play it: the real server (in this process, on
    /// loopback) and scripted testers over HTTP playing as a population's simulated players,
    /// each run's folder compared as `compare` does, and a second server per run dealing one
    /// generator under two names. Prints a line per server, then `power=K/R` and
    /// `false_alarms=K/R` with 95 % intervals and verdicts (at least 80 %, at most 5 %).
    Rehearse(RehearseArgs),
    /// Count a rehearsal's runs as one, wherever they were played: the folders of its shards
    /// (`rehearse --shard I/N`), each run read from the `run-K/run.txt` it left when it
    /// ended. Prints the runs' lines and the power and false alarms as `rehearse` does;
    /// refused when a run is missing (unless --partial), twice, or of another rehearsal.
    Tally {
        /// The `--out` folders of the rehearsal's shards.
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
        /// Count the finished runs when some are missing (a shard stopped or still playing):
        /// a first line `partial runs=K of R missing=..` says which.
        #[arg(long)]
        partial: bool,
    },
    /// Remove every record of a tester (their journals and logs, set-aside copies too): what
    /// a tester who asks to be forgotten is owed. Refused while a server serves the folder
    /// or the tester's session is open.
    Forget {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The tester's id (32 hex digits; the logs' `player`).
        #[arg(value_name = "TESTER")]
        tester: String,
    },
}

/// `playtest serve`'s arguments.
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// A generator testers are dealt by: built-in (random, repair, reject, bag), a preset
    /// file's name (block-blast-like) or a generator file. Give it again for an A/B test:
    /// each tester is assigned one (see --assign), recorded in every log line, never shown.
    #[arg(long, value_name = "G", required = true)]
    generator: Vec<String>,
    /// The playtest's folder: one JSON Lines log per tester session (what fit-player,
    /// fit-population and forecast --check read), the journal the server resumes from, and
    /// playtest.json. Serving a folder again resumes it (with the same generators).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The address to listen on. Anything but the loopback address is reachable by others:
    /// the server then asks every request for a random token, carried by the printed link.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// How testers are shared among generators: alternate (equal arms, in order of
    /// arrival) or random.
    #[arg(long, value_enum, default_value = "alternate")]
    assign: AssignArg,
    /// Ask for a token on the loopback address too.
    #[arg(long)]
    token: bool,
    /// Replace the folder's token with a new one (links sent before stop working). The
    /// token is kept in the folder (`token`, readable by you alone), so a restart keeps
    /// every tester's link working.
    #[arg(long)]
    new_token: bool,
    /// A study text shown before a tester's first game, with "I agree" (journalled): RON,
    /// `(title: "…", text: "what is recorded and why", contact: "whom to ask")`.
    #[arg(long, value_name = "FILE")]
    study: Option<PathBuf>,
    /// A reverse proxy in front (its address): its connections are not capped per address,
    /// and a request through it counts as the client X-Forwarded-For names.
    #[arg(long, value_name = "ADDR")]
    trusted_proxy: Option<std::net::IpAddr>,
    /// A host name testers reach the server by (the proxy's public name, this machine's
    /// name). IP addresses and localhost always pass; other names only if given here.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// New testers a second, all together (a burst of four seconds' worth is allowed).
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    arrival_rate: u32,
    /// New testers a second from one address (a burst of twelve seconds' worth is allowed):
    /// one client making up ids cannot take every arrival or fill the playtest.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    arrival_rate_per_address: u32,
    /// A session ends after this many minutes without a move; the tester's next visit
    /// starts a new one.
    #[arg(long, value_name = "MIN", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440))]
    idle_minutes: u32,
    /// Testers playing at once; one more is asked to come back later.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_testers: u32,
    #[arg(long, value_name = "SET.ron")]
    pieces: Option<PathBuf>,
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
    size: BoardSize,
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
    holder_size: u8,
}

/// `playtest rehearse`'s arguments.
#[derive(clap::Args, Debug)]
struct RehearseArgs {
    /// The testers' population: demo, demo-churn or a population file.
    #[arg(long, value_name = "P")]
    population: String,
    /// The two arms, the baseline first (a built-in, a preset or a generator file).
    #[arg(long, value_name = "G", required = true, num_args = 1)]
    generator: Vec<String>,
    /// Testers per arm (`plan-playtest --compare` says how many); at least 10, the fewest
    /// whose comparison has an interval.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(tenten_engine::stats::inference::MIN_PAIRED as i64..=rehearse::MAX_TESTERS as i64))]
    testers: u32,
    /// Sessions each tester plays.
    #[arg(long, value_name = "S", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    sessions: u32,
    /// A/B runs (each with a run of two identical arms beside it).
    #[arg(long, value_name = "R", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=rehearse::MAX_RUNS as i64))]
    runs: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// games_per_session, reach=R or returning_after=N.
    #[arg(long, default_value = "games_per_session")]
    objective: String,
    /// The folder the runs' playtest folders go in (new or empty).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// A game reaching this many rounds counts as cut off, as in the simulation, and the
    /// tester leaves it for a new one (its log ends on an unplayed deal).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_rounds: u32,
    /// The way the second arm is expected to differ from the first: power counts the runs
    /// that call it so.
    #[arg(long, value_enum, default_value = "better")]
    expect: rehearse::Direction,
    #[arg(long, value_name = "SET.ron")]
    pieces: Option<PathBuf>,
    #[arg(long, value_name = "WxH", default_value = "10x10", value_parser = simulate::parse_size)]
    size: BoardSize,
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=MAX_HOLDER as i64))]
    holder_size: u8,
    /// Play only the runs r with r mod N = I (a run is seeded by --seed and its index alone),
    /// each shard into its own --out; `playtest tally` counts the shards' folders as one.
    #[arg(long, value_name = "I/N", value_parser = super::simulate::parse_shard)]
    shard: Option<Shard>,
    /// The servers' idle limit in seconds: a session a tester stops ends after it, as a
    /// person's does (the field's least is a minute). Shorter is quicker; too short closes a
    /// session whose tester is still playing when a loaded machine stalls, and the run fails.
    #[arg(long, value_name = "S", default_value_t = rehearse::IDLE_SECONDS, value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle: u64,
    /// Where each run's two servers keep their folders while they serve (new or empty;
    /// --out by default). Memory-backed or node-local storage (/dev/shm) makes the servers'
    /// syncs cheap: a run at a planned size is about twice as quick, and holds gigabytes
    /// there (in memory, for /dev/shm) until its file is written. The run files stay in
    /// --out; with --keep-logs the logs stay here.
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,
    /// Keep each run's server folders (journals and logs: gigabytes a run at a planned
    /// size) once its run file is written; without it they are removed then.
    #[arg(long)]
    keep_logs: bool,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum AssignArg {
    Alternate,
    Random,
}

pub(super) fn cmd_playtest(a: &Args, out: &mut String) -> Result<(), FormatError> {
    match &a.command {
        Sub::Status { dir } => status(dir, out),
        Sub::Compare {
            logs,
            objective,
            pieces,
            baseline,
        } => compare(logs, objective, pieces.as_deref(), baseline.as_deref(), out),
        Sub::Forget { dir, tester } => forget(dir, tester, out),
        Sub::Rehearse(args) => rehearse_cmd(args, out),
        Sub::Tally { dirs, partial } => tally(dirs, *partial, out),
        Sub::Serve(args) => serve(serve_config(args)?, !args.bind.ip().is_loopback(), out),
    }
}

/// `playtest compare DIR...`.
fn compare(
    logs: &[PathBuf],
    objective: &str,
    pieces: Option<&std::path::Path>,
    baseline: Option<&str>,
    out: &mut String,
) -> Result<(), FormatError> {
    let objective = tenten_engine::study::adapt::Objective::parse(objective)
        .map_err(|m| FormatError::new("playtest compare", None, m))?;
    let set = piece_set(pieces)?;
    let files = tenten_engine::io::jsonl_log::read_logs(logs)?;
    if files.is_empty() {
        return Err(FormatError::new(
            &logs[0].display().to_string(),
            None,
            "no JSON Lines logs to compare",
        ));
    }
    let arms = tenten_engine::study::arms::compare(files, &set, objective.index(), baseline)?;
    if arms.arms.len() < 2 {
        return Err(FormatError::new(
            &logs[0].display().to_string(),
            None,
            format!(
                "the logs name one generator ({}); a comparison needs two arms",
                arms.arms.first().map_or("none", |a| a.generator.as_str())
            ),
        ));
    }
    for line in arms.lines() {
        let _ = writeln!(out, "{line}");
    }
    Ok(())
}

/// `playtest rehearse`.
fn rehearse_cmd(args: &RehearseArgs, out: &mut String) -> Result<(), FormatError> {
    if args.generator.len() != 2 {
        return Err(FormatError::new(
            "--generator",
            None,
            format!("a rehearsal has two arms; {} given", args.generator.len()),
        ));
    }
    let shard = args.shard.unwrap_or(Shard::ALL);
    if shard.games(args.runs as usize).next().is_none() {
        return Err(FormatError::new(
            "--shard",
            None,
            format!(
                "shard {shard} of {} runs plays none: N at most the runs",
                args.runs
            ),
        ));
    }
    let set = piece_set(args.pieces.as_deref())?;
    let Ok::<[Generator; 2], _>(arms) = arms(&args.generator, &set)?.try_into() else {
        unreachable!("two names give two arms");
    };
    let population = tenten_engine::fits::population::file::by_name(&args.population).map_err(|e| {
        let presets: Vec<&str> = tenten_engine::fits::population::file::PRESETS
            .iter()
            .map(|p| p.0)
            .collect();
        FormatError::new(
            "--population",
            None,
            format!("{e} (a population file, or a preset: {})", presets.join(", ")),
        )
    })?;
    let scratch = args.scratch.clone().unwrap_or_else(|| args.out.clone());
    // Both folders checked before either is made, and --out taken back if
    // --scratch cannot be written (the folder itself; parents made for it
    // stay, empty).
    new_or_empty("--out", &args.out)?;
    new_or_empty("--scratch", &scratch)?;
    let made = !args.out.exists();
    writable("--out", &args.out)?;
    if let Err(e) = writable("--scratch", &scratch) {
        if made {
            // Not recursive: only the empty folder just made.
            let _ = std::fs::remove_dir(&args.out);
        }
        return Err(e);
    }
    // One folder under two spellings is one folder: the runs' logs are
    // then beside their files, as without --scratch.
    let same_folder = matches!(
        (std::fs::canonicalize(&scratch), std::fs::canonicalize(&args.out)),
        (Ok(a), Ok(b)) if a == b
    );
    let scratch = if same_folder { args.out.clone() } else { scratch };
    let req = rehearse::Rehearsal {
        population,
        arms,
        set,
        size: args.size,
        k: usize::from(args.holder_size),
        testers: args.testers as usize,
        sessions: args.sessions,
        runs: args.runs as usize,
        seed: args.seed,
        objective: tenten_engine::study::adapt::Objective::parse(&args.objective)
            .map_err(|m| FormatError::new("--objective", None, m))?,
        expect: args.expect,
        max_rounds: args.max_rounds,
        out: args.out.clone(),
        shard,
        idle: Duration::from_secs(args.idle),
        scratch: scratch.clone(),
        keep_logs: args.keep_logs,
    };
    let played = shard.games(args.runs as usize).count();
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    eprintln!(
        "rehearsing {} against {}: {} an arm, {} each, {}, each beside a run of two identical arms, seed {}; \
         about {} logs and as many journals in {} ({})",
        args.generator[1],
        args.generator[0],
        plural(args.testers, "tester", "testers"),
        plural(args.sessions, "session", "sessions"),
        if shard == Shard::ALL {
            plural(args.runs, "run", "runs")
        } else {
            format!("{played} of {} runs (shard {shard})", args.runs)
        },
        args.seed,
        played as u64 * 2 * 2 * u64::from(args.testers) * u64::from(args.sessions),
        scratch.display(),
        if args.keep_logs {
            "kept"
        } else {
            "each run's removed once its file is written in the --out folder"
        }
    );
    let calls = rehearse::rehearse(&req, |l| {
        let _ = crate::cli::emit(&format!("{l}\n"));
    })
    .map_err(|m| FormatError::new("playtest rehearse", None, m))?;
    if scratch != args.out && !args.keep_logs {
        // Made for the runs and emptied by them: a folder that still holds
        // anything (kept logs, a file of someone's) stays.
        let _ = std::fs::remove_dir(&scratch);
    }
    for line in rehearse::summary_lines(&calls, req.expect, &rehearse::one_line(&req.population.name)) {
        let _ = writeln!(out, "{line}");
    }
    if shard != Shard::ALL {
        let _ = writeln!(
            out,
            "shard={shard} runs={played} of {}: `tenten playtest tally` counts every shard's folder as one rehearsal",
            req.runs
        );
    }
    Ok(())
}

/// A rehearsal's folder must be new or empty: its runs' folders are made
/// in it, and a server would resume a folder someone left there.
fn new_or_empty(flag: &str, dir: &std::path::Path) -> Result<(), FormatError> {
    if dir.exists() && !dir.is_dir() {
        return Err(FormatError::new(
            flag,
            None,
            format!("{} is a file, not a folder", dir.display()),
        ));
    }
    if dir.exists() && std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_some()) {
        return Err(FormatError::new(
            flag,
            None,
            format!(
                "{} is not an empty folder: a rehearsal writes its runs' playtest folders into a new one \
                 (a stopped rehearsal leaves its runs' server folders in its folders, to remove by hand)",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// The folder made, and written to, before any server starts.
fn writable(flag: &str, dir: &std::path::Path) -> Result<(), FormatError> {
    let probe = dir.join(".rehearse-probe");
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&probe, b""))
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|e| FormatError::new(flag, None, format!("{}: cannot write there: {e}", dir.display())))
}

/// `playtest tally DIR...`.
fn tally(dirs: &[PathBuf], partial: bool, out: &mut String) -> Result<(), FormatError> {
    let t = super::rehearse_tally::tally(dirs, partial)
        .map_err(|m| FormatError::new("playtest tally", None, m))?;
    for line in t
        .lines
        .iter()
        .chain(&rehearse::summary_lines(&t.calls, t.expect, &t.population))
    {
        let _ = writeln!(out, "{line}");
    }
    Ok(())
}

/// `playtest status DIR`.
fn status(dir: &std::path::Path, out: &mut String) -> Result<(), FormatError> {
    let s = tenten_playtest::status(dir)
        .map_err(|e| FormatError::new(&dir.display().to_string(), None, e.to_string()))?;
    let t = s.total();
    let line = |a: &tenten_playtest::status::Arm| {
        format!(
            "testers={} sessions={} open={} games={} moves={} unfair_losses={}",
            a.testers, a.sessions, a.open, a.games, a.moves, a.unfair
        )
    };
    let _ = writeln!(out, "playtest={} {}", dir.display(), line(&t));
    for (name, arm) in &s.arms {
        let _ = writeln!(out, "generator={name} {}", line(arm));
    }
    if s.agreed > 0 {
        let _ = writeln!(out, "agreed={} (testers who agreed to the study)", s.agreed);
    }
    for b in &s.bad {
        let _ = writeln!(
            out,
            "cannot replay: {b} (the server sets it aside when it next starts)"
        );
    }
    if !s.set_aside.is_empty() {
        let _ = writeln!(
            out,
            "set aside: {} file{} in {}",
            s.set_aside.len(),
            if s.set_aside.len() == 1 { "" } else { "s" },
            tenten_playtest::recover::set_aside_dir(dir).display()
        );
    }
    if s.torn > 0 {
        let _ = writeln!(
            out,
            "note: {} journal{} end{} in a line a crash cut short; the server cuts {} off when it next starts",
            s.torn,
            if s.torn == 1 { "" } else { "s" },
            if s.torn == 1 { "s" } else { "" },
            if s.torn == 1 { "it" } else { "them" }
        );
    }
    Ok(())
}

/// `playtest forget DIR TESTER`.
fn forget(dir: &std::path::Path, tester: &str, out: &mut String) -> Result<(), FormatError> {
    let f = tenten_playtest::forget::forget(dir, tester)
        .map_err(|e| FormatError::new(&dir.display().to_string(), None, e.to_string()))?;
    let _ = writeln!(
        out,
        "forgot={tester} files={} sessions={} (journals, logs and set-aside copies removed)",
        f.files, f.sessions
    );
    Ok(())
}

/// The server's settings from `playtest serve`'s arguments.
/// The generators `--generator` names, each once, dealt from `set`.
fn arms(
    names: &[String],
    set: &tenten_engine::model::pieces::PieceSet,
) -> Result<Vec<Generator>, FormatError> {
    let mut generators = Vec::new();
    for name in names {
        if generators.iter().any(|g: &Generator| &g.name == name) {
            return Err(FormatError::new(
                "--generator",
                None,
                format!("{name:?} is given twice"),
            ));
        }
        generators.push(Generator {
            name: name.clone(),
            dealing: Dealing::by_name(name, set)?,
        });
    }
    Ok(generators)
}

fn serve_config(args: &ServeArgs) -> Result<Config, FormatError> {
    let ServeArgs {
        generator,
        out: dir,
        bind,
        assign,
        token,
        new_token,
        study,
        trusted_proxy,
        allow_host,
        arrival_rate,
        arrival_rate_per_address,
        idle_minutes,
        max_testers,
        pieces,
        size,
        holder_size,
    } = args;
    let set = piece_set(pieces.as_deref())?;
    let generators = arms(generator, &set)?;
    let open = !bind.ip().is_loopback();
    let config = Config {
        generators,
        set,
        size: *size,
        k: usize::from(*holder_size),
        out: dir.clone(),
        bind: *bind,
        assign: match assign {
            AssignArg::Alternate => Assign::Alternate,
            AssignArg::Random => Assign::Random,
        },
        token: if open || *token || *new_token {
            if *new_token { Token::New } else { Token::Kept }
        } else {
            Token::None
        },
        limits: Limits {
            idle_session: Duration::from_secs(u64::from(*idle_minutes) * 60),
            open_sessions: *max_testers as usize,
            arrivals_per_second: f64::from(*arrival_rate),
            arrival_burst: f64::from(*arrival_rate) * 4.0,
            arrivals_per_address: f64::from(*arrival_rate_per_address),
            ..Limits::default()
        },
        study: match study {
            Some(path) => Some(Study::read(path).map_err(|m| FormatError::new("--study", None, m))?),
            None => None,
        },
        trusted_proxy: *trusted_proxy,
        allowed_hosts: allow_host.clone(),
        faults: Default::default(),
        who: "tenten playtest serve".to_owned(),
        behaviour: tenten_playtest::BEHAVIOUR,
    };
    Ok(config)
}

fn serve(config: Config, open: bool, out: &mut String) -> Result<(), FormatError> {
    let dir = config.out.display().to_string();
    let names: Vec<String> = config.generators.iter().map(|g| g.name.clone()).collect();
    let assign = config.assign;
    // The server's messages name the folder themselves.
    let server = Server::bind(config).map_err(|e| FormatError::new("playtest serve", None, e.to_string()))?;
    let r = &server.recovery;
    // The link first, on stdout, flushed: scripts (and tests) read it.
    // Through the CLI's one writer: a closed stdout is no panic.
    let _ = crate::cli::emit(&format!("link={}\n", server.link()));
    if open {
        eprintln!(
            "warning: listening on {}, reachable by anyone who can reach this machine; every request must carry \
             the link's token. Share the link only with your testers, and put TLS in front (docs/playtests.md).",
            server.addr
        );
    }
    eprintln!(
        "serving {} ({}) at {}; logs in {dir}",
        names.join(", "),
        if names.len() > 1 {
            format!(
                "testers assigned {}",
                if assign == Assign::Alternate {
                    "alternately"
                } else {
                    "at random"
                }
            )
        } else {
            "every tester".to_owned()
        },
        server.addr
    );
    if r.testers > 0 {
        eprintln!(
            "resumed: {} testers so far, {} open session{} resumed, {} closed as idle, {} deal{} restored to logs from journals",
            r.testers,
            r.resumed,
            if r.resumed == 1 { "" } else { "s" },
            r.closed_idle,
            r.restored,
            if r.restored == 1 { "" } else { "s" }
        );
    }
    for t in &r.torn {
        eprintln!("note: {t}");
    }
    for s in &r.set_aside {
        eprintln!("set aside: {s}");
    }
    for s in &r.skipped {
        eprintln!("note: {s}");
    }
    eprintln!(
        "up to {} connections at once (open-file limit {})",
        server.capacity.connections, server.capacity.open_files
    );
    eprintln!("ctrl-c stops it (open games resume when it is served again)");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| FormatError::new("playtest", None, format!("cannot start the server: {e}")))?;
    runtime
        .block_on(server.run(stop()))
        .map_err(|e| FormatError::new("playtest", None, format!("the server failed: {e}")))?;
    let _ = writeln!(out, "stopped; every acknowledged move is in {dir}");
    Ok(())
}

/// Ctrl-C, or SIGTERM (a service manager's stop).
async fn stop() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
