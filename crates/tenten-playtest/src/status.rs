//! `tenten playtest status DIR`: who has played, per generator, read from
//! the journals without changing a byte (a server may be running).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use tenten_engine::model::board::BoardSize;
use tenten_engine::model::pieces::PieceSet;
use tenten_engine::play::dealing::Dealing;

use crate::config::{Config, Generator, Identity, Limits};
use crate::ids;
use crate::recover::set_aside_dir;
use crate::replay::replay_lines;
use crate::store::{Error, identity_path, journal_dir};

/// One generator's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arm {
    pub testers: usize,
    pub sessions: usize,
    /// Sessions not yet closed (the tester may come back).
    pub open: usize,
    /// Games played: a move made or over on the first deal, as `playtest
    /// compare` and the fits read the logs (a game begun and left before
    /// any move is none).
    pub games: u64,
    pub moves: u64,
    pub unfair: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Per generator, in the order the server was given them.
    pub arms: Vec<(String, Arm)>,
    /// Lines a crash tore at a journal's end (read past, not changed).
    pub torn: usize,
    /// Journals that cannot be replayed, each with why (the server sets
    /// them aside when it next starts).
    pub bad: Vec<String>,
    /// Files set aside by a server so far (in `journal/set-aside/`).
    pub set_aside: Vec<String>,
    /// Testers who agreed to the study.
    pub agreed: usize,
}

impl Status {
    pub fn total(&self) -> Arm {
        let mut t = Arm::default();
        for (_, a) in &self.arms {
            t.testers += a.testers;
            t.sessions += a.sessions;
            t.open += a.open;
            t.games += a.games;
            t.moves += a.moves;
            t.unfair += a.unfair;
        }
        t
    }
}

/// The playtest in `dir` as its `playtest.json` says it was served.
pub fn folder_config(dir: &Path) -> Result<Config, Error> {
    let id_path = identity_path(dir);
    let text = std::fs::read_to_string(&id_path).map_err(|e| {
        Error::Folder(format!(
            "{}: cannot read ({e}); is {} a playtest folder (tenten playtest serve --out)?",
            id_path.display(),
            dir.display()
        ))
    })?;
    let identity: Identity = serde_json::from_str(&text)
        .map_err(|e| Error::Folder(format!("{}: not a playtest's identity: {e}", id_path.display())))?;
    crate::recover::known_behaviour(&id_path, identity.behaviour)?;
    let set = PieceSet::from_def(&identity.pieces)
        .map_err(|m| Error::Folder(format!("{}: {m}", id_path.display())))?;
    let (w, h) = identity
        .board
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
        .ok_or_else(|| {
            Error::Folder(format!(
                "{}: board {:?} is not WxH",
                id_path.display(),
                identity.board
            ))
        })?;
    let size = BoardSize::new(w, h).map_err(|m| Error::Folder(format!("{}: {m}", id_path.display())))?;
    let generators = identity
        .generators
        .iter()
        .map(|(name, def)| {
            Dealing::from_def(def, &set, name)
                .map(|dealing| Generator {
                    name: name.clone(),
                    dealing,
                })
                .map_err(|m| Error::Folder(format!("{}: generator {name:?}: {m}", id_path.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Config {
        generators,
        set,
        size,
        k: identity.holder,
        out: dir.to_owned(),
        bind: ([127, 0, 0, 1], 0).into(),
        assign: identity.assign,
        token: crate::config::Token::None,
        limits: Limits::default(),
        study: None,
        trusted_proxy: None,
        allowed_hosts: Vec::new(),
        faults: Default::default(),
        who: "tenten playtest status".to_owned(),
        behaviour: identity.behaviour,
    })
}

/// The figures of the playtest in `dir`.
pub fn status(dir: &Path) -> Result<Status, Error> {
    let config = folder_config(dir)?;
    let jdir = journal_dir(dir);
    let mut names = ids::journals_in(&jdir)
        .map_err(|e| Error::Folder(format!("{}: cannot read: {e}", jdir.display())))?;
    names.sort();
    let mut arms: Vec<(String, Arm)> = config
        .generators
        .iter()
        .map(|g| (g.name.clone(), Arm::default()))
        .collect();
    let mut testers: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let mut torn = 0;
    let mut bad = Vec::new();
    let mut agreed = BTreeSet::new();
    // Each tester's games so far, carried from session to session (names
    // are in order): an adaptive generator deals by them.
    let mut games: Option<(String, tenten_engine::play::adaptive::History)> = None;
    for (tester, number) in names {
        let before = match &games {
            Some((t, h)) if *t == tester => h.clone(),
            _ => Default::default(),
        };
        let path = jdir.join(ids::journal_name(&tester, number));
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                bad.push(format!("{}: cannot read: {e}", path.display()));
                continue;
            }
        };
        let (lines, cut) = crate::journal::complete_lines(&bytes);
        torn += usize::from(cut > 0);
        let (g, r) = match replay_lines(&config, &path, &lines, &tester, number, before) {
            Ok(x) => x,
            Err(e) => {
                bad.push(e.to_string());
                continue;
            }
        };
        games = Some((tester.clone(), r.history.clone()));
        if r.agreed.is_some() {
            agreed.insert(tester.clone());
        }
        let arm = &mut arms[g].1;
        arm.sessions += 1;
        arm.open += usize::from(!r.ended);
        arm.games += r.games;
        arm.moves += r.moves;
        arm.unfair += r.unfair;
        testers.entry(g).or_default().insert(tester);
    }
    for (g, t) in testers {
        arms[g].1.testers = t.len();
    }
    let mut set_aside: Vec<String> = std::fs::read_dir(set_aside_dir(dir))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path().display().to_string())
                .collect()
        })
        .unwrap_or_default();
    set_aside.sort();
    Ok(Status {
        arms,
        torn,
        bad,
        set_aside,
        agreed: agreed.len(),
    })
}
