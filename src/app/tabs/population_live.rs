//! The Population view's playtest with people: serve the page from here
//! (into a new folder in the data folder, or one the designer names; a
//! playtest's folder resumes it), its join link and, when other devices
//! can reach it, a QR code of it; follow the served (else the fit's)
//! folder live (testers arriving, games and moves counting), refit on
//! demand or every N new games, and check the forecast against these
//! testers.

use std::path::PathBuf;

use egui::{RichText, Ui};

use crate::app::jobs::job::Background as _;
use crate::app::jobs::playtest_live::{Reach, is_playtest};
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;

/// What the QR code is called (by a screen reader, by the tests).
pub const QR_LABEL: &str = "QR code of the join link";

/// Said under a link only this machine can open.
pub const THIS_MACHINE_ONLY: &str =
    "This link works on this machine only (turn on \"reachable by other devices\" for phones).";

pub struct LiveSection {
    generator: String,
    open: bool,
    every: u64,
    /// The folder to serve into; empty: a new one in the data folder.
    into: String,
}

impl Default for LiveSection {
    fn default() -> Self {
        Self {
            generator: "block-blast-like".to_owned(),
            open: false,
            every: 20,
            into: String::new(),
        }
    }
}

/// Paints `link` as a QR code, `px` points a module.
fn qr(ui: &mut Ui, link: &str, px: f32) {
    let Ok(code) = qrcode::QrCode::new(link.as_bytes()) else {
        ui.weak("(the link is too long for a QR code)");
        return;
    };
    let n = code.width();
    let quiet = 2;
    let side = (n + 2 * quiet) as f32 * px;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::accesskit::Role::Image, true, QR_LABEL));
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, egui::Color32::WHITE);
    for (i, c) in code.to_colors().iter().enumerate() {
        if *c == qrcode::Color::Dark {
            let (x, y) = ((i % n + quiet) as f32, (i / n + quiet) as f32);
            let min = rect.min + egui::vec2(x * px, y * px);
            painter.rect_filled(
                egui::Rect::from_min_size(min, egui::vec2(px, px)),
                0.0,
                egui::Color32::BLACK,
            );
        }
    }
    response.on_hover_text(format!("Scan to open {link}"));
}

/// A message shown in full: wrapped at the section's width, never cut.
fn wrapped(ui: &mut Ui, text: &str, color: egui::Color32) {
    ui.add(egui::Label::new(RichText::new(text).color(color)).wrap());
}

impl LiveSection {
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, folder: &str, cmds: &mut Vec<Command>) {
        let pt = &live.playtest;
        ui.label(RichText::new("Playtest with people").strong());
        if pt.server.is_some() {
            self.serving(ui, live, cmds);
        } else {
            self.not_serving(ui, state, live, cmds);
        }
        if let Some(e) = &pt.server_error {
            wrapped(ui, e, ui.visuals().error_fg_color);
        }
        // The folder followed: the one served (now or last), else the fit's.
        let folder_path = pt.served.clone().unwrap_or_else(|| PathBuf::from(folder.trim()));
        // Following the folder.
        let following = pt.folder.as_ref() == Some(&folder_path);
        ui.horizontal_wrapped(|ui| {
            let mut on = following;
            if ui
                .checkbox(&mut on, "Follow this folder live")
                .on_hover_text(format!(
                    "Read {} every 2 s: testers, sessions, games, moves",
                    folder_path.display()
                ))
                .changed()
            {
                cmds.push(Command::FollowPlaytest(on.then(|| folder_path.clone())));
            }
            if pt.served.as_ref() == Some(&folder_path) {
                ui.weak("(the served folder)");
            }
            let mut refit = pt.refit_every.is_some();
            if ui.checkbox(&mut refit, "refit every").changed() {
                cmds.push(Command::SetRefitEvery(refit.then_some(self.every)));
            }
            let r = ui.add(
                egui::DragValue::new(&mut self.every)
                    .range(1..=10_000)
                    .suffix(" games"),
            );
            if r.changed() && refit {
                cmds.push(Command::SetRefitEvery(Some(self.every)));
            }
        });
        if !following {
            return;
        }
        match &pt.status {
            None => {
                ui.weak("reading…");
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().warn_fg_color, e);
            }
            Some(Ok(s)) => {
                let t = s.total();
                let ago = pt.read_at.map_or(0, |t| t.elapsed().as_secs());
                ui.label(format!(
                    "{} testers ({} playing) · {} sessions · {} games · {} moves · {} unfair losses · read {ago} s ago",
                    t.testers,
                    t.open,
                    t.sessions,
                    t.games,
                    tenten_engine::text::grouped(t.moves),
                    t.unfair
                ));
                if s.arms.len() > 1 || s.arms.iter().any(|(_, a)| a.testers > 0) {
                    egui::Grid::new("playtest-arms").striped(true).show(ui, |ui| {
                        for h in [
                            "generator",
                            "testers",
                            "playing",
                            "games",
                            "moves",
                            "unfair losses",
                        ] {
                            ui.label(RichText::new(h).small().strong());
                        }
                        ui.end_row();
                        for (name, a) in &s.arms {
                            ui.label(name);
                            ui.label(a.testers.to_string());
                            ui.label(a.open.to_string());
                            ui.label(a.games.to_string());
                            ui.label(tenten_engine::text::grouped(a.moves));
                            ui.label(a.unfair.to_string());
                            ui.end_row();
                        }
                    });
                }
                let since = pt.fitted_at.map(|f| t.games.saturating_sub(f));
                ui.horizontal_wrapped(|ui| {
                    if ui
                        .add_enabled(t.games > 0 && !live.population_fit.running(), egui::Button::new("Refit now"))
                        .clicked()
                    {
                        cmds.push(Command::FitPopulation(folder_path.clone()));
                    }
                    if let Some(n) = since {
                        ui.weak(format!("{n} new games since the last fit"));
                    }
                    if ui
                        .add_enabled(t.games > 0, egui::Button::new("Check the forecast against these testers"))
                        .on_hover_text("Forecast the Lab's generators for the fitted population and check it against this folder")
                        .clicked()
                    {
                        cmds.push(Command::ForecastPopulation {
                            players: 2_000,
                            fitted: true,
                            check: Some(folder_path.clone()),
                        });
                    }
                });
            }
        }
    }

    /// A server running: Stop, the folder, the link and who can open it.
    fn serving(&mut self, ui: &mut Ui, live: &Live, cmds: &mut Vec<Command>) {
        let pt = &live.playtest;
        ui.horizontal_wrapped(|ui| {
            if ui.button("Stop serving").clicked() {
                cmds.push(Command::StopPlaytest);
            }
            if let Some(f) = &pt.served {
                ui.label("into");
                ui.add(egui::Label::new(RichText::new(f.display().to_string()).monospace()).selectable(true));
            }
            if let Some(r) = &pt.resumed {
                ui.weak(format!("({r})"));
            }
        });
        let Some(link) = &pt.link else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("starting…");
            });
            return;
        };
        ui.horizontal_wrapped(|ui| {
            ui.label("Testers open:");
            ui.add(egui::Label::new(RichText::new(link).monospace()).selectable(true));
            if ui.small_button("Copy").clicked() {
                ui.ctx().copy_text(link.clone());
            }
        });
        match pt.reach {
            Some(Reach::Outward) => {
                ui.weak("Phones and other computers on this network open it, or scan:");
                qr(ui, link, 3.0);
            }
            Some(Reach::NoOutward) => wrapped(
                ui,
                "No outward address was found (is this machine on a network?): no phone can open a \
                 127.0.0.1 link, so no QR code is shown. The server listens on every interface: give \
                 testers this machine's address with the link's port and ?t= token.",
                ui.visuals().warn_fg_color,
            ),
            Some(Reach::ThisMachine) | None => {
                ui.label(THIS_MACHINE_ONLY);
            }
        }
    }

    /// No server: Serve, its generator, whether other devices reach it,
    /// and the folder it writes into.
    fn not_serving(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let pt = &live.playtest;
        let into = PathBuf::from(self.into.trim());
        let chosen = !self.into.trim().is_empty();
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Serve")
                .on_hover_text(
                    "Serve the playtest page, dealt by this generator on the board's size and holder; \
                     every tester's log goes into the folder below (a new folder in the data folder \
                     when it is empty)",
                )
                .clicked()
            {
                cmds.push(Command::ServePlaytest {
                    generator: self.generator.clone(),
                    folder: chosen.then(|| into.clone()),
                    open: self.open,
                });
            }
            let l = ui.label("dealt by");
            let mut names: Vec<String> = tenten_engine::play::dealing::names()
                .into_iter()
                .map(str::to_owned)
                .collect();
            for g in &state.settings.lab.generators {
                if !names.contains(g) {
                    names.push(g.clone());
                }
            }
            egui::ComboBox::from_id_salt("playtest-generator")
                .selected_text(self.generator.as_str())
                .show_ui(ui, |ui| {
                    for n in names {
                        ui.selectable_value(&mut self.generator, n.clone(), n);
                    }
                })
                .response
                .labelled_by(l.id);
            ui.checkbox(&mut self.open, "reachable by other devices")
                .on_hover_text(
                    "Listen on every interface (port 8080, or the next free one) so phones on this network \
                 can join; every request then needs the folder's token (kept in the folder: links \
                 survive a restart)",
                );
        });
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Serve into:");
            ui.add(
                egui::TextEdit::singleline(&mut self.into)
                    .hint_text("a new folder")
                    .desired_width(260.0_f32.min(ui.available_width())),
            )
            .labelled_by(l.id)
            .on_hover_text(
                "Empty: a new folder in the data folder's playtests/. A folder holding a playtest \
                 (playtest.json) resumes it: its testers' links keep working",
            );
            if let Some(last) = &pt.served
                && into != *last
                && ui
                    .small_button("the last one served")
                    .on_hover_text(format!("Serve {} again (it resumes)", last.display()))
                    .clicked()
            {
                self.into = last.display().to_string();
            }
        });
        let note = if chosen {
            if is_playtest(&into) {
                "This folder holds a playtest: Serve resumes it.".to_owned()
            } else {
                "Serve starts a new playtest in this folder.".to_owned()
            }
        } else {
            match &pt.home {
                Some(home) => format!(
                    "Serve writes into a new folder in {} (named after the generator and the time).",
                    home.display()
                ),
                None => "There is no data folder: type the folder to serve into.".to_owned(),
            }
        };
        ui.add(egui::Label::new(RichText::new(note).small().weak()).wrap());
    }
}
