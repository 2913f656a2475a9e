//! The Deals tab: the open batch as a list, one row per deal (its index, a
//! small drawing of the board, the holder, the verdict, the placements and
//! the fast-path time), judged in the background, filtered and sorted. A
//! click shows the deal; Ctrl+PageDown and Ctrl+PageUp walk the list.

use egui::{Color32, CornerRadius, Rect, RichText, Sense, Ui, Vec2, vec2};

use tenten_engine::io::batch::{Filter, SortKey, Verdict};
use tenten_engine::io::formats::Deal;
use tenten_engine::search::changer::Outcome;

use super::Tab;
use crate::app::shell::batch::DocBatch;
use crate::app::shell::command::Command;
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::fields::{count, grouped};
use crate::app::widgets::paint;

const ROW: f32 = 44.0;

pub struct DealsTab;

impl Tab for DealsTab {
    fn title(&self) -> &'static str {
        "Deals"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        let Some(b) = &state.doc.batch else {
            ui.label(RichText::new("No batch is open").strong());
            ui.weak(
                "Open a batch of deals (File, Open: a RON list of deals, such as \
                 presets/deals/playtest-1000.ron or the output of tenten deal) to list, \
                 judge, filter and walk its deals here. Add to batch (Ctrl+B) starts a new \
                 batch with the deal on screen.",
            );
            if ui.button("Add the deal on screen to a new batch").clicked() {
                cmds.push(Command::AddToBatch);
            }
            return;
        };
        header(ui, state, live, b, cmds);
        ui.separator();
        list(ui, state, live, b, cmds);
    }
}

/// Fixing the deal on screen without leaving the list: Repair, then Apply
/// the holder the changer found (the Deal tab shows the whole history).
fn repair_row(ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
    let Some(verdict) = &live.verdict else { return };
    let repaired = live
        .repair
        .as_ref()
        .filter(|r| r.result.outcome == Outcome::Repaired)
        .map(|r| {
            (
                r.input.set.ids(&r.result.holder),
                state.doc.holder() == r.result.holder,
            )
        });
    if verdict.validation.solvable && repaired.is_none() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        if !verdict.validation.solvable {
            ui.colored_label(paint::BAD, "The deal on screen is unsolvable");
            let label = if live.repair_running {
                "Repairing…"
            } else {
                "Repair this deal"
            };
            if ui
                .add_enabled(!live.repair_running, egui::Button::new(label))
                .on_hover_text("Let F pick the block to replace (Ctrl+R); the Deal tab shows each change")
                .clicked()
            {
                cmds.push(Command::Repair);
            }
        }
        match repaired {
            Some((ids, false)) => {
                ui.label(format!("repaired holder {ids}"));
                if ui
                    .button("Apply the repaired holder")
                    .on_hover_text("Put it in the slots: the deal is then modified in the batch")
                    .clicked()
                {
                    cmds.push(Command::ApplyRepair);
                }
            }
            Some((ids, true)) => {
                ui.colored_label(paint::OK, format!("Repaired and applied: {ids}"));
            }
            None => {}
        }
    });
}

fn verdict_color(v: Verdict) -> Color32 {
    match v {
        Verdict::Solvable => paint::OK,
        Verdict::Unsolvable => paint::BAD,
        Verdict::Dead => Color32::from_rgb(0x9b, 0x3f, 0xd0),
        Verdict::Empty => Color32::GRAY,
    }
}

fn header(ui: &mut Ui, state: &State, live: &Live, b: &DocBatch, cmds: &mut Vec<Command>) {
    let d = &live.deals;
    let current = state.doc.current_deal();
    let modified = b.modified_count(&current);
    let name = b
        .source
        .path
        .file_name()
        .map_or("a new batch".to_owned(), |n| n.to_string_lossy().into_owned());
    ui.label(RichText::new(format!("{name}: {}", count(b.len() as u64, "deal", "deals"))).strong());
    if modified > 0 {
        ui.colored_label(
            paint::WARN,
            format!("{modified} modified or added, not saved (Ctrl+S saves the whole batch)"),
        );
    }
    if !b.source.bad.is_empty() {
        egui::CollapsingHeader::new(
            RichText::new(format!(
                "{} could not be read",
                count(b.source.bad.len() as u64, "deal", "deals")
            ))
            .color(paint::BAD),
        )
        .id_salt("bad_deals")
        .show(ui, |ui| {
            for message in &b.source.bad {
                ui.label(RichText::new(message).small());
            }
        });
    }
    match d.progress() {
        Some((done, total, eta)) => {
            ui.horizontal(|ui| {
                let eta = eta.map_or(String::new(), |s| format!(", about {s:.0} s left"));
                ui.add(
                    egui::ProgressBar::new(done as f32 / total.max(1) as f32)
                        .desired_width(ui.available_width() - 80.0)
                        .text(format!(
                            "judged {} of {}{eta}",
                            grouped(done as u64),
                            grouped(total as u64)
                        )),
                );
                if ui.button("Cancel").clicked() {
                    cmds.push(Command::CancelJudging);
                }
            });
        }
        None if d.cancelled => {
            ui.colored_label(paint::WARN, "Judging cancelled: some rows have no verdict yet");
        }
        None => {}
    }
    // Counts, each a filter.
    let counts = d.counts();
    let view = |filter, sort, descending| Command::SetDealsView {
        filter,
        sort,
        descending,
    };
    ui.horizontal_wrapped(|ui| {
        ui.label("Show");
        let all = format!("all {}", b.len());
        if ui.selectable_label(d.filter == Filter::All, all).clicked() {
            cmds.push(view(Filter::All, d.sort, d.descending));
        }
        for v in Verdict::ALL {
            let n = counts.get(&v).copied().unwrap_or(0);
            if n == 0 && v == Verdict::Empty {
                continue;
            }
            let text = RichText::new(format!("{} {n}", v.name())).color(verdict_color(v));
            if ui.selectable_label(d.filter == Filter::Only(v), text).clicked() {
                cmds.push(view(Filter::Only(v), d.sort, d.descending));
            }
        }
        let text = format!("modified {modified}");
        if ui.selectable_label(d.filter == Filter::Modified, text).clicked() {
            cmds.push(view(Filter::Modified, d.sort, d.descending));
        }
    });
    ui.horizontal_wrapped(|ui| {
        let mut sort = d.sort;
        egui::ComboBox::new("deals_sort", "order")
            .selected_text(sort.name())
            .show_ui(ui, |ui| {
                for k in SortKey::ALL {
                    ui.selectable_value(&mut sort, k, k.name());
                }
            });
        let mut descending = d.descending;
        ui.checkbox(&mut descending, "largest first");
        if (sort, descending) != (d.sort, d.descending) {
            cmds.push(view(d.filter, sort, descending));
        }
    });
    // The three lists a designer asks for first, one click each.
    ui.horizontal_wrapped(|ui| {
        ui.label("Jump to");
        if ui.small_button("unsolvable").clicked() {
            cmds.push(view(Filter::Only(Verdict::Unsolvable), SortKey::Index, false));
        }
        if ui.small_button("slowest").clicked() {
            cmds.push(view(Filter::All, SortKey::Time, true));
        }
        if ui.small_button("largest search").clicked() {
            cmds.push(view(Filter::All, SortKey::Placements, true));
        }
    });
    ui.horizontal_wrapped(|ui| {
        let ctx = ui.ctx().clone();
        let key = |c: Command| c.shortcut().map_or(String::new(), |s| ctx.format_shortcut(&s));
        if ui
            .button("Previous")
            .on_hover_text(key(Command::PrevDeal))
            .clicked()
        {
            cmds.push(Command::PrevDeal);
        }
        if ui.button("Next").on_hover_text(key(Command::NextDeal)).clicked() {
            cmds.push(Command::NextDeal);
        }
        if ui
            .button("Add to batch")
            .on_hover_text(format!(
                "Append the deal on screen ({})",
                key(Command::AddToBatch)
            ))
            .clicked()
        {
            cmds.push(Command::AddToBatch);
        }
    });
    repair_row(ui, state, live, cmds);
    ui.horizontal_wrapped(|ui| {
        if ui.button(Command::SaveFilteredAs.label()).clicked() {
            cmds.push(Command::SaveFilteredAs);
        }
        if ui.button(Command::ExportBatchCsv.label()).clicked() {
            cmds.push(Command::ExportBatchCsv);
        }
    });
    ui.weak(format!(
        "{} shown. Placements: blocks put on the board by the fast path (tree nodes that \
         place a block; failed leaves are not counted). Time: one fast-path validation.",
        grouped(d.rows().len() as u64)
    ));
}

fn list(ui: &mut Ui, state: &State, live: &Live, b: &DocBatch, cmds: &mut Vec<Command>) {
    let rows = live.deals.rows();
    let current = state.doc.current_deal();
    // Only the rows in view are laid out: a batch of 100,000 scrolls smoothly.
    egui::ScrollArea::vertical()
        .id_salt("deal_list")
        .auto_shrink([false, false])
        .show_rows(ui, ROW, rows.len(), |ui, range| {
            for &pos in &rows[range] {
                let deal = if pos == b.pos {
                    Some(&current)
                } else {
                    b.stored(pos)
                };
                let Some(deal) = deal else { continue };
                row(ui, state, live, b, pos, deal, b.is_modified(pos, &current), cmds);
            }
        });
}

#[allow(clippy::too_many_arguments)]
fn row(
    ui: &mut Ui,
    state: &State,
    live: &Live,
    b: &DocBatch,
    pos: usize,
    deal: &Deal,
    modified: bool,
    cmds: &mut Vec<Command>,
) {
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(vec2(width, ROW), Sense::click());
    let index = b.file_index(pos);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, format!("deal {index}")));
    if response.clicked() {
        cmds.push(Command::SelectDeal(pos));
    }
    let painter = ui.painter_at(rect);
    let selected = pos == b.pos;
    let visuals = ui.style().interact_selectable(&response, selected);
    if selected || response.hovered() {
        painter.rect_filled(rect, CornerRadius::same(3), visuals.weak_bg_fill);
    }
    let text = ui.visuals().text_color();
    let font = egui::FontId::proportional(13.0);
    let small = egui::FontId::proportional(11.0);
    // Index (and a mark when edited).
    let mark = if modified { "*" } else { "" };
    painter.text(
        rect.left_center() + vec2(4.0, 0.0),
        egui::Align2::LEFT_CENTER,
        format!("{index}{mark}"),
        font.clone(),
        if modified { paint::WARN } else { text },
    );
    // The board, small.
    let board_rect = Rect::from_min_size(rect.min + vec2(46.0, 3.0), Vec2::splat(ROW - 6.0));
    mini_board(&painter, board_rect, deal, state);
    // The holder's pieces.
    let mut x = board_rect.max.x + 6.0;
    for &p in &deal.holder {
        let piece = state.doc.set.piece(p);
        let r = Rect::from_min_size(egui::pos2(x, rect.min.y + 6.0), Vec2::splat(ROW - 12.0));
        painter.rect_filled(r, CornerRadius::same(3), ui.visuals().faint_bg_color);
        paint::draw_piece(&painter, r.shrink(3.0), piece, paint::piece_color(piece, p), ROW);
        x += ROW - 10.0;
    }
    // Verdict, placements, time.
    let right = rect.right_center() - vec2(4.0, 0.0);
    match live.deals.judged_at(pos) {
        Some(j) => {
            painter.text(
                right - vec2(0.0, 8.0),
                egui::Align2::RIGHT_CENTER,
                j.verdict.name(),
                font,
                verdict_color(j.verdict),
            );
            painter.text(
                right + vec2(0.0, 9.0),
                egui::Align2::RIGHT_CENTER,
                format!("{} placements · {:.1} µs", grouped(j.placements), j.micros),
                small,
                ui.visuals().weak_text_color(),
            );
        }
        None => {
            painter.text(
                right,
                egui::Align2::RIGHT_CENTER,
                "…",
                font,
                ui.visuals().weak_text_color(),
            );
        }
    }
}

fn mini_board(painter: &egui::Painter, rect: Rect, deal: &Deal, state: &State) {
    let size = deal.board.size();
    let cell = (rect.width() / size.w() as f32).min(rect.height() / size.h() as f32);
    painter.rect_filled(rect, CornerRadius::ZERO, paint::EMPTY);
    for y in 0..size.h() {
        for x in 0..size.w() {
            let c = deal.board.get(x, y);
            if c.is_filled() {
                let min = rect.min + vec2(x as f32, y as f32) * cell;
                painter.rect_filled(
                    Rect::from_min_size(min, Vec2::splat(cell)),
                    CornerRadius::ZERO,
                    paint::cell_color(c, &state.doc.set.pieces),
                );
            }
        }
    }
}
