//! The Generator tab's adaptive rules (`play::adaptive`): each rule its
//! conditions on the player and the game, its tilt toward small or large
//! pieces and its check, in order (the first rule whose conditions all hold
//! is in force). Edited in place; the tab applies the edit as one command,
//! checked as the file format checks it.

use egui::{RichText, Ui};

use tenten_engine::play::adaptive::{Adaptive, MAX_RULES, MAX_TILT, Rule, When};
use tenten_engine::play::generator_file::Check;
use tenten_engine::search::heuristic::Policy;

/// Every condition a rule may hold, as first added.
const KINDS: [When; 11] = [
    When::FirstGame,
    When::AfterUnfair,
    When::UnfairInRow(2),
    When::LastShorter(0.7),
    When::LastLonger(1.5),
    When::SessionGames(3),
    When::Round(20),
    When::RoundPastTypical(1.0),
    When::FillAbove(0.5),
    When::DryRounds(5),
    When::DangerAbove(0.3),
];

/// A condition's name, as the file writes it.
fn name(w: &When) -> &'static str {
    match w {
        When::FirstGame => "first game",
        When::AfterUnfair => "after an unfair loss",
        When::UnfairInRow(_) => "unfair losses in a row, at least",
        When::LastShorter(_) => "last game shorter than typical, times",
        When::LastLonger(_) => "last game longer than typical, times",
        When::SessionGames(_) => "games this session, at least",
        When::Round(_) => "round, at least",
        When::RoundPastTypical(_) => "round past typical, times",
        When::FillAbove(_) => "board fill above",
        When::DryRounds(_) => "rounds without a clear, at least",
        When::DangerAbove(_) => "danger above",
    }
}

/// The condition's value, edited.
fn value(ui: &mut Ui, w: &mut When, dragged: &mut impl FnMut(&egui::Response)) {
    let r = match w {
        When::FirstGame | When::AfterUnfair => return,
        When::UnfairInRow(n) | When::SessionGames(n) | When::Round(n) | When::DryRounds(n) => ui.add(
            egui::DragValue::new(n)
                .range(1..=1000)
                .clamp_existing_to_range(false),
        ),
        When::LastShorter(r) | When::LastLonger(r) | When::RoundPastTypical(r) => ui.add(
            egui::DragValue::new(r)
                .range(0.05..=100.0)
                .clamp_existing_to_range(false)
                .speed(0.01)
                .fixed_decimals(2),
        ),
        When::FillAbove(f) | When::DangerAbove(f) => ui.add(
            egui::DragValue::new(f)
                .range(0.0..=1.0)
                .clamp_existing_to_range(false)
                .speed(0.01)
                .fixed_decimals(2),
        ),
    };
    dragged(&r);
}

/// The check a rule puts in force, or the file's.
fn check_combo(ui: &mut Ui, i: usize, check: &mut Option<Check>, label_id: egui::Id) {
    let label = |c: &Option<Check>| match c {
        None => "the file's",
        Some(Check::None) => "none",
        Some(Check::Reject { .. }) => "reject and redraw",
        Some(Check::Repair { .. }) => "repair (the paper)",
        Some(Check::Bag) => "bag",
    };
    egui::ComboBox::from_id_salt(("adaptive_check", i))
        .selected_text(label(check))
        .show_ui(ui, |ui| {
            for c in [
                None,
                Some(Check::None),
                Some(Check::Reject { redraws: 10_000 }),
                Some(Check::Repair {
                    policy: Policy::Deepest,
                    redraws: 64,
                }),
            ] {
                let kind = |c: &Option<Check>| c.as_ref().map(std::mem::discriminant);
                let chosen = kind(check) == kind(&c);
                if ui.selectable_label(chosen, label(&c)).clicked() && !chosen {
                    *check = c;
                }
            }
        })
        .response
        .labelled_by(label_id);
}

/// One rule's conditions, tilt and check; what to do with the rule.
enum Action {
    Up,
    Down,
    Remove,
}

fn rule_ui(
    ui: &mut Ui,
    i: usize,
    rule: &mut Rule,
    dragged: &mut impl FnMut(&egui::Response),
) -> Option<Action> {
    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(format!("Rule {}", i + 1)).strong());
        if ui.small_button("up").on_hover_text("Try it earlier").clicked() {
            action = Some(Action::Up);
        }
        if ui.small_button("down").on_hover_text("Try it later").clicked() {
            action = Some(Action::Down);
        }
        if ui
            .small_button("remove")
            .on_hover_text("Remove the rule")
            .clicked()
        {
            action = Some(Action::Remove);
        }
    });
    let mut gone = None;
    ui.horizontal_wrapped(|ui| {
        let when = ui.label("when");
        if rule.when.is_empty() {
            ui.weak("always");
        }
        for (c, w) in rule.when.iter_mut().enumerate() {
            ui.label(name(w));
            value(ui, w, dragged);
            if ui
                .small_button("remove")
                .on_hover_text("Remove the condition")
                .clicked()
            {
                gone = Some(c);
            }
        }
        egui::ComboBox::from_id_salt(("adaptive_add", i))
            .selected_text("and…")
            .show_ui(ui, |ui| {
                for k in KINDS {
                    if ui.selectable_label(false, name(&k)).clicked() {
                        rule.when.push(k);
                    }
                }
            })
            .response
            .labelled_by(when.id);
    });
    if let Some(c) = gone {
        rule.when.remove(c);
    }
    ui.horizontal_wrapped(|ui| {
        let label = ui.label("tilt");
        let r = ui
            .add(egui::Slider::new(&mut rule.tilt, -MAX_TILT..=MAX_TILT).fixed_decimals(2))
            .labelled_by(label.id)
            .on_hover_text("Each weight times e^(tilt·z), z the piece's size standardised: below 0 toward small pieces, above 0 toward large ones");
        dragged(&r);
        let label = ui.label("check");
        check_combo(ui, i, &mut rule.check, label.id);
    });
    action
}

/// The section: on or off, and its rules.
pub(super) fn adaptive_section(
    ui: &mut Ui,
    adaptive: &mut Option<Adaptive>,
    dragged: &mut impl FnMut(&egui::Response),
) {
    ui.label(RichText::new("Adaptive rules").strong())
        .on_hover_text("Rules that read the player (their games this session and how the last ended) and the game; the first whose conditions all hold is in force for a deal. Sessions (forecasts, cohorts, playtests, the library's dealer) carry the player's games; the Lab plays every game as a session's first.");
    let mut on = adaptive.is_some();
    if ui.checkbox(&mut on, "read the player").changed() {
        *adaptive = on.then(|| Adaptive {
            rules: vec![Rule {
                when: vec![When::AfterUnfair],
                tilt: -1.0,
                check: None,
            }],
        });
    }
    let Some(a) = adaptive else {
        return;
    };
    let mut act = None;
    for (i, rule) in a.rules.iter_mut().enumerate() {
        ui.separator();
        if let Some(x) = rule_ui(ui, i, rule, dragged) {
            act = Some((i, x));
        }
    }
    match act {
        Some((i, Action::Up)) if i > 0 => a.rules.swap(i, i - 1),
        Some((i, Action::Down)) if i + 1 < a.rules.len() => a.rules.swap(i, i + 1),
        Some((i, Action::Remove)) => {
            a.rules.remove(i);
        }
        _ => {}
    }
    if a.rules.len() < MAX_RULES && ui.button("Add rule").clicked() {
        a.rules.push(Rule {
            when: Vec::new(),
            tilt: 0.0,
            check: None,
        });
    }
}
