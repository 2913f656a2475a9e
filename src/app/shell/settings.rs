//! What is saved with the session besides the document: settings that are
//! not part of undo, the timing lab's and the generator lab's among them.
//! The jobs read these; nothing here looks at a job.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use tenten_engine::model::board::BoardSize;
use tenten_engine::perf::throttle::DEFAULT_SWEEP;
use tenten_engine::play::coelho::CoelhoWeights;
use tenten_engine::play::dealers;
use tenten_engine::search::changer::DEFAULT_MAX_REDRAWS;
use tenten_engine::search::heuristic::Policy;

/// Board painting tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tool {
    /// Left-drag paints, right-drag erases.
    #[default]
    Brush,
    /// Click fills a row (right-click clears it).
    Row,
    /// Click fills a column (right-click clears it).
    Column,
}

/// Settings: not part of undo.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub seed: u64,
    pub policy: Policy,
    /// How repeated pieces share failures in F.
    pub reading: tenten_engine::search::heuristic::Reading,
    pub max_redraws: usize,
    pub tool: Tool,
    /// Target fill for "random fill", in percent.
    pub fill_percent: u32,
    /// The file the document was last opened from or saved to.
    pub file: Option<PathBuf>,
    /// The hash of that file's text then, to tell at the next Save whether
    /// another program changed it.
    pub file_hash: Option<u64>,
    /// Where the piece set came from, written into saved deals.
    pub pieces_file: Option<PathBuf>,
    pub recent: Vec<PathBuf>,
    /// The folder each kind of file was last chosen in (`Purpose::kind`).
    pub last_folders: std::collections::BTreeMap<String, PathBuf>,
    pub show_palette: bool,
    pub show_inspector: bool,
    /// The inspector's tab takes the whole central area (the board hidden),
    /// for the labs' plots and tables.
    pub inspector_large: bool,
    pub inspector_tab: usize,
    /// The side panels' widths as the user last dragged them; a small
    /// window narrows them for a while, but they come back when it grows.
    pub palette_width: Option<f32>,
    pub inspector_width: Option<f32>,
    /// Board overlays of the danger panel: the per-cell influence heatmap
    /// and the hatched dead regions.
    pub danger_heatmap: bool,
    pub danger_dead_regions: bool,
    pub timing: TimingSettings,
    pub lab: LabSettings,
    /// The folder of testers' logs the population was last fitted to: the
    /// fit is made again from it when the window opens (the same logs give
    /// the same fit), so it survives a restart.
    pub population_folder: Option<PathBuf>,
    /// The start page (what this is, examples, where each task lives) when
    /// the window opens; a returning user turns it off.
    pub show_welcome: bool,
    /// Games played by hand are kept as a JSON Lines log in the data
    /// folder's `play-logs/` (Edit > Record games played by hand).
    pub record_play: bool,
    /// The pseudonymous id those logs give the person at this window (32
    /// hex digits, made once).
    pub player_id: String,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            seed: 42,
            policy: Policy::Deepest,
            reading: Default::default(),
            max_redraws: DEFAULT_MAX_REDRAWS,
            tool: Tool::Brush,
            fill_percent: 40,
            file: None,
            file_hash: None,
            pieces_file: None,
            recent: Vec::new(),
            last_folders: std::collections::BTreeMap::new(),
            show_palette: true,
            show_inspector: true,
            inspector_large: false,
            inspector_tab: 0,
            palette_width: None,
            inspector_width: None,
            danger_heatmap: false,
            danger_dead_regions: true,
            timing: Default::default(),
            lab: Default::default(),
            population_folder: None,
            show_welcome: true,
            record_play: true,
            player_id: String::new(),
        }
    }
}

impl Settings {
    pub const MAX_RECENT: usize = 8;

    pub fn remember(&mut self, path: PathBuf) {
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(Self::MAX_RECENT);
    }
}

/// Where the deals of a sweep come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CorpusChoice {
    /// Deals met in random self-play, every fill level (as `tenten bench`).
    #[default]
    Realistic,
    /// Games with the repairing generator, every dealt holder (the paper's method).
    Gameplay,
    /// The board on screen with many seeded holders.
    Board,
    /// The deals of the file last opened (a batch, or one deal).
    File,
}

impl CorpusChoice {
    pub const ALL: [CorpusChoice; 4] = [Self::Realistic, Self::Gameplay, Self::Board, Self::File];

    pub fn name(self) -> &'static str {
        match self {
            Self::Realistic => "realistic (self-play deals)",
            Self::Gameplay => "gameplays (repairing generator)",
            Self::Board => "the board on screen",
            Self::File => "the opened file's deals",
        }
    }
}

/// The Lab's pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabPage {
    /// Generators, players, board, games: what a run plays.
    #[default]
    Setup,
    /// The ladder, survival, hazard, ends, frequencies, the table, the
    /// paired test and the games.
    Results,
    /// Fit a player to a playtest log; the player files.
    Players,
    /// Tune the generator toward targets.
    Tune,
}

impl LabPage {
    pub const ALL: [LabPage; 4] = [LabPage::Setup, LabPage::Results, LabPage::Players, LabPage::Tune];

    pub fn title(self) -> &'static str {
        match self {
            LabPage::Setup => "Setup",
            LabPage::Results => "Results",
            LabPage::Players => "Players",
            LabPage::Tune => "Tune",
        }
    }
}

/// The lab's settings, persisted with the session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimingSettings {
    pub corpus: CorpusChoice,
    pub deals: usize,
    pub games: usize,
    pub seed: u64,
    /// The factors to sweep, increasing.
    pub factors: Vec<f64>,
    /// The factor Table II, the distribution and the live timing are shown at.
    pub selected: f64,
}

impl Default for TimingSettings {
    fn default() -> Self {
        Self {
            corpus: CorpusChoice::Realistic,
            deals: 2_000,
            games: 5,
            seed: 2019,
            factors: DEFAULT_SWEEP.to_vec(),
            selected: 6.0,
        }
    }
}

/// The board size the lab plays on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabSize {
    /// The size of the board on screen.
    #[default]
    OnScreen,
    Fixed(BoardSize),
}

/// What the Lab's Tune view aims for, persisted with the session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TuneSettings {
    pub player: String,
    /// The median rounds to reach.
    pub median_rounds: f64,
    /// At most this share of losses unfair; `None`: no such target.
    pub unfair_share: Option<f64>,
    pub games: usize,
    pub holdout: usize,
    pub budget_seconds: f64,
    /// The strength of the penalty on leaving the base's mix (0: none).
    pub keep_mix: f64,
}

impl Default for TuneSettings {
    fn default() -> Self {
        Self {
            player: "casual".to_owned(),
            median_rounds: 200.0,
            unfair_share: None,
            games: 200,
            holdout: 400,
            budget_seconds: 110.0,
            keep_mix: 0.0,
        }
    }
}

/// A player beside the presets: read from a player file, or fitted to a
/// playtest log here. Kept by value, so the Lab and the Tune view can show
/// and play it; a file is read again when a run starts (runs play from
/// what they read then).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtraPlayer {
    pub player: tenten_engine::play::player::Player,
    /// The player file, if it came from one.
    pub file: Option<PathBuf>,
    /// The playtest log it was fitted to, if fitted here.
    pub fitted_to: Option<String>,
    /// Whether it plays in the Lab's runs. Kept here, not as a label in
    /// `LabSettings::players`: a label can change when another file of the
    /// same name is added or removed.
    #[serde(default)]
    pub plays: bool,
}

impl ExtraPlayer {
    /// Its parameters in words, as the Lab shows them.
    pub fn describe(&self) -> String {
        let p = &self.player;
        let look = match p.lookahead {
            tenten_engine::play::player::Lookahead::Piece => "one piece ahead",
            tenten_engine::play::player::Lookahead::Holder => "the whole holder ahead",
        };
        let from = match (&self.file, &self.fitted_to) {
            (Some(f), _) => format!("from {}", f.display()),
            (None, Some(log)) => format!("fitted to {log}, not saved"),
            (None, None) => String::new(),
        };
        format!(
            "criteria {}, {look}, temperature {}, slip {}; {from}. A model of a player, not a measured person.",
            p.evaluation, p.temperature, p.slip
        )
    }
}

/// The lab's settings, persisted with the session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LabSettings {
    pub generators: Vec<String>,
    /// Generator files compared beside the built-in generators.
    pub files: Vec<std::path::PathBuf>,
    /// Whether the generator being edited (the Generator tab's) plays too.
    pub edited: bool,
    /// Which bots and presets play: rows of the skill ladder (the players
    /// from files and fits say so themselves, `ExtraPlayer::plays`).
    pub players: Vec<String>,
    /// Players beside the presets: player files added, and fits made here.
    pub extra_players: Vec<ExtraPlayer>,
    /// The player whose games the plots and tables below the ladder show;
    /// empty: the run's first.
    pub detail: String,
    pub weights: CoelhoWeights,
    pub size: LabSize,
    pub holder_size: usize,
    pub games: usize,
    pub max_rounds: u32,
    pub seed: u64,
    /// The two generators the paired test compares.
    pub compare: (String, String),
    /// The page shown.
    pub page: LabPage,
    /// Rounds on a log scale in the survival and hazard plots; `None`:
    /// when the games span more than a decade.
    pub log_rounds: Option<bool>,
    pub tune: TuneSettings,
}

impl Default for LabSettings {
    fn default() -> Self {
        Self {
            generators: dealers::NAMES.iter().map(|s| s.to_string()).collect(),
            files: Vec::new(),
            edited: true,
            players: vec!["novice".to_owned(), "casual".to_owned()],
            extra_players: Vec::new(),
            detail: String::new(),
            weights: CoelhoWeights::BEST,
            size: LabSize::OnScreen,
            holder_size: 3,
            games: 500,
            max_rounds: 10_000,
            seed: 1,
            compare: ("repair".to_owned(), "random".to_owned()),
            page: LabPage::Setup,
            log_rounds: None,
            tune: TuneSettings::default(),
        }
    }
}
