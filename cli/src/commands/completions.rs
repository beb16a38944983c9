//! `tokctl completions SHELL`.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::CliError;
use crate::output::Output;

/// Prints the completion script for `shell`. It is generated in memory and written like any
/// other output, so a closed pipe (`| head`) ends the run quietly.
pub fn run(out: &Output, shell: clap_complete::Shell) -> Result<(), CliError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tokctl", &mut script);
    Ok(out.bytes(&script)?)
}
