//! `tokctl`: parses the command line, runs the command, and turns the result into one line on
//! stderr and a documented exit code.

mod cli;
mod commands;
mod config;
mod error;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("tokctl: cannot start: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.code == error::exit::OK => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tokctl: {err}");
            ExitCode::from(err.code)
        }
    }
}
