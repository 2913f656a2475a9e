//! `tenten` with no arguments opens the workbench; with arguments it runs the CLI.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.is_empty() {
        if let Err(e) = tenten::app::run(None) {
            eprintln!("error: could not open the window: {e}");
            eprintln!("(the headless commands still work: tenten --help)");
            std::process::exit(1);
        }
    } else {
        std::process::exit(tenten::cli::main(args));
    }
}
