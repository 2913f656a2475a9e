//! A forecast in shards: shard I of N plays the players i with i mod N = I
//! (each player's session depends on the seed and its index alone), and
//! writes them with everything that decided them, by value: the population,
//! the pieces, board, holder, cap, seed, players and every generator's
//! rules. `tenten merge` checks that the shards are of one forecast and
//! complete, and prints exactly the lines one process would have printed.

use serde::{Deserialize, Serialize};

use crate::fits::population::file::Population;
use crate::fits::population::forecast::{Forecast, Outcome, outcome, summarize};
use crate::fits::population::session::{Played, Session};
use crate::fits::population::uncertainty::Uncertainty;
use crate::model::board::BoardSize;
use crate::model::pieces::{PieceSet, PieceSetDef};
use crate::play::dealing::{Dealing, DealingDef};
use crate::play::game::End;
use crate::search::changer::ChangeOptions;
use crate::study::plan::{ENGINE, Labelled, RepairDef};
use crate::study::results::Shard;

/// Everything that decides a forecast's players.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForecastPlan {
    pub engine: String,
    pub population: Population,
    pub pieces: PieceSetDef,
    pub board: BoardSize,
    pub holder: usize,
    pub max_rounds: u32,
    pub players: usize,
    pub seed: u64,
    /// The options of the built-in `repair` generator.
    pub repair: RepairDef,
    pub generators: Vec<Labelled<DealingDef>>,
}

impl ForecastPlan {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        population: &Population,
        set: &PieceSet,
        board: BoardSize,
        holder: usize,
        max_rounds: u32,
        players: usize,
        seed: u64,
        options: &ChangeOptions,
        generators: &[(String, Dealing)],
    ) -> Self {
        Self {
            engine: ENGINE.to_owned(),
            population: population.clone(),
            pieces: set.to_def(),
            board,
            holder,
            max_rounds,
            players,
            seed,
            repair: RepairDef::of(options),
            generators: generators
                .iter()
                .map(|(label, d)| Labelled {
                    label: label.clone(),
                    rules: d.to_def(),
                })
                .collect(),
        }
    }
}

/// One player's session as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRecord {
    pub player: usize,
    pub skill: f64,
    pub games: Vec<(u32, End)>,
    pub quit: bool,
}

/// A shard's file: the plan, which shard, and each generator's players.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForecastShard {
    pub forecast: ForecastPlan,
    pub shard: (usize, usize),
    pub players: Vec<Vec<PlayerRecord>>,
}

impl ForecastShard {
    pub fn new(plan: ForecastPlan, shard: Shard, outcomes: &[Vec<Outcome>]) -> Self {
        Self {
            forecast: plan,
            shard: (shard.index, shard.of),
            players: outcomes
                .iter()
                .map(|g| {
                    g.iter()
                        .map(|o| PlayerRecord {
                            player: o.player,
                            skill: o.skill,
                            games: o.session.games.iter().map(|p| (p.rounds, p.end)).collect(),
                            quit: o.session.quit,
                        })
                        .collect()
                })
                .collect(),
        }
    }

    pub fn to_ron(&self) -> String {
        let mut text =
            ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new().indentor(" ".to_owned()))
                .unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a shard; `None` when the text is no forecast shard (a
    /// simulation's result file, say).
    pub fn parse(text: &str) -> Option<Result<Self, String>> {
        if !text.trim_start().starts_with("(") || !text.contains("forecast:") {
            return None;
        }
        Some(
            crate::io::ron_scan::ron_options()
                .from_str(text)
                .map_err(|e| e.to_string()),
        )
    }
}

/// Merges the shards of one forecast: each generator's forecast line as one
/// process prints it, or why they cannot merge (naming the file).
pub fn merge(shards: &[(String, ForecastShard)]) -> Result<Vec<Forecast>, String> {
    let (first_name, first) = shards.first().ok_or("no shards given")?;
    if first.forecast.engine != ENGINE {
        return Err(format!(
            "{first_name} was played by engine behaviour {}, this is engine behaviour {ENGINE}; rerun it",
            first.forecast.engine
        ));
    }
    let of = first.shard.1;
    let mut seen = vec![false; of];
    for (name, s) in shards {
        if s.forecast != first.forecast {
            return Err(format!(
                "{name} is of another forecast than {first_name} (its plan differs)"
            ));
        }
        if s.shard.1 != of || s.shard.0 >= of {
            return Err(format!(
                "{name} is shard {}/{}, not one of {of}",
                s.shard.0, s.shard.1
            ));
        }
        if std::mem::replace(&mut seen[s.shard.0], true) {
            return Err(format!("{name} is shard {}/{of} again", s.shard.0));
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(format!("shard {missing}/{of} is missing"));
    }
    let plan = &first.forecast;
    let predictive = plan.population.predictive();
    let uncertainty = Uncertainty::of(&plan.population);
    plan.generators
        .iter()
        .enumerate()
        .map(|(g, label)| {
            let mut outcomes: Vec<Outcome> = shards
                .iter()
                .flat_map(|(_, s)| s.players.get(g).cloned().unwrap_or_default())
                .map(|r| {
                    let session = Session {
                        games: r
                            .games
                            .iter()
                            .map(|&(rounds, end)| Played { rounds, end })
                            .collect(),
                        quit: r.quit,
                    };
                    outcome(
                        &plan.population,
                        &predictive,
                        uncertainty.as_ref(),
                        plan.seed,
                        r.player,
                        session,
                    )
                })
                .collect();
            outcomes.sort_by_key(|o| o.player);
            let complete =
                outcomes.len() == plan.players && outcomes.iter().enumerate().all(|(i, o)| o.player == i);
            if !complete {
                return Err(format!(
                    "generator {}: the shards hold {} players, not players 0 to {}",
                    label.label,
                    outcomes.len(),
                    plan.players.saturating_sub(1)
                ));
            }
            Ok(summarize(
                &label.label,
                &outcomes.iter().collect::<Vec<_>>(),
                uncertainty.as_ref(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fits::population::file::by_name;
    use crate::search::heuristic::Policy;

    /// The repair options decide a `repair` forecast's deals: they are part
    /// of the stored plan, so shards made with other options do not merge.
    #[test]
    fn a_forecast_plan_holds_the_repair_options_by_value() {
        let set = PieceSet::classic();
        let demo = by_name("demo").unwrap();
        let repair = vec![("repair".to_owned(), Dealing::by_name("repair", &set).unwrap())];
        let plan = |options: &ChangeOptions| {
            ForecastPlan::new(&demo, &set, BoardSize::CLASSIC, 3, 100, 4, 1, options, &repair)
        };
        let default = plan(&ChangeOptions::default());
        let other = ChangeOptions {
            policy: Policy::Last,
            ..ChangeOptions::default()
        };
        assert_eq!(default.repair, RepairDef::of(&ChangeOptions::default()));
        assert_ne!(plan(&other), default);
        let text = ForecastShard::new(default.clone(), Shard::ALL, &[]).to_ron();
        assert!(text.contains("repair: (") && text.contains("redraws:"), "{text}");
        let a = ForecastShard::new(default, Shard { index: 0, of: 2 }, &[]);
        let b = ForecastShard::new(plan(&other), Shard { index: 1, of: 2 }, &[]);
        let e = merge(&[("a".to_owned(), a), ("b".to_owned(), b)]).unwrap_err();
        assert!(e.contains("another forecast"), "{e}");
    }
}
