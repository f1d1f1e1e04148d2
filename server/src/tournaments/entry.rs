//! Entering a tournament, pure: an account's entry and withdrawal with their refusals, whether
//! an open tournament has reached its start, and beginning it (or calling it off when too few
//! entered).

use super::state::{Entrant, Tournament};
use super::{MAX_ENTRANTS, MAX_START_MS};
use crate::game::refusal::Refusal;
use jchomp_protocol::wire::{Entry, ErrorCode, Start};

/// What a withdrawal did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Withdrawn {
    /// Before the start: the entry is gone.
    Removed,
    /// After it: the entrant is paired no more.
    Stopped,
}

impl Tournament {
    /// The entrant named `name`, by index.
    pub(crate) fn entrant(&self, name: &str) -> Option<usize> {
        self.entrants.iter().position(|e| e.name == name)
    }

    /// Enters `entrant`, or says why not.
    pub(crate) fn join(&mut self, entrant: Entrant) -> Result<(), Refusal> {
        if self.entrant(&entrant.name).is_some() {
            return Err(Refusal::new(
                ErrorCode::AlreadyEntered,
                format!("{} has entered this tournament already", entrant.name),
            ));
        }
        if !self.open {
            return Err(Refusal::new(
                ErrorCode::NotOpen,
                "this tournament takes no entrants: it has begun, is over, or took its entrants at creation",
            ));
        }
        let bot = entrant.kind.bot();
        if !self.spec.entry.admits(bot) {
            let only = match self.spec.entry {
                Entry::People => "people only; bots may not enter",
                _ => "bots only (bot accounts and built-in levels); people may not enter",
            };
            return Err(Refusal::new(
                ErrorCode::EntryRefused,
                format!("this tournament admits {only}"),
            ));
        }
        if self.entrants.len() >= MAX_ENTRANTS {
            return Err(Refusal::new(
                ErrorCode::TournamentFull,
                format!("this tournament has its maximum of {MAX_ENTRANTS} entrants"),
            ));
        }
        self.entrants.push(entrant);
        self.byes.push(0);
        Ok(())
    }

    /// Withdraws the entrant named `name`: before the start its entry is removed; after it, it
    /// is paired no more (its games played still count; its round-robin games not yet played
    /// are not played).
    pub(crate) fn withdraw(&mut self, name: &str) -> Result<Withdrawn, Refusal> {
        let Some(e) = self.entrant(name) else {
            return Err(Refusal::new(
                ErrorCode::NotOpen,
                format!("{name} has not entered this tournament"),
            ));
        };
        if self.finished || self.cancelled.is_some() {
            return Err(Refusal::new(ErrorCode::NotOpen, "this tournament is over"));
        }
        if self.open {
            self.entrants.remove(e);
            self.byes.remove(e);
            return Ok(Withdrawn::Removed);
        }
        self.entrants[e].withdrawn = true;
        Ok(Withdrawn::Stopped)
    }

    /// Whether an open tournament has reached its start at `now_ms`: its time, its count of
    /// entrants, or (waiting for entrants) [`MAX_START_MS`] after it was made.
    pub(crate) fn due(&self, now_ms: u64) -> bool {
        self.open
            && (self.start_ms().is_none_or(|at| now_ms >= at)
                || matches!(self.spec.start, Some(Start::WhenJoined(n)) if self.entrants.len() >= n as usize))
    }

    /// When an open tournament starts whoever has entered: its start time, or, waiting for
    /// entrants, [`MAX_START_MS`] after it was made (it is then called off unless full).
    /// `None` when it starts at once.
    pub(crate) fn start_ms(&self) -> Option<u64> {
        match self.spec.start {
            Some(Start::AtMs(at)) => Some(at),
            Some(Start::WhenJoined(_)) => Some(self.started_ms.saturating_add(MAX_START_MS)),
            None => None,
        }
    }

    /// Begins an open tournament at `now_ms`; with fewer entrants than a game seats, calls it
    /// off instead.
    pub(crate) fn begin(&mut self, now_ms: u64) {
        if !self.open {
            return;
        }
        self.open = false;
        let (n, k) = (self.entrants.len(), self.k());
        if let Some(Start::WhenJoined(want)) = self.spec.start
            && n < want as usize
        {
            self.cancelled = Some(format!(
                "{n} of the {want} entrants it waited for entered within a week"
            ));
            return;
        }
        if n < k {
            self.cancelled = Some(format!(
                "it reached its start with {n} entrant{}; a game needs {k}",
                if n == 1 { "" } else { "s" }
            ));
            return;
        }
        self.started_ms = now_ms;
    }
}

#[cfg(test)]
mod tests {
    use super::super::state::{Kind, test_spec};
    use super::*;
    use jchomp_protocol::wire::{TournamentFormat, TournamentStatus};

    fn open(entry: Entry, start: Start) -> Tournament {
        let mut spec = test_spec(TournamentFormat::RoundRobin);
        spec.entry = entry;
        spec.start = Some(start);
        Tournament::new("T".into(), spec, Vec::new(), 0)
    }

    fn account(name: &str, kind: Kind) -> Entrant {
        Entrant {
            name: name.into(),
            rating: 1500.0,
            kind,
            withdrawn: false,
        }
    }

    #[test]
    fn entry_is_refused_twice_by_policy_and_when_full() {
        let mut t = open(Entry::People, Start::WhenJoined(64));
        t.join(account("ann", Kind::Person)).unwrap();
        let twice = t.join(account("ann", Kind::Person)).unwrap_err();
        assert_eq!(twice.code, ErrorCode::AlreadyEntered);
        let bot = t.join(account("bob", Kind::BotAccount)).unwrap_err();
        assert_eq!(bot.code, ErrorCode::EntryRefused);
        for i in 1..MAX_ENTRANTS {
            t.join(account(&format!("p{i}"), Kind::Person)).unwrap();
        }
        let full = t.join(account("late", Kind::Person)).unwrap_err();
        assert_eq!(full.code, ErrorCode::TournamentFull);
    }

    #[test]
    fn a_start_with_too_few_cancels_and_withdrawal_after_it_stops_pairing() {
        let mut t = open(Entry::Anyone, Start::AtMs(500));
        t.join(account("ann", Kind::Person)).unwrap();
        assert!(!t.due(499));
        assert!(t.due(500));
        t.begin(500);
        assert_eq!(t.status(), TournamentStatus::Cancelled);
        assert!(t.plan(600).is_empty());

        let mut t = open(Entry::Anyone, Start::WhenJoined(3));
        for name in ["a", "b", "c"] {
            t.join(account(name, Kind::BotAccount)).unwrap();
        }
        assert_eq!(t.withdraw("c"), Ok(Withdrawn::Removed));
        assert!(!t.due(0), "two of three");
        t.join(account("d", Kind::Person)).unwrap();
        assert!(t.due(0));
        t.begin(7);
        assert_eq!((t.status(), t.started_ms), (TournamentStatus::Playing, 7));
        assert_eq!(t.withdraw("d"), Ok(Withdrawn::Stopped));
        let round = t.plan(7);
        assert_eq!(round, vec![vec![0, 1]], "d is paired no more");
        let late = t.join(account("e", Kind::Person)).unwrap_err();
        assert_eq!(late.code, ErrorCode::NotOpen);
    }

    #[test]
    fn a_tournament_waiting_for_entrants_is_called_off_after_a_week_unless_full() {
        let mut t = open(Entry::Anyone, Start::WhenJoined(4));
        for name in ["a", "b", "c"] {
            t.join(account(name, Kind::Person)).unwrap();
        }
        assert_eq!(t.start_ms(), Some(MAX_START_MS));
        assert!(!t.due(MAX_START_MS - 1));
        assert!(t.due(MAX_START_MS));
        t.begin(MAX_START_MS);
        assert_eq!(t.status(), TournamentStatus::Cancelled);
        let why = t.cancelled.clone().unwrap();
        assert!(why.contains("3 of the 4"), "{why}");
        assert!(t.plan(MAX_START_MS).is_empty());
    }
}
