use clap::Parser;

fn main() {
    let cli = ownerlint::cli::Cli::parse();
    std::process::exit(ownerlint::cli::run(cli));
}
