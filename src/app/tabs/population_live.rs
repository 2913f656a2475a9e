//! The Population view's playtest with people: serve the page from here
//! (its join link and a QR code of it), follow the fit's folder live
//! (testers arriving, games and moves counting), refit on demand or every
//! N new games, and check the forecast against these testers.

use std::path::PathBuf;

use egui::{RichText, Ui};

use crate::app::jobs::job::Background as _;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;

pub struct LiveSection {
    generator: String,
    open: bool,
    every: u64,
}

impl Default for LiveSection {
    fn default() -> Self {
        Self {
            generator: "block-blast-like".to_owned(),
            open: false,
            every: 20,
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

impl LiveSection {
    pub fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, folder: &str, cmds: &mut Vec<Command>) {
        let pt = &live.playtest;
        ui.label(RichText::new("Playtest with people").strong());
        let folder_path = PathBuf::from(folder.trim());
        // The server.
        ui.horizontal_wrapped(|ui| {
            if pt.server.is_some() {
                if ui.button("Stop serving").clicked() {
                    cmds.push(Command::StopPlaytest);
                }
                match &pt.link {
                    Some(link) => {
                        ui.label("Testers open:");
                        ui.add(egui::Label::new(RichText::new(link).monospace()).selectable(true));
                        if ui.small_button("Copy").clicked() {
                            ui.ctx().copy_text(link.clone());
                        }
                    }
                    None => {
                        ui.spinner();
                        ui.label("starting…");
                    }
                }
            } else {
                if ui
                    .button("Serve")
                    .on_hover_text(
                        "Serve the playtest page, dealt by this generator on the board's size and holder; \
                         every tester's log goes into the folder above",
                    )
                    .clicked()
                {
                    cmds.push(Command::ServePlaytest {
                        generator: self.generator.clone(),
                        folder: folder_path.clone(),
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
                        "Listen on every interface (port 8080); every request then needs the link's token",
                    );
            }
        });
        if let Some(link) = &pt.link {
            qr(ui, link, 3.0);
        }
        // Following the folder.
        let following = pt.folder.as_ref() == Some(&folder_path);
        ui.horizontal_wrapped(|ui| {
            let mut on = following;
            if ui
                .checkbox(&mut on, "Follow this folder live")
                .on_hover_text("Read the folder every 2 s: testers, sessions, games, moves")
                .changed()
            {
                cmds.push(Command::FollowPlaytest(on.then(|| folder_path.clone())));
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
}
