//! [`Launch`]: how to start an engine's program: the program, its arguments and its working
//! directory, from a command line split as a shell would split it (but run without a shell).

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The directory it runs in (the runner's own if `None`).
    pub dir: Option<PathBuf>,
}

/// Why a command line does not name a program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// The quotes do not close.
    #[error("the command {0:?} does not split into words: its quotes do not close")]
    Quotes(String),
    /// Nothing to run.
    #[error("the command is empty")]
    Empty,
}

impl Launch {
    /// The program and arguments of `line`, split as a POSIX shell splits words (quotes and
    /// backslashes), with no expansion of variables, globs or anything else.
    pub fn from_command_line(line: &str, dir: Option<PathBuf>) -> Result<Launch, LaunchError> {
        let words = shell_words::split(line).map_err(|_| LaunchError::Quotes(line.to_string()))?;
        let mut words = words.into_iter();
        let program = words.next().ok_or(LaunchError::Empty)?;
        Ok(Launch {
            program,
            args: words.collect(),
            dir,
        })
    }

    /// The process to spawn: its three standard streams piped, none of them inherited.
    pub(crate) fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }
}

impl std::fmt::Display for Launch {
    /// The command line, quoted so that it splits back into the same words.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words = std::iter::once(&self.program).chain(&self.args);
        f.write_str(&shell_words::join(words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let l =
            Launch::from_command_line(r#"python3 "my engine.py" --x 'a b' c\ d"#, None).unwrap();
        assert_eq!(l.program, "python3");
        assert_eq!(l.args, vec!["my engine.py", "--x", "a b", "c d"]);
        assert_eq!(Launch::from_command_line(&l.to_string(), None).unwrap(), l);
        // No expansion: a shell's specials are just characters.
        let l = Launch::from_command_line("echo $HOME *", None).unwrap();
        assert_eq!(l.args, vec!["$HOME", "*"]);
        assert_eq!(
            Launch::from_command_line("a 'b", None),
            Err(LaunchError::Quotes("a 'b".into()))
        );
        assert_eq!(
            Launch::from_command_line("  ", None),
            Err(LaunchError::Empty)
        );
    }
}
