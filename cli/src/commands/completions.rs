//! `tokctl completions SHELL`.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::CliError;

/// Prints the completion script for `shell`.
pub fn run(shell: clap_complete::Shell) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut Cli::command(), "tokctl", &mut out);
    Ok(())
}
