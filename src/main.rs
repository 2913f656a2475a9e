//! `tenten` with no arguments opens the workbench; with arguments it runs the CLI.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.is_empty() {
        #[cfg(feature = "gui")]
        if let Err(e) = tenten::app::run(None) {
            eprintln!("error: could not open the window: {e}");
            eprintln!("(the headless commands still work: tenten --help)");
            std::process::exit(1);
        }
        #[cfg(not(feature = "gui"))]
        {
            eprintln!("this tenten is the headless build (no window): see tenten --help");
            std::process::exit(2);
        }
    } else {
        std::process::exit(tenten::cli::main(args));
    }
}
