//! `tenten playtest rehearse`: an A/B playtest rehearsed through the real
//! server before people play it. Each run serves the two generators from
//! this process (a loopback port, a folder of its own, journals and logs
//! exactly as `playtest serve` keeps them) to scripted testers over HTTP
//! who play as a population's simulated players, then compares the
//! folder's logs as `playtest compare` does. A second server per run deals
//! one generator under two names, so two arms that cannot differ are
//! compared the same way. Over the runs: how often the A/B calls a
//! difference (its power at this size) and how often it calls one that is
//! not there (its false alarms), each with a 95 % interval and a verdict.
//!
//! The testers are a model's players, not people: the rehearsal checks the
//! pipeline and the size under that model, not the audience.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tenten_engine::fits::population::file::Population;
use tenten_engine::fits::population::session::{mix, player_seed};
use tenten_engine::model::board::BoardSize;
use tenten_engine::model::generator::Generator as Rng;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::model::shapes::Shapes;
use tenten_engine::progress::Progress;
use tenten_engine::stats::inference::Gain;
use tenten_engine::study::adapt::Objective;
use tenten_engine::study::calibrate::generator::Rate;
use tenten_engine::study::results::Shard;
use tenten_playtest::{Assign, Config, Generator, Limits, Server, Token};

use super::rehearse_tester::{self as tester, Site};

/// What a rehearsal is asked.
pub struct Rehearsal {
    pub population: Population,
    /// The baseline arm first.
    pub arms: [Generator; 2],
    pub set: PieceSet,
    pub size: BoardSize,
    pub k: usize,
    pub testers: usize,
    pub sessions: u32,
    pub runs: usize,
    pub seed: u64,
    pub objective: Objective,
    /// The way the second arm is expected to differ: power counts the runs
    /// that call it so (a call the other way is counted apart).
    pub expect: Direction,
    pub max_rounds: u32,
    pub out: PathBuf,
    /// The runs this process plays: r with r mod N = I (`--shard I/N`).
    pub shard: Shard,
    /// The servers' idle limit: a stopped session ends after it. It does
    /// not decide what the testers play, so it is not in the fingerprint.
    pub idle: Duration,
    /// Where each run's two servers keep their folders while they serve
    /// (`--scratch`; `out` by default): on memory-backed or node-local
    /// storage their syncs cost little. Not in the fingerprint either.
    pub scratch: PathBuf,
    /// Keep each run's server folders once its run file is written
    /// (`--keep-logs`); by default they are removed then, as a run at a
    /// planned size leaves gigabytes of logs whose verdicts are in the file.
    pub keep_logs: bool,
}

/// Which way a difference is expected (`--expect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Direction {
    Better,
    Worse,
}

impl Direction {
    pub fn word(self) -> &'static str {
        match self {
            Direction::Better => "better",
            Direction::Worse => "worse",
        }
    }
}

/// What the runs called.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calls {
    /// A/B runs that called the expected difference, and the other way.
    pub power: Rate,
    pub wrong_way: usize,
    /// Runs of two identical arms that called any difference.
    pub false_alarms: Rate,
}

/// The most runs a rehearsal may have (`--runs`; the tally refuses a run
/// file that says more).
pub const MAX_RUNS: usize = 1000;

/// The most testers a rehearsal's arm may have (`plan-playtest`'s most).
pub const MAX_TESTERS: usize = tenten_engine::study::calibrate::plan_playtest::MAX_TESTERS;

/// What one server's comparison said.
#[derive(Clone, Debug)]
pub struct Compared {
    pub testers: (usize, usize),
    pub sessions: (usize, usize),
    pub gain: Option<Gain>,
    pub played: tester::Played,
    pub seconds: f64,
}

/// The server's idle limit in a rehearsal by default (`--idle`): a session
/// a tester stops ends after it, as a person's does. The field's least is
/// a minute; a rehearsal's is shorter to be quick, but not as short as a
/// pause of a loaded machine: two seconds once closed a session whose
/// tester was still playing (the server counted more than two seconds
/// between two of its requests, in a server of 400 testers and 1,200
/// sessions), and the run was lost.
pub const IDLE_SECONDS: u64 = 20;

/// Sessions played at once, and requests in flight at once (at most; no
/// more than half the server's connections).
const PLAYING: usize = 64;
const IN_FLIGHT: usize = 64;

/// One server over `arms` in `dir`, its testers drawn from `seed`.
/// `label` names the server in its progress lines.
pub fn one_server(
    req: &Rehearsal,
    arms: Vec<Generator>,
    dir: &Path,
    seed: u64,
    label: &str,
) -> Result<Compared, String> {
    let names: Vec<String> = arms.iter().map(|g| g.name.clone()).collect();
    let config = Config {
        generators: arms,
        set: req.set.clone(),
        size: req.size,
        k: req.k,
        out: dir.to_owned(),
        bind: ([127, 0, 0, 1], 0).into(),
        assign: Assign::Alternate,
        token: Token::None,
        limits: Limits {
            idle_session: req.idle,
            // A request the loaded server is slow to answer is not lost
            // before its session would be.
            request_timeout: req.idle.max(Limits::default().request_timeout),
            // One client, many testers, no think time: the limits that
            // keep one client from hurting others would only slow it.
            per_second: 1e9,
            burst: 1e9,
            arrivals_per_second: 1e9,
            arrival_burst: 1e9,
            arrivals_per_address: 1e9,
            ..Limits::default()
        },
        study: None,
        trusted_proxy: None,
        allowed_hosts: Vec::new(),
        faults: Default::default(),
        who: "tenten playtest rehearse".to_owned(),
        behaviour: tenten_playtest::BEHAVIOUR,
    };
    // The server's messages name the folder themselves.
    let server = Server::bind(config).map_err(|e| e.to_string())?;
    let base = format!("http://{}", server.addr);
    // The testers' pool keeps a connection per request in flight.
    let in_flight = (server.capacity.connections / 2).clamp(1, IN_FLIGHT);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = std::thread::spawn(move || -> Result<(), String> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(server.run(async {
            let _ = stopped.await;
        }))
        .map_err(|e| format!("the server failed: {e}"))
    });
    let started = Instant::now();
    let played = play_testers(req, &base, in_flight, seed, label);
    if played.is_ok() {
        // The testers' last sessions end as in the field, by going idle:
        // the server closes them (an unfinished deal logged) before it
        // stops, so the folder holds no open session.
        std::thread::sleep(req.idle * 2 + Duration::from_millis(500));
    }
    let _ = stop.send(());
    let served = serving
        .join()
        .unwrap_or_else(|_| Err("the server's thread panicked".to_owned()));
    let played = played.map_err(|e| format!("{}: {e}", dir.display()))?;
    served.map_err(|e| format!("{}: {e}", dir.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let files = tenten_engine::io::jsonl_log::read_logs(&[dir.to_owned()]).map_err(|e| e.to_string())?;
    let arms = tenten_engine::study::arms::compare(files, &req.set, req.objective.index(), Some(&names[0]))
        .map_err(|e| e.to_string())?;
    let [a, b] = arms.arms.as_slice() else {
        return Err(format!(
            "{}: the logs name {} generators, not the two served",
            dir.display(),
            arms.arms.len()
        ));
    };
    Ok(Compared {
        testers: (a.testers, b.testers),
        sessions: (a.sessions, b.sessions),
        gain: arms.gains.first().cloned().flatten(),
        played,
        seconds,
    })
}

/// Every tester of both arms at once (the server alternates arms by
/// arrival), each a player drawn from the population.
fn play_testers(
    req: &Rehearsal,
    base: &str,
    in_flight: usize,
    seed: u64,
    label: &str,
) -> Result<tester::Played, String> {
    // One thread for the testers and their connections: a request's answer
    // wakes its tester where it was sent from, not across threads (a
    // tenth less time a move than a worker thread beside this one).
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(in_flight)
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| e.to_string())?;
    let shapes = Shapes::new(&req.set, req.size);
    let gate = tokio::sync::Semaphore::new(in_flight);
    let playing = tokio::sync::Semaphore::new(PLAYING);
    let progress = Progress::default();
    progress.set_total(2 * req.testers * req.sessions as usize);
    let site = Site {
        http: &http,
        base,
        shapes: &shapes,
        set: &req.set,
        gate: &gate,
        playing: &playing,
        idle: req.idle * 2 + Duration::from_millis(200),
        max_rounds: req.max_rounds,
        progress: &progress,
    };
    let play = || {
        rt.block_on(async {
            let testers = (0..2 * req.testers).map(|i| {
                let who = player_seed(seed, i as u64);
                let drawn = req.population.draw(&format!("tester {i}"), &mut Rng::new(who));
                let id = format!("{:016x}{:016x}", mix(who), mix(who ^ 1));
                let site = &site;
                let quit = &req.population.quit;
                async move {
                    tester::play(site, &id, drawn.player, quit, req.sessions, mix(who ^ 2))
                        .await
                        .map_err(|e| format!("tester {i} ({id}): {e}"))
                }
            });
            let mut total = tester::Played::default();
            // One task polls them all (the players' choices on this thread;
            // the server on its own), and the first error ends the rest.
            for p in futures_util::future::try_join_all(testers).await? {
                total.sessions += p.sessions;
                total.games += p.games;
                total.moves += p.moves;
                total.requests += p.requests;
            }
            Ok::<_, String>(total)
        })
    };
    super::ticker::ticking(label, "sessions played", &progress, play)
}

/// The file each finished run leaves in its folder (`run-K/run.txt`): the
/// rehearsal's header, then its two servers' lines. A run stopped before
/// its end has none, so `playtest tally` counts only whole runs.
pub const RUN_FILE: &str = "run.txt";

/// The first line of every run's file: `rehearsal=FINGERPRINT runs=R
/// expect=E population=NAME`, in that order (the name last, as written). The
/// fingerprint is of everything that decides the runs and how they are
/// counted, but not the shard or the arms' names as typed (a path to the
/// same file differs from machine to machine): the engine's and the
/// server's behaviour versions, the population, both arms as they deal, in
/// order, the pieces, the board and holder, the testers, sessions, runs,
/// seed, objective, expected direction and round cap. The shards of one rehearsal share it;
/// another rehearsal's runs do not.
pub fn header(req: &Rehearsal) -> String {
    let arms: Vec<_> = req.arms.iter().map(|g| g.dealing.to_def()).collect();
    // Every value here is a plain serde type: `json!` cannot fail on them.
    let decides = serde_json::json!({
        "engine": tenten_engine::study::plan::ENGINE,
        "server": tenten_playtest::BEHAVIOUR.to_string(),
        "population": req.population.to_ron(),
        "arms": arms,
        "pieces": req.set,
        "size": req.size.to_string(),
        "holder": req.k,
        "testers": req.testers,
        "sessions": req.sessions,
        "runs": req.runs,
        "seed": req.seed,
        "objective": req.objective.name(),
        "expect": req.expect.word(),
        "max_rounds": req.max_rounds,
    });
    format!(
        "rehearsal={:016x} runs={} expect={} population={}",
        tenten_engine::io::formats::content_hash(&decides.to_string()),
        req.runs,
        req.expect.word(),
        one_line(&req.population.name)
    )
}

/// A name as one line of a run's file (a name may hold a line break).
pub fn one_line(name: &str) -> String {
    name.replace(['\n', '\r'], " ")
}

/// The runs one rehearsal (or its shard) called, from their verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub runs: usize,
    pub detected: usize,
    pub wrong_way: usize,
    pub alarms: usize,
}

impl Tally {
    /// One run: the A/B server's verdict and the identical arms'.
    pub fn add(&mut self, expect: &str, ab: &str, same: &str) {
        self.runs += 1;
        match ab {
            v if v == expect => self.detected += 1,
            "undecided" => {}
            _ => self.wrong_way += 1,
        }
        self.alarms += usize::from(same != "undecided");
    }

    pub fn calls(&self) -> Calls {
        Calls {
            // Exact intervals: a shard's one run, or a handful, is judged
            // as surely as its runs allow, no surer (Wilson's said
            // "missed" after one run of 0).
            power: Rate::exact(self.detected, self.runs),
            wrong_way: self.wrong_way,
            false_alarms: Rate::exact(self.alarms, self.runs),
        }
    }
}

/// The rehearsal's runs (those of its shard): each an A/B server and a
/// server of two identical arms, serving from folders `run-K/ab` and
/// `run-K/same` of the scratch folder (removed once the run's file is
/// written, unless kept); a line per server as it ends, the run's file
/// `run-K/run.txt` in `out` when both have, then the power and the false
/// alarms over the runs played.
pub fn rehearse(req: &Rehearsal, mut line: impl FnMut(&str)) -> Result<Calls, String> {
    let started = Instant::now();
    let head = header(req);
    let mut tally = Tally::default();
    let runs: Vec<usize> = req.shard.games(req.runs).collect();
    for (done, &run) in runs.iter().enumerate() {
        let seed = mix(req.seed ^ mix(run as u64 + 1));
        let dir = req.out.join(format!("run-{run:03}"));
        let serving = req.scratch.join(format!("run-{run:03}"));
        let ab = one_server(
            req,
            req.arms.to_vec(),
            &serving.join("ab"),
            seed,
            &format!("run {run}, A/B"),
        )?;
        // Each server's line as it ends: a rehearsal stopped between the
        // two has said what its folders hold.
        let ab_line = run_line(run, "ab", &req.arms[0].name, &ab);
        line(&ab_line);
        // The same population's players (assigned by arrival, as in the
        // A/B), both arms dealt by the first generator.
        let same = [
            req.arms[0].clone(),
            Generator {
                name: format!("{} (again)", req.arms[0].name),
                dealing: req.arms[0].dealing.clone(),
            },
        ];
        let null = one_server(
            req,
            same.to_vec(),
            &serving.join("same"),
            seed,
            &format!("run {run}, identical arms"),
        )?;
        let null_line = run_line(run, "same", &req.arms[0].name, &null);
        line(&null_line);
        // The run's folder is the servers' unless they served elsewhere.
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot make it: {e}", dir.display()))?;
        tenten_engine::io::formats::write_atomic(
            &dir.join(RUN_FILE),
            &format!("{head}\n{ab_line}\n{null_line}\n"),
        )
        .map_err(|e| e.to_string())?;
        if !req.keep_logs {
            drop_logs(&serving);
        }
        let call = |c: &Compared| c.gain.as_ref().map_or("undecided", Gain::verdict);
        tally.add(req.expect.word(), call(&ab), call(&null));
        let per_run = started.elapsed().as_secs_f64() / (done + 1) as f64;
        eprintln!(
            "  run {} ({} of {}): {:.0} s, about {:.0} s left",
            run,
            done + 1,
            runs.len(),
            ab.seconds + null.seconds,
            per_run * (runs.len() - done - 1) as f64
        );
    }
    Ok(tally.calls())
}

/// Removes a run's two server folders in `serving`, then `serving` itself
/// if that leaves it empty: the run's file holds their verdicts. Nothing
/// else is removed, whatever `serving` turns out to be (the run's own
/// folder under another spelling holds the run's file, and stays). A
/// removal that fails is said and left; the run counts.
fn drop_logs(serving: &Path) {
    for server in ["ab", "same"] {
        let folder = serving.join(server);
        if let Err(e) = std::fs::remove_dir_all(&folder) {
            eprintln!(
                "  {}: the server's logs could not be removed ({e}); the run's file is written and it counts",
                folder.display()
            );
        }
    }
    // Not recursive: a folder holding anything else is not the logs'.
    let _ = std::fs::remove_dir(serving);
}

/// The summary lines after the runs: the power, the false alarms and what
/// the testers were. `playtest rehearse` and `playtest tally` print them
/// alike.
pub fn summary_lines(calls: &Calls, expect: Direction, population: &str) -> Vec<String> {
    use tenten_engine::study::calibrate::generator::Goal;
    let rate = |r: Rate| {
        format!(
            "{}/{} rate={:.3} rate_ci={:.3},{:.3}",
            r.count, r.of, r.rate, r.ci.0, r.ci.1
        )
    };
    // A test of nominal level 5 % calls two identical arms different in
    // 5 % of runs: its interval holds 0.05 in most studies (all but 2.5 to
    // 8 % from 20 runs), so the goal's verdict stays undecided at any
    // number of runs (met in under 3 % of studies of 1 to 2,000 runs; the
    // engine's test
    // at_most_the_nominal_level_is_undecidable_for_a_test_of_that_level);
    // that it holds the nominal level is the check that can pass.
    let f = calls.false_alarms;
    vec![
        format!(
            "power={} expect={} wrong_way={} goal={} verdict={}",
            rate(calls.power),
            expect.word(),
            calls.wrong_way,
            Goal::AT_LEAST_80.words(),
            Goal::AT_LEAST_80.verdict(calls.power.ci).word()
        ),
        format!(
            "false_alarms={} goal={} verdict={} nominal=0.05 nominal_in_ci={}",
            rate(f),
            Goal::AT_MOST_5.words(),
            Goal::AT_MOST_5.verdict(f.ci).word(),
            if f.ci.0 <= 0.05 && 0.05 <= f.ci.1 {
                "yes"
            } else {
                "no"
            }
        ),
        format!(
            "note: the testers are {population}'s simulated players over HTTP, not people; the servers dealt from their own randomness, as in the field"
        ),
    ]
}

/// A server's line; `vs` the baseline its gain is over (`playtest compare
/// DIR --baseline VS` reads the folder alike).
fn run_line(run: usize, kind: &str, vs: &str, c: &Compared) -> String {
    let (gain, ci, verdict) = match &c.gain {
        Some(g) => (
            format!("{:.4}", g.gain),
            g.ci.map_or("none".to_owned(), |(lo, hi)| format!("{lo:.4},{hi:.4}")),
            g.verdict(),
        ),
        None => ("none".to_owned(), "none".to_owned(), "undecided"),
    };
    let vs = one_line(vs);
    format!(
        "run={run} server={kind} vs={vs} testers={},{} sessions={},{} games={} moves={} requests={} gain={gain} gain_ci={ci} verdict={verdict} seconds={:.1}",
        c.testers.0,
        c.testers.1,
        c.sessions.0,
        c.sessions.1,
        c.played.games,
        c.played.moves,
        c.played.requests,
        c.seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenten_engine::study::calibrate::generator::Goal;
    use tenten_engine::study::tune_verdict::Verdict;

    /// One run that missed says nothing yet (Wilson's interval called the
    /// power "missed" after it); ten of ten are still short of a verdict on
    /// 80 %, and 30 of 30 meet it.
    #[test]
    fn a_handful_of_runs_is_judged_no_surer_than_it_can_be() {
        let calls = |detected, runs| {
            Tally {
                runs,
                detected,
                wrong_way: 0,
                alarms: 0,
            }
            .calls()
        };
        let power = |d, r| Goal::AT_LEAST_80.verdict(calls(d, r).power.ci);
        assert_eq!(power(0, 1), Verdict::Undecided);
        assert_eq!(power(1, 1), Verdict::Undecided);
        assert_eq!(power(10, 10), Verdict::Undecided);
        assert_eq!(power(30, 30), Verdict::Met);
        assert_eq!(power(0, 10), Verdict::Missed);
        let f = calls(0, 6).false_alarms;
        assert!(f.ci.0 == 0.0 && (f.ci.1 - 0.4593).abs() < 1e-4, "{f:?}");
    }
}
