fn main() {
    std::process::exit(tenten::cli::main(std::env::args_os().skip(1).collect()));
}
