//! The AND-OR tree tab: a debugger for the paper's search. Step through the
//! events forward and back, see each one explained in Fig. 4's terms, watch
//! unfitBlock fill in, and browse the tree (only visible rows are drawn).

use egui::{Color32, Key, KeyboardShortcut, Modifiers, RichText, Ui};

use tenten_engine::io::export;
use tenten_engine::search::explain::Context;
use tenten_engine::search::tree::{NodeId, Status, Tree};

use super::Tab;
use crate::app::shell::command::Command;
use crate::app::shell::debugger::{DealKey, ExploreJob, Session};
use crate::app::shell::live::Live;
use crate::app::shell::state::State;
use crate::app::widgets::fields;
use crate::app::widgets::paint;
use tenten_engine::search::trace::MAX_TRACE_EVENTS;

const ROW_HEIGHT: f32 = 18.0;
/// The exhaustive mode's node budget range (placements).
pub const MIN_BUDGET: u64 = 1_000;
pub const MAX_BUDGET: u64 = 1_000_000_000;

pub struct TreeTab {
    session: Option<Session>,
    job: Option<ExploreJob>,
    budget: u64,
    /// Why the typed budget was changed, until it is edited again.
    budget_note: Option<String>,
    /// Cancel was pressed for the running exploration.
    cancelling: bool,
    export_level: u8,
    /// Children drawn per node in an export; the rest fold into "+ N more".
    export_children: usize,
    show_on_board: bool,
    scroll_to_cursor: bool,
    error: Option<String>,
}

impl Default for TreeTab {
    fn default() -> Self {
        Self {
            session: None,
            job: None,
            budget: 2_000_000,
            budget_note: None,
            cancelling: false,
            export_level: 3,
            export_children: 6,
            show_on_board: true,
            scroll_to_cursor: true,
            error: None,
        }
    }
}

/// The debugger's keys, shown in its tooltips.
fn key(k: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::NONE, k)
}
fn shift(k: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::SHIFT, k)
}

#[derive(Clone, Copy)]
enum Step {
    Restart,
    Back,
    Into,
    Over,
    Out,
    NextFailure,
    Run,
}

impl Step {
    const ALL: [Step; 7] = [
        Step::Restart,
        Step::Back,
        Step::Into,
        Step::Over,
        Step::Out,
        Step::NextFailure,
        Step::Run,
    ];

    fn shortcut(self) -> KeyboardShortcut {
        match self {
            Step::Restart => shift(Key::F5),
            Step::Back => key(Key::F9),
            Step::Into => key(Key::F11),
            Step::Over => key(Key::F10),
            Step::Out => shift(Key::F11),
            Step::NextFailure => key(Key::F8),
            Step::Run => key(Key::F5),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Step::Restart => "Restart",
            Step::Back => "Back",
            Step::Into => "Step",
            Step::Over => "Over",
            Step::Out => "Out",
            Step::NextFailure => "Next failure",
            Step::Run => "Run",
        }
    }

    fn tip(self) -> &'static str {
        match self {
            Step::Restart => "Back to the start",
            Step::Back => "Step back to the previous event",
            Step::Into => "Step into: the next event",
            Step::Over => "Step over: finish the current subtree",
            Step::Out => "Step out: finish the parent's subtree",
            Step::NextFailure => "Run to the next failure (or breakpoint)",
            Step::Run => "Run to the solution or the end (or a breakpoint)",
        }
    }

    fn apply(self, s: &mut Session) {
        match self {
            Step::Restart => s.restart(),
            Step::Back => s.step_back(),
            Step::Into => s.step_into(),
            Step::Over => s.step_over(),
            Step::Out => s.step_out(),
            Step::NextFailure => s.run_to_failure(),
            Step::Run => s.run_to_end(),
        }
    }
}

fn status_color(status: Status) -> Color32 {
    match status {
        Status::Solved => paint::OK,
        Status::Failed => paint::BAD,
        Status::Pruned => Color32::GRAY,
        Status::InProgress => paint::HIGHLIGHT,
        Status::Unexplored => Color32::from_gray(120),
    }
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Solved => "solved",
        Status::Failed => "failed",
        Status::Pruned => "pruned",
        Status::InProgress => "in progress",
        Status::Unexplored => "unexplored",
    }
}

impl TreeTab {
    fn sync(&mut self, state: &State, live: &Live, ui: &Ui) {
        if let Some(job) = &mut self.job {
            if let Some(polled) = job.poll() {
                match polled {
                    Ok(session) => self.session = Some(session),
                    Err(()) => self.error = Some("the exploration stopped unexpectedly".to_owned()),
                }
                self.job = None;
                self.cancelling = false;
                self.scroll_to_cursor = true;
                // The progress bar was drawn last frame: draw the result now.
                ui.ctx().request_repaint();
            } else {
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(100));
            }
        }
        // The deal to trace: the replayed attempt's holder, else the live one.
        let live_holder;
        let holder = match &live.replay {
            Some(h) => h,
            None => {
                live_holder = state.doc.holder();
                &live_holder
            }
        };
        if holder.is_empty() {
            self.session = None;
            return;
        }
        // Compared in place each frame; the key is only built for a new trace.
        let doc = &state.doc;
        let is = |k: &DealKey| {
            k.holder == *holder
                && k.board == doc.board.bits()
                && k.size == doc.board.size()
                && k.set == doc.set
        };
        let current = self.session.as_ref().is_some_and(|s| is(&s.key));
        let exploring = self.job.as_ref().is_some_and(|j| is(&j.key));
        if !current && !exploring {
            if let Some(job) = self.job.take() {
                job.cancel();
            }
            let key = DealKey {
                set: doc.set.clone(),
                size: doc.board.size(),
                board: doc.board.bits(),
                holder: holder.clone(),
            };
            self.session = Some(Session::trace(key));
            self.scroll_to_cursor = true;
        }
    }

    fn keys(&mut self, ui: &Ui) {
        let Some(s) = &mut self.session else { return };
        // Shifted keys first: a plain F11 would also match Shift+F11.
        let mut steps = Step::ALL;
        steps.sort_by_key(|s| !s.shortcut().modifiers.shift);
        for step in steps {
            if ui.input_mut(|i| i.consume_shortcut(&step.shortcut())) {
                s.playing = false;
                step.apply(s);
                self.scroll_to_cursor = true;
            }
        }
    }
}

impl Tab for TreeTab {
    fn title(&self) -> &'static str {
        "AND-OR tree"
    }

    fn ui(&mut self, ui: &mut Ui, state: &State, live: &Live, cmds: &mut Vec<Command>) {
        self.sync(state, live, ui);
        self.keys(ui);
        let set = &state.doc.set;
        let Some(s) = &mut self.session else {
            ui.label("The holder is empty: deal, or pick pieces, to search.");
            return;
        };
        // Playback.
        if s.playing {
            let dt = f64::from(ui.input(|i| i.stable_dt)).min(0.1);
            s.play(dt);
            self.scroll_to_cursor = true;
            ui.ctx().request_repaint();
        }

        let holder = s.key.holder.clone();
        let mode = if s.explored.is_some() {
            "exhaustive"
        } else {
            "fast path, stops at the first success"
        };
        ui.label(format!(
            "Search of {} ({mode}): {} placements; {} events, {} tree nodes",
            set.ids(&holder),
            fields::grouped(s.validation.nodes),
            fields::grouped(s.events.len() as u64),
            fields::grouped(s.tree.len() as u64)
        ))
        .on_hover_text(
            "Placements: blocks put on the board (what the banner, the Deal tab and the CLI \
             count). Tree nodes: every node of the AND-OR tree drawn below, the root, the \
             orders and the failed leaves included.",
        );
        if live.replay.is_some() {
            ui.horizontal(|ui| {
                ui.colored_label(paint::WARN, "Replaying a holder from the changer's history");
                if ui.small_button("Back to the live deal").clicked() {
                    cmds.push(Command::Replay(None));
                }
            });
        }

        // Stepping controls.
        ui.horizontal_wrapped(|ui| {
            for step in Step::ALL {
                let tip = format!("{} ({})", step.tip(), ui.ctx().format_shortcut(&step.shortcut()));
                if ui.button(step.label()).on_hover_text(tip).clicked() {
                    s.playing = false;
                    step.apply(s);
                    self.scroll_to_cursor = true;
                }
            }
            let play = if s.playing { "Pause" } else { "Play" };
            if ui
                .button(play)
                .on_hover_text("Play the search at the speed set")
                .clicked()
            {
                s.playing = !s.playing;
            }
        });
        // On its own line: a slider and its number are two allocations, so a
        // wrapped row could split them and overflow the panel.
        ui.horizontal(|ui| {
            let label = ui.label("speed");
            ui.add(
                egui::Slider::new(&mut s.speed, 1.0..=200.0)
                    .logarithmic(true)
                    .suffix(" events/s"),
            )
            .labelled_by(label.id);
        });
        ui.weak(format!("event {} of {}", s.cursor + 1, s.events.len()));

        // The current step in the paper's terms.
        let ctx = Context {
            set,
            holder: &holder,
            events: &s.events,
            tree: &s.tree,
        };
        egui::Frame::new()
            .fill(ui.visuals().faint_bg_color)
            .inner_margin(6)
            .corner_radius(4)
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.label(RichText::new(ctx.sentence(s.cursor)).strong());
            });
        let orders = (1..=holder.len()).product::<usize>();
        let ub = s.unfit_block(state.settings.policy);
        let ub: Vec<String> = ub
            .iter()
            .map(|u| if *u == 0 { "·".to_owned() } else { u.to_string() })
            .collect();
        ui.monospace(format!(
            "unfitBlock ({}) = [{}]",
            state.settings.policy,
            ub.join(", ")
        ));

        // The board follows the cursor.
        ui.checkbox(&mut self.show_on_board, "Show the current node on the board");
        let board = self.show_on_board.then(|| s.board(&live.shapes));
        if live.debug_board != board {
            cmds.push(Command::DebugBoard(board));
        }

        ui.collapsing("Breakpoints", |ui| {
            let k = holder.len() as u8;
            egui::ComboBox::from_label("at position")
                .selected_text(s.breakpoints.depth.map_or("none".to_owned(), |d| d.to_string()))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.breakpoints.depth, None, "none");
                    for d in 1..=k {
                        ui.selectable_value(&mut s.breakpoints.depth, Some(d), d.to_string());
                    }
                });
            egui::ComboBox::from_label("piece")
                .selected_text(
                    s.breakpoints
                        .piece
                        .map_or("none".to_owned(), |p| set.piece(p).id.clone()),
                )
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.breakpoints.piece, None, "none");
                    for &p in &holder {
                        ui.selectable_value(&mut s.breakpoints.piece, Some(p), set.piece(p).id.clone());
                    }
                });
            egui::ComboBox::from_label("first failure in order")
                .selected_text(
                    s.breakpoints
                        .first_failure_in
                        .map_or("none".to_owned(), |j| j.to_string()),
                )
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.breakpoints.first_failure_in, None, "none");
                    for j in 0..orders as u8 {
                        ui.selectable_value(&mut s.breakpoints.first_failure_in, Some(j), j.to_string());
                    }
                });
        });

        ui.collapsing("Exhaustive mode", |ui| {
            ui.weak("Explore the whole tree, not stopping at the first success.");
            ui.horizontal(|ui| {
                let label = ui.label("budget (placements)");
                let r = ui
                    .add(egui::DragValue::new(&mut self.budget).speed(10_000))
                    .labelled_by(label.id)
                    .on_hover_text(format!(
                        "{} to {} placements. The outline and stepping keep the first {} \
                         events (about 300 MB at most); past that the run goes on counting \
                         placements, solutions, failures and branching without the trace.",
                        fields::grouped(MIN_BUDGET),
                        fields::grouped(MAX_BUDGET),
                        fields::grouped(MAX_TRACE_EVENTS as u64),
                    ));
                if r.changed() {
                    self.budget_note =
                        fields::clamp_with_note(&mut self.budget, MIN_BUDGET..=MAX_BUDGET, "The budget");
                }
            });
            if let Some(note) = &self.budget_note {
                ui.colored_label(paint::WARN, note);
            }
            match &self.job {
                Some(job) => {
                    let done = job.done();
                    ui.add(
                        egui::ProgressBar::new(job.fraction())
                            .show_percentage()
                            .text(format!(
                                "{} of {} placements",
                                fields::grouped(done),
                                fields::grouped(job.budget)
                            )),
                    );
                    if self.cancelling {
                        ui.weak("Cancelling…");
                    } else if ui.button("Cancel").clicked() {
                        job.cancel();
                        self.cancelling = true;
                    }
                }
                None => {
                    if ui.button("Explore the whole tree").clicked() {
                        match ExploreJob::spawn(s.key.clone(), self.budget, ui.ctx()) {
                            Ok(job) => {
                                self.job = Some(job);
                                self.cancelling = false;
                            }
                            Err(e) => self.error = Some(format!("could not start: {e}")),
                        }
                    }
                }
            }
            if let Some(e) = &s.explored {
                ui.label(format!(
                    "{} solutions; {} placements; {}",
                    fields::grouped(e.solutions),
                    fields::grouped(s.validation.nodes),
                    e.ending()
                ));
                let k = holder.len();
                let join = |v: &[u64]| {
                    v.iter()
                        .map(|&n| fields::grouped(n))
                        .collect::<Vec<_>>()
                        .join(" / ")
                };
                ui.label(format!(
                    "failures at positions 1..{k}: {}",
                    join(&e.fails_by_depth)
                ));
                ui.label(format!("failures by order: {}", join(&e.fails_by_order)));
                let bf: Vec<String> = e.branching.iter().map(|b| format!("{b:.1}")).collect();
                ui.label(format!(
                    "branching factor at positions 1..{k}: {}",
                    bf.join(" / ")
                ));
                if e.events_dropped > 0 {
                    ui.colored_label(
                        paint::WARN,
                        format!(
                            "The outline and stepping show the first {} events; {} more were \
                             counted above but not kept, to bound memory.",
                            fields::grouped(s.events.len() as u64),
                            fields::grouped(e.events_dropped)
                        ),
                    );
                }
            }
            if let Some(err) = &self.error {
                ui.colored_label(paint::BAD, err);
            }
        });

        ui.collapsing("Export", |ui| {
            ui.horizontal(|ui| {
                let label = ui.label("down to level");
                ui.add(egui::DragValue::new(&mut self.export_level).range(1..=5))
                    .labelled_by(label.id)
                    .on_hover_text("1: the orders; 2: their first placements; and so on");
            });
            ui.horizontal(|ui| {
                let label = ui.label("children per node");
                ui.add(egui::DragValue::new(&mut self.export_children).range(1..=1000))
                    .labelled_by(label.id)
                    .on_hover_text(
                        "The rest of a node's children are folded into one \"+ N more\" box, \
                         so the drawing stays readable",
                    );
            });
            let extent = export::Extent {
                max_level: self.export_level,
                max_children: self.export_children,
            };
            ui.horizontal(|ui| {
                if ui.button("Save DOT…").clicked() {
                    let text = export::dot(&s.tree, &s.events, set, &holder, extent);
                    cmds.push(Command::SaveText {
                        title: "Save tree as Graphviz DOT",
                        name: "tree.dot",
                        text,
                    });
                }
                if ui.button("Save SVG…").clicked() {
                    let text = export::svg(&s.tree, &s.events, set, &holder, extent);
                    cmds.push(Command::SaveText {
                        title: "Save tree as SVG",
                        name: "tree.svg",
                        text,
                    });
                }
            });
        });

        // Breadcrumb of the current path.
        let node = s.node();
        let path = s.tree.path(node);
        ui.separator();
        ui.horizontal_wrapped(|ui| {
            for (i, &n) in path.iter().enumerate() {
                if i > 0 {
                    ui.weak(">");
                }
                let text = export::node_label(&s.tree, n, &s.events, set, &holder);
                if ui.link(text).clicked() && n != Tree::ROOT {
                    s.go(s.tree.node(n).event as usize);
                }
            }
        });
        ui.separator();
        self.outline(ui, set, &holder);
    }
}

impl TreeTab {
    /// The lazily expanded outline; only the rows in view are laid out.
    fn outline(
        &mut self,
        ui: &mut Ui,
        set: &tenten_engine::model::pieces::PieceSet,
        holder: &[tenten_engine::model::pieces::PieceIdx],
    ) {
        let Some(s) = &mut self.session else { return };
        let rows = visible_rows(&s.tree, &s.expanded);
        let current = s.node();
        let mut area = egui::ScrollArea::vertical()
            .id_salt("tree outline")
            .auto_shrink([false, false])
            .max_height(ui.available_height().max(200.0));
        if self.scroll_to_cursor {
            if let Some(i) = rows.iter().position(|&(n, _)| n == current) {
                let spacing = ui.spacing().item_spacing.y;
                area = area.vertical_scroll_offset(((i as f32) - 4.0).max(0.0) * (ROW_HEIGHT + spacing));
            }
            self.scroll_to_cursor = false;
        }
        let mut toggle = None;
        let mut goto = None;
        area.show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
            for &(n, level) in &rows[range] {
                let node = s.tree.node(n);
                let status = s.tree.status(n, &s.events, s.cursor);
                ui.horizontal(|ui| {
                    ui.set_height(ROW_HEIGHT);
                    ui.add_space(f32::from(level) * 14.0);
                    if node.children > 0 {
                        let open = s.expanded.contains(&n);
                        if ui
                            .small_button(if open { "-" } else { "+" })
                            .on_hover_text(if open { "Collapse" } else { "Expand" })
                            .clicked()
                        {
                            toggle = Some(n);
                        }
                    } else {
                        ui.add_space(18.0);
                    }
                    let (dot, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
                    ui.painter()
                        .circle_filled(dot.center(), 4.0, status_color(status));
                    let label = export::node_label(&s.tree, n, &s.events, set, holder);
                    // Counts as of the event shown: "so far" until the
                    // node's subtree is finished, then the whole search's.
                    let (tried, fails) = s.tree.counts_at(n, &s.events, s.cursor);
                    let done = node.close as usize <= s.cursor;
                    let counts = if tried > 0 {
                        // Failures noted below, by position 1..=k.
                        let by_depth: Vec<String> =
                            fails[..holder.len()].iter().map(u32::to_string).collect();
                        let by_depth = by_depth.join("/");
                        if done {
                            format!("  [{tried} tried; failures {by_depth}]")
                        } else {
                            format!("  [so far: {tried} tried, {by_depth}]")
                        }
                    } else {
                        String::new()
                    };
                    let text = RichText::new(format!("{label}{counts}")).color(status_color(status));
                    let hover = if tried > 0 {
                        format!(
                            "{}. {} tried: the children searched {}. Failures a/b/c: the dead ends noted \
                             in this subtree where the block at position 1, 2, 3 of the order had no \
                             place; they are what F counts (equation 4).",
                            status_name(status),
                            tried,
                            if done {
                                "in the whole search"
                            } else {
                                "up to this event"
                            }
                        )
                    } else {
                        status_name(status).to_owned()
                    };
                    let r = ui.selectable_label(n == current, text).on_hover_text(hover);
                    if r.clicked() && n != Tree::ROOT {
                        goto = Some(node.event as usize);
                    }
                });
            }
        });
        if let Some(n) = toggle
            && !s.expanded.remove(&n)
        {
            s.expanded.insert(n);
        }
        if let Some(e) = goto {
            s.go(e);
        }
    }
}

/// The outline's rows: every node whose ancestors are all expanded, depth first.
pub fn visible_rows(tree: &Tree, expanded: &std::collections::HashSet<NodeId>) -> Vec<(NodeId, u8)> {
    let mut rows = Vec::new();
    let mut stack = vec![Tree::ROOT];
    while let Some(n) = stack.pop() {
        rows.push((n, tree.node(n).level));
        if expanded.contains(&n) {
            let children: Vec<NodeId> = tree.children(n).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    rows
}
