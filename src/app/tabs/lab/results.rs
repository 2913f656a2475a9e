//! The Lab tab's figures for one player: the headline a designer comes for,
//! the table with confidence intervals and the paired test of two
//! generators. Each takes that player's results, one per generator.

use egui::{RichText, Ui};

use tenten_engine::model::pieces::PieceSet;
use tenten_engine::study::runner::{self, Summary};

use crate::app::jobs::lab::GeneratorResults;
use crate::app::plots::lab::{self as lab_plots, BAND_NAMES, generator_color};
use crate::app::plots::timing::fmt_time;
use crate::app::shell::command::Command;
use crate::app::shell::state::State;

pub(super) fn find<'a>(results: &'a [GeneratorResults], name: &str) -> Option<&'a GeneratorResults> {
    results.iter().find(|r| r.name == name && !r.games.is_empty())
}

/// The two answers a designer comes for: how much longer games last with
/// repair than with random (paired), how many random losses were unfair,
/// and how far repair skews the pieces on crowded boards.
pub(super) fn headline(ui: &mut Ui, state: &State, lab: &[GeneratorResults], set: &PieceSet) {
    let (a, b) = &state.settings.lab.compare;
    if let (Some(x), Some(y)) = (find(lab, a), find(lab, b))
        && x.name != y.name
        && let Some(cap) = state_cap(lab)
        && let Some(pr) = runner::paired(&x.games, &y.games, cap)
    {
        let t = pr.test;
        let more = if t.mean_difference >= 0.0 {
            "longer"
        } else {
            "shorter"
        };
        ui.label(
            RichText::new(format!(
                "With {}, games last {:.1} rounds {more} than with {} (95 % CI {:.1} to {:.1}; paired over {} seeds, {}){}.",
                x.name,
                t.mean_difference.abs(),
                y.name,
                t.mean_difference - t.ci95,
                t.mean_difference + t.ci95,
                t.n,
                p_text(t.p_value),
                censored_note(&pr)
            ))
            .strong(),
        );
    }
    for r in lab {
        let s = &r.summary;
        let losses = s.unfair + s.stuck + s.dead;
        if let Some((p, lo, hi)) = s.unfair_share
            && r.name == "random"
        {
            ui.label(format!(
                "{} of {}'s {losses} losses with random were unfair ({:.0} %, 95 % CI {:.0}-{:.0} %): the dealt holder could not be placed at all.",
                s.unfair,
                r.player,
                p * 100.0,
                lo * 100.0,
                hi * 100.0
            ));
        }
    }
    if let Some(r) = find(lab, "repair") {
        let share = lab_plots::small_share(r, set);
        // The most crowded band with enough pieces for a share to mean
        // something.
        let dealt = r.summary.dealt_by_band;
        let band = (1..BAND_NAMES.len()).rev().find(|&b| dealt[b] >= MIN_BAND_PIECES);
        if let Some(b) = band
            && let Some(v) = share[b]
        {
            let baseline = find(lab, "random")
                .and_then(|x| lab_plots::small_share(x, set)[b])
                .map_or(String::new(), |x| format!(", random {x:.0} %"));
            ui.label(format!(
                "On boards {} full, repair dealt pieces of 1-3 cells {:.0} % of the time (the weights say {:.0} %{baseline}; {} pieces dealt there, KL {:.4} nats).",
                BAND_NAMES[b],
                v,
                lab_plots::small_target(set),
                dealt[b],
                r.summary.kl_by_band[b]
            ));
        }
    }
}

/// Pieces a fill band needs before the headline quotes its share.
const MIN_BAND_PIECES: u64 = 300;

pub(super) fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

/// Metrics down, generators across (fits the inspector's width).
pub(super) fn table(ui: &mut Ui, results: &[GeneratorResults]) {
    type Cell = fn(&Summary) -> String;
    let rows: [(&str, &str, Cell); 20] = [
        ("games", "", |s| s.games.to_string()),
        (
            "rounds, mean",
            "with the half-width of its 95 % interval (Student's t); with censored games the mean is a lower bound",
            |s| {
                let mean = match s.rounds_ci95 {
                    Some(h) => format!("{:.1} ± {:.1}", s.rounds_mean, h),
                    None if s.games == 1 => format!("{:.1} (1 game, no interval)", s.rounds_mean),
                    None => "no games".to_owned(),
                };
                if s.censored > 0 {
                    format!("≥ {mean}")
                } else {
                    mean
                }
            },
        ),
        (
            "rounds, median",
            "Kaplan-Meier (games cut off by the round cap count as alive), with its 95 % interval \
             where the curve's band crosses one half; \"beyond\" where it never does",
            |s| match s.km.median {
                Some(m) => format!("{m} [{}]", median_ci(s)),
                None if s.games == 0 => "no games".to_owned(),
                None => format!("beyond {} (half outlived the cap)", s.km.last),
            },
        ),
        (
            "rounds, quartiles",
            "of the rounds played; with censored games, lower bounds",
            |s| format!("{:.0} to {:.0}", s.rounds_q1, s.rounds_q3),
        ),
        (
            "rounds, restricted mean",
            "the area under the Kaplan-Meier curve up to the longest game: the mean with every game cut there, with its 95 % interval",
            |s| match (s.km.rmean, s.km.rmean_ci) {
                (Some(m), Some((lo, hi))) => format!("{m:.1} [{lo:.1} to {hi:.1}]"),
                (Some(m), None) => format!("{m:.1} (1 game, no interval)"),
                _ => "no games".to_owned(),
            },
        ),
        ("censored", "games that reached the round cap", |s| {
            s.censored.to_string()
        }),
        ("score, mean", "", |s| format!("{:.0}", s.score_mean)),
        ("ended unfair", "on an unsolvable holder", |s| {
            s.unfair.to_string()
        }),
        (
            "ended stuck",
            "the holder was solvable, the strategy failed",
            |s| s.stuck.to_string(),
        ),
        ("ended dead", "no holder of that size fitted", |s| {
            s.dead.to_string()
        }),
        (
            "unfair share",
            "of the losses, with its Wilson 95 % interval",
            |s| share_text(s.unfair_share),
        ),
        (
            "stuck share",
            "of the losses: the holder fitted, the player failed",
            |s| share_text(s.stuck_share),
        ),
        (
            "unsolvable dealt",
            "holders first drawn unsolvable (fixed or not)",
            |s| s.unsolvable_dealt.to_string(),
        ),
        ("repairs", "extra validations: changer attempts or redraws", |s| {
            s.repairs.to_string()
        }),
        ("validate p50", "time to validate a holder as drawn", |s| {
            fmt_time(s.validate_us.quantile(0.5))
        }),
        ("validate p99", "", |s| fmt_time(s.validate_us.quantile(0.99))),
        (
            "change p99",
            "time to deal a holder drawn unsolvable, over the deals the changer ran on (none for a generator that never changes a holder)",
            |s| {
                if changer_ran(s) {
                    format!(
                        "{} on {}",
                        fmt_time(s.change_us.quantile(0.99)),
                        crate::app::widgets::fields::count(s.change_us.n, "deal", "deals")
                    )
                } else {
                    "none ran".to_owned()
                }
            },
        ),
        ("change max", "", |s| {
            if changer_ran(s) {
                fmt_time(s.change_us.max_us)
            } else {
                "none ran".to_owned()
            }
        }),
        (
            "chi-square",
            "pieces dealt against the weights (degrees of freedom: pieces - 1)",
            |s| format!("{:.1}", s.chi2),
        ),
        ("KL divergence", "nats", |s| format!("{:.5}", s.kl)),
    ];
    crate::app::widgets::scroll::sideways(ui, "lab_table", |ui| {
        egui::Grid::new("lab_table_grid")
            .striped(true)
            .spacing([10.0, 2.0])
            .show(ui, |ui| {
                ui.label("");
                for r in results {
                    ui.label(RichText::new(&r.name).color(generator_color(&r.name)).strong());
                }
                ui.end_row();
                for (name, help, cell) in rows {
                    let l = ui.label(RichText::new(name).weak());
                    if !help.is_empty() {
                        l.on_hover_text(help);
                    }
                    for r in results {
                        ui.monospace(cell(&r.summary));
                    }
                    ui.end_row();
                }
            });
    });
}

/// The paired test between two chosen generators.
pub(super) fn paired(ui: &mut Ui, state: &State, lab: &[GeneratorResults], cmds: &mut Vec<Command>) {
    if lab.len() < 2 {
        return;
    }
    // Two generators that ran: the chosen pair if both did, else the
    // second against the first ("repair against random").
    let stored = &state.settings.lab.compare;
    let ran = |name: &str| find(lab, name).is_some();
    let mut compare = if ran(&stored.0) && ran(&stored.1) && stored.0 != stored.1 {
        stored.clone()
    } else {
        (lab[1].name.clone(), lab[0].name.clone())
    };
    let shown = compare.clone();
    ui.horizontal(|ui| {
        for (salt, text, pick) in [
            ("lab_cmp_a", "Paired test:", &mut compare.0),
            ("lab_cmp_b", "against", &mut compare.1),
        ] {
            let label = ui.label(text);
            egui::ComboBox::from_id_salt(salt)
                .selected_text(pick.clone())
                .width(70.0)
                .show_ui(ui, |ui| {
                    for r in lab {
                        ui.selectable_value(pick, r.name.clone(), r.name.clone());
                    }
                })
                .response
                .labelled_by(label.id);
        }
    });
    if compare != shown {
        let mut s = state.settings.lab.clone();
        s.compare = compare.clone();
        cmds.push(Command::SetLab(s));
    }
    match (find(lab, &compare.0), find(lab, &compare.1)) {
        (Some(a), Some(b)) if a.name != b.name => {
            match state_cap(lab).and_then(|cap| runner::paired(&a.games, &b.games, cap)) {
                Some(pr) => {
                    let t = pr.test;
                    let verdict = if t.p_value < 0.05 {
                        "they really differ"
                    } else {
                        "no difference shown at the 5 % level"
                    };
                    ui.label(format!(
                    "{} minus {}: {:+.2} rounds a game over {} seeds (95 % CI {:+.2} to {:+.2}), {}: {verdict}{}.",
                    a.name,
                    b.name,
                    t.mean_difference + 0.0,
                    t.n,
                    t.mean_difference - t.ci95 + 0.0,
                    t.mean_difference + t.ci95 + 0.0,
                    p_text(t.p_value),
                    censored_note(&pr)
                ))
                .on_hover_text(
                    "Paired t test (Student's t) on the same seeds, two-sided; \
                     the differences are per game, game g of both generators on seed S + g.",
                );
                }
                None => {
                    ui.weak(format!(
                        "Too few games for a paired test: it needs at least {} seeds played by both.",
                        tenten_engine::stats::inference::MIN_PAIRED
                    ));
                }
            }
        }
        _ => {
            ui.weak("Pick two different generators that were run.");
        }
    }
}

/// The round cap of the games shown (the longest a game can be).
fn state_cap(lab: &[GeneratorResults]) -> Option<u32> {
    lab.iter().map(|r| r.summary.km.last).max()
}

/// Said plainly when games reached the cap: the test is of rounds cut
/// there, the difference of restricted means.
fn censored_note(pr: &runner::PairedRounds) -> String {
    if pr.censored == 0 {
        String::new()
    } else {
        format!(
            "; {} of the pairs reached the round cap of {}, so this compares rounds cut at the cap (restricted means)",
            pr.censored, pr.cap
        )
    }
}

/// "120-141", or "120-beyond 2000" when the band never reaches one half.
pub(super) fn median_ci(s: &Summary) -> String {
    let end = |v: Option<u32>| v.map_or(format!("beyond {}", s.km.last), |v| v.to_string());
    format!("{}-{}", end(s.km.median_ci.0), end(s.km.median_ci.1))
}

/// "31 % [23-41]", or "no losses".
pub(super) fn share_text(x: Option<(f64, f64, f64)>) -> String {
    match x {
        Some((p, lo, hi)) => format!("{:.0} % [{:.0}-{:.0}]", p * 100.0, lo * 100.0, hi * 100.0),
        None => "no losses".to_owned(),
    }
}

/// Whether the changer (or a redraw) ran at all: `random` and `bag` never
/// change a holder, though an unsolvable holder is still timed as dealt.
fn changer_ran(s: &Summary) -> bool {
    s.repairs > 0 && s.change_us.n > 0
}
