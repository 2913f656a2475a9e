//! The Population view's Serve: by default into a new folder in the data
//! folder's `playtests/` (never the shipped demo cohort), resumed when
//! served again; a folder another server holds is refused, naming the
//! holder in full beside Serve; a folder under `presets/`, or no folder at
//! all without a data folder, is refused before anything listens; a link
//! only this machine can open says so and has no QR code. Every server
//! started is stopped and its thread seen to end.

mod common;

use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use tenten::app::App;
use tenten::app::jobs::job::Background as _;
use tenten::app::jobs::playtest_live::Reach;
use tenten::app::shell::state::State;

use common::ui::{harness_sized, jobs_end, preset, press, step_until};

const QR: &str = "QR code of the join link";
const THIS_MACHINE_ONLY: &str =
    "This link works on this machine only (turn on \"reachable by other devices\" for phones).";

/// A fresh, empty folder for `tag`.
fn fresh(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tenten-ui-serve-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The window at `size` on the Population view, with `data` as its data
/// folder (`None`, as in most tests: nothing kept).
fn population(data: Option<PathBuf>, size: [f32; 2]) -> Harness<'static, App> {
    let mut app = App::new(State::default());
    app.set_data_dir(data);
    let mut h = harness_sized(app, size);
    h.get_by_label("Population").click();
    h.run();
    h
}

/// Types `folder` into "Serve into:".
fn serve_into(h: &mut Harness<'static, App>, folder: &Path) {
    h.get_by_label("Serve into:").scroll_to_me();
    h.run();
    h.get_by_label("Serve into:").focus();
    h.run();
    h.get_by_label("Serve into:")
        .type_text(&folder.display().to_string());
    h.run();
}

/// Clicks Serve, then steps until the server listens or says why not
/// (a spinner shows meanwhile, so no settling `run`).
fn serve(h: &mut Harness<'static, App>) {
    h.get_by_label("Serve").scroll_to_me();
    h.run();
    h.get_by_label("Serve").click();
    step_until(h, "the server's link or its refusal", |a| {
        let p = &a.live.playtest;
        p.link.is_some() || (!p.running() && p.server_error.is_some())
    });
}

/// Stops the server from its button; its thread ends.
fn stop(h: &mut Harness<'static, App>) {
    let watches = h.state().live.playtest.watches();
    assert_eq!(watches.len(), 1, "a server runs");
    press(h, "Stop serving");
    jobs_end(h, watches);
    step_until(h, "the server's job to end", |a| !a.live.playtest.running());
    assert!(h.state().live.playtest.link.is_none());
    assert!(h.query_by_label("Stop serving").is_none());
    assert!(h.query_by_label("Serve").is_some());
}

#[test]
fn serve_by_default_makes_a_new_folder_in_the_data_folder_and_resumes_it() {
    let data = fresh("default");
    let home = data.join("playtests");
    let mut h = population(Some(data.clone()), [1400.0, 880.0]);
    h.get_by_label(&format!(
        "Serve writes into a new folder in {} (named after the generator and the time).",
        home.display()
    ));
    serve(&mut h);
    let pt = &h.state().live.playtest;
    assert_eq!(pt.server_error, None);
    let served = pt.served.clone().expect("a served folder");
    assert_eq!(served.parent(), Some(home.as_path()), "{}", served.display());
    let name = served.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("block-blast-like-20"), "{name}");
    assert!(
        served.join("playtest.json").is_file(),
        "the served folder holds playtest.json"
    );
    assert!(
        !preset("cohorts/demo/random/playtest.json").exists(),
        "the demo cohort is untouched"
    );
    assert!(
        !preset("cohorts/demo/random/playtest.lock").exists(),
        "the demo cohort is untouched"
    );
    // "Follow this folder live" follows the served folder, from the start.
    assert_eq!(pt.folder.as_ref(), Some(&served));
    assert!(h.query_by_label("(the served folder)").is_some());
    h.get_by_label(&served.display().to_string());
    stop(&mut h);
    // Served again into the same folder (the last one served), it resumes:
    // the lock was let go with the server, the identity matches.
    press(&mut h, "the last one served");
    h.get_by_label("This folder holds a playtest: Serve resumes it.");
    serve(&mut h);
    let pt = &h.state().live.playtest;
    assert_eq!(pt.server_error, None);
    assert_eq!(pt.served.as_ref(), Some(&served));
    assert_eq!(
        std::fs::read_dir(&home).unwrap().count(),
        1,
        "no second folder was made"
    );
    stop(&mut h);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn a_folder_another_server_holds_is_refused_naming_the_holder_in_full() {
    let dir = fresh("locked");
    let held = tenten_playtest::lock::FolderLock::take(&dir, "tenten playtest serve").unwrap();
    // A narrow window: the message wraps rather than run off its edge.
    let mut h = population(None, [800.0, 600.0]);
    serve_into(&mut h, &dir);
    serve(&mut h);
    let e = h.state().live.playtest.server_error.clone().expect("a refusal");
    assert!(!h.state().live.playtest.running(), "no server runs");
    assert!(e.contains("tenten playtest serve"), "{e}");
    assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
    assert!(
        !dir.join("playtest.json").exists(),
        "the refused server wrote nothing: {e}"
    );
    assert_eq!(
        h.state().live.playtest.served,
        None,
        "a refused folder was not served"
    );
    // Shown in full beside Serve, wrapped inside the window.
    let shown = h.get_by_label(&e);
    shown.scroll_to_me();
    h.run();
    let shown = h.get_by_label(&e);
    let width = h.ctx.content_rect().width();
    assert!(
        shown.rect().max.x <= width + 0.5,
        "{:?} runs past {width}",
        shown.rect()
    );
    assert!(
        shown.rect().height() > 20.0,
        "one cut line, not wrapped: {:?}",
        shown.rect()
    );
    assert!(h.query_by_label("Serve").is_some());
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_link_for_this_machine_only_says_so_and_has_no_qr_code() {
    let data = fresh("local");
    let mut h = population(Some(data.clone()), [1400.0, 880.0]);
    serve(&mut h);
    let pt = &h.state().live.playtest;
    assert_eq!(pt.server_error, None);
    assert_eq!(pt.reach, Some(Reach::ThisMachine));
    let link = pt.link.clone().unwrap();
    assert!(link.starts_with("http://127.0.0.1:"), "{link}");
    assert!(!link.contains("?t="), "no token on the loopback: {link}");
    assert!(h.query_by_label(&link).is_some(), "the link is shown");
    assert!(h.query_by_label(THIS_MACHINE_ONLY).is_some());
    assert!(h.query_by_label(QR).is_none(), "no QR code of a 127.0.0.1 link");
    stop(&mut h);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn a_reachable_server_shows_a_qr_code_only_of_an_outward_address() {
    let data = fresh("open");
    let mut h = population(Some(data.clone()), [1400.0, 880.0]);
    press(&mut h, "reachable by other devices");
    serve(&mut h);
    let pt = &h.state().live.playtest;
    assert_eq!(pt.server_error, None);
    let link = pt.link.clone().unwrap();
    assert!(
        link.contains("/?t="),
        "a reachable link carries the token: {link}"
    );
    assert!(h.query_by_label(THIS_MACHINE_ONLY).is_none());
    match pt.reach {
        Some(Reach::Outward) => {
            assert!(!link.contains("127.0.0.1"), "{link}");
            assert!(h.query_by_label(QR).is_some(), "the QR code of {link}");
        }
        Some(Reach::NoOutward) => {
            // A machine on no network: said, and no useless QR code.
            assert!(link.contains("127.0.0.1"), "{link}");
            assert!(h.query_by_label(QR).is_none());
            h.get_by_label_contains("No outward address was found");
        }
        r => panic!("{r:?} for a reachable server"),
    }
    // The token is the folder's, kept for a restart.
    let served = h.state().live.playtest.served.clone().unwrap();
    assert!(served.join("playtest.json").is_file());
    stop(&mut h);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn without_a_data_folder_serve_asks_for_one_and_refuses_the_presets() {
    let mut h = population(None, [1400.0, 880.0]);
    h.get_by_label("There is no data folder: type the folder to serve into.");
    serve(&mut h);
    let pt = &h.state().live.playtest;
    assert!(!pt.running() && pt.served.is_none(), "nothing is served");
    let e = pt.server_error.clone().unwrap();
    assert!(e.contains("no data folder"), "{e}");
    h.get_by_label(&e);
    // The fit's folder (the shipped demo cohort) typed in is refused too.
    let cohort = preset("cohorts/demo/random");
    serve_into(&mut h, &cohort);
    serve(&mut h);
    let pt = &h.state().live.playtest;
    assert!(!pt.running() && pt.served.is_none(), "nothing is served");
    let e = pt.server_error.clone().unwrap();
    assert!(
        e.contains("presets folder") && e.contains("shipped examples"),
        "{e}"
    );
    assert!(!cohort.join("playtest.json").exists() && !cohort.join("playtest.lock").exists());
}
