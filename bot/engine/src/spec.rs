//! Bot specs: the one text syntax that names a bot everywhere (server `add_bot`, the bot client,
//! tournaments, the command line), parsing it, printing it and building the [`Player`] it names.

use crate::classic::{ClassicLibrary, PerfectPlayer};
use crate::duration::{DurationError, parse_duration};
use crate::player::{GreedyPlayer, Player, RandomPlayer};
use crate::search::{
    BrsPlayer, Budget, Kind, LevelPlayer, MctsPlayer, MultiMode, OptionsPlayer, SearchPlayer,
};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Every valid form of a bot spec, as listed in error messages.
const VALID_FORMS: &str = "random, greedy, search:depth=N, search:nodes=N, \
search:time=250ms (or =2s), mcts:nodes=N, mcts:time=250ms, brs:depth=N, brs:nodes=N, \
brs:time=250ms, maxn:depth=N, maxn:nodes=N, maxn:time=250ms, level:1, level:2, level:3, level:4, \
level:5";

/// Highest named level.
pub const MAX_LEVEL: u8 = 5;

/// A bot, named by its spec: `random`, `greedy`, `search:depth=6`, `search:nodes=200000`,
/// `search:time=250ms`, `mcts:nodes=200000`, `mcts:time=250ms`, `brs:depth=6`, `brs:nodes=200000`,
/// `brs:time=250ms`, `maxn:nodes=200000` (also `depth`, `time`) or `level:1` … `level:5`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotSpec {
    /// Uniformly random, preferring selections without poison.
    Random,
    /// One ply: takes an immediate win, never eats poison while it can avoid it.
    Greedy,
    /// The search engine with one budget.
    Search(Budget),
    /// Monte Carlo tree search with max^n backups and proven bounds, with a node or time
    /// budget.
    Mcts(Budget),
    /// Best-Reply Search+ (the seat against one best-replying opponent at a time), with a depth
    /// (in layers), node or time budget.
    Brs(Budget),
    /// The max^n search (every seat maximises its own score) with three and four players, the
    /// same search as [`BotSpec::Search`] with two; depth, node or time budget.
    MaxN(Budget),
    /// A named strength level (1–5), searching with the budget [`BotSpec::budget`] gives it
    /// (listed in `docs/BOTS.md`); from level 3 on, three- and four-player games are played
    /// by the tree search.
    Level(u8),
}

/// Why a text is not a bot spec. Its message lists every valid form.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid bot spec {given:?}: {reason}; valid forms: {VALID_FORMS}")]
pub struct SpecError {
    /// The text given.
    pub given: String,
    /// What is wrong with it.
    pub reason: String,
}

impl BotSpec {
    /// Parses a spec such as `search:time=250ms`. Surrounding spaces are ignored; names are
    /// lower case.
    pub fn parse(text: &str) -> Result<BotSpec, SpecError> {
        let given = text.trim();
        let err = |reason: String| SpecError {
            given: text.to_string(),
            reason,
        };
        match given {
            "random" => return Ok(BotSpec::Random),
            "greedy" => return Ok(BotSpec::Greedy),
            _ => {}
        }
        if let Some(level) = given.strip_prefix("level:") {
            return match level.parse::<u8>() {
                Ok(n) if (1..=MAX_LEVEL).contains(&n) => Ok(BotSpec::Level(n)),
                _ => Err(err(format!("level must be 1–{MAX_LEVEL}, got {level:?}"))),
            };
        }
        if let Some(budget) = given.strip_prefix("search:") {
            return parse_budget("search", budget, true)
                .map(BotSpec::Search)
                .map_err(err);
        }
        if let Some(budget) = given.strip_prefix("mcts:") {
            return parse_budget("mcts", budget, false)
                .map(BotSpec::Mcts)
                .map_err(err);
        }
        if let Some(budget) = given.strip_prefix("brs:") {
            return parse_budget("brs", budget, true)
                .map(BotSpec::Brs)
                .map_err(err);
        }
        if let Some(budget) = given.strip_prefix("maxn:") {
            return parse_budget("maxn", budget, true)
                .map(BotSpec::MaxN)
                .map_err(err);
        }
        Err(err("unknown bot".to_string()))
    }

    /// The budget a named level searches with (documented in `docs/BOTS.md`).
    fn level_budget(level: u8) -> Budget {
        match level {
            0 | 1 => Budget::Depth(2),
            2 => Budget::Depth(4),
            3 => Budget::Nodes(50_000),
            4 => Budget::Nodes(500_000),
            _ => Budget::Time(Duration::from_millis(1000)),
        }
    }

    /// The search budget of this spec, if it names a search bot.
    pub fn budget(&self) -> Option<Budget> {
        match *self {
            BotSpec::Random | BotSpec::Greedy => None,
            BotSpec::Search(b) | BotSpec::Mcts(b) | BotSpec::Brs(b) | BotSpec::MaxN(b) => Some(b),
            BotSpec::Level(n) => Some(BotSpec::level_budget(n)),
        }
    }

    /// A new player for this spec. The same spec and seed always make the same choices (except
    /// for time budgets, which depend on the machine's speed).
    /// Under the rule options every bot plays as [`OptionsPlayer`] says (see `docs/BOTS.md`).
    pub fn build(&self, seed: u64) -> Box<dyn Player> {
        let kind = match *self {
            BotSpec::Random => Kind::Random,
            BotSpec::Greedy => Kind::Greedy,
            _ => Kind::Search(self.budget().unwrap_or(Budget::Depth(2))),
        };
        Box::new(OptionsPlayer::new(self.build_standard(seed), kind, seed))
    }

    /// The player of standard games (misère JChomp and classic Chomp without the ban).
    fn build_standard(&self, seed: u64) -> Box<dyn Player> {
        match *self {
            BotSpec::Random => Box::new(RandomPlayer::new(seed)),
            BotSpec::Greedy => Box::new(GreedyPlayer::new(seed)),
            BotSpec::Mcts(budget) => Box::new(MctsPlayer::new(budget, seed)),
            BotSpec::Brs(budget) => Box::new(BrsPlayer::new(budget, seed)),
            BotSpec::MaxN(budget) => {
                Box::new(SearchPlayer::new(budget, seed).with_mode(MultiMode::MaxN))
            }
            BotSpec::Search(budget) => Box::new(SearchPlayer::new(budget, seed)),
            // Depth levels stay the plain alpha-beta search (weak on purpose, and a tree search
            // has no depth); node and time levels take the strongest engine for the seats.
            BotSpec::Level(n) => match BotSpec::level_budget(n) {
                budget @ Budget::Depth(_) => Box::new(SearchPlayer::new(budget, seed)),
                budget => Box::new(LevelPlayer::new(budget, seed)),
            },
        }
    }

    /// A new player as [`BotSpec::build`] makes it, where the strongest level (`level:5`) plays
    /// perfectly from `classic`'s database in the games it answers for (classic, two players,
    /// poison at the top-left).
    pub fn build_with(&self, seed: u64, classic: Option<Arc<ClassicLibrary>>) -> Box<dyn Player> {
        let player = self.build(seed);
        match classic {
            Some(library) if *self == BotSpec::Level(MAX_LEVEL) => {
                Box::new(PerfectPlayer::new(library, player))
            }
            _ => player,
        }
    }
}

/// Reads the `KEY=VALUE` budget after `search:` or `mcts:` (`depth` only where `depth` is
/// true); the error is the reason in words.
fn parse_budget(kind: &str, budget: &str, depth: bool) -> Result<Budget, String> {
    let (key, value) = budget
        .split_once('=')
        .ok_or_else(|| format!("expected KEY=VALUE after \"{kind}:\", got {budget:?}"))?;
    let number = |v: &str| -> Result<u64, String> {
        match v.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{key} must be a positive whole number, got {v:?}")),
        }
    };
    match key {
        "depth" if depth => {
            let n = number(value)?;
            if n > u64::from(Budget::MAX_DEPTH) {
                Err(format!("depth must be 1–{}, got {n}", Budget::MAX_DEPTH))
            } else {
                Ok(Budget::Depth(n as u32))
            }
        }
        "nodes" => Ok(Budget::Nodes(number(value)?)),
        "time" => match parse_duration(value, None) {
            Ok(d) if !d.is_zero() => Ok(Budget::Time(d)),
            Ok(_) => Err(format!(
                "time must be a positive whole number of ms or s, got {value:?}"
            )),
            Err(DurationError::NoUnit(_)) => {
                Err(format!("time needs a unit, ms or s, got {value:?}"))
            }
            Err(e) => Err(e.to_string()),
        },
        _ if depth => Err(format!(
            "unknown {kind} budget {key:?} (depth, nodes or time)"
        )),
        _ => Err(format!("unknown {kind} budget {key:?} (nodes or time)")),
    }
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSpec::Random => write!(f, "random"),
            BotSpec::Greedy => write!(f, "greedy"),
            BotSpec::Level(n) => write!(f, "level:{n}"),
            BotSpec::Search(b) => write!(f, "search:{b}"),
            BotSpec::Mcts(b) => write!(f, "mcts:{b}"),
            BotSpec::Brs(b) => write!(f, "brs:{b}"),
            BotSpec::MaxN(b) => write!(f, "maxn:{b}"),
        }
    }
}

impl std::str::FromStr for BotSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<BotSpec, SpecError> {
        BotSpec::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_round_trips() {
        for text in [
            "random",
            "greedy",
            "search:depth=6",
            "search:nodes=200000",
            "search:time=250ms",
            "mcts:nodes=200000",
            "mcts:time=250ms",
            "brs:depth=4",
            "brs:nodes=200000",
            "brs:time=250ms",
            "maxn:nodes=20000",
            "level:1",
            "level:5",
        ] {
            let spec = BotSpec::parse(text).unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(BotSpec::parse(&spec.to_string()).unwrap(), spec);
        }
        assert_eq!(
            BotSpec::parse(" search:time=2s ").unwrap().to_string(),
            "search:time=2000ms"
        );
        assert_eq!(
            BotSpec::parse("search:depth=6").unwrap(),
            BotSpec::Search(Budget::Depth(6))
        );
    }

    #[test]
    fn bad_specs_are_refused_with_every_valid_form() {
        for (text, reason) in [
            ("", "unknown bot"),
            ("minimax", "unknown bot"),
            ("Random", "unknown bot"),
            ("level:0", "level must be 1–5"),
            ("level:6", "level must be 1–5"),
            ("level:x", "level must be 1–5"),
            ("search", "unknown bot"),
            ("search:depth", "expected KEY=VALUE"),
            ("search:depth=0", "depth must be a positive whole number"),
            ("search:depth=-3", "depth must be a positive whole number"),
            ("search:depth=1000", "depth must be 1–"),
            ("search:nodes=lots", "nodes must be a positive whole number"),
            ("search:time=250", "time needs a unit"),
            ("search:time=0ms", "time must be a positive whole number"),
            ("search:speed=3", "unknown search budget"),
            (
                "mcts:depth=4",
                "unknown mcts budget \"depth\" (nodes or time)",
            ),
            ("mcts:nodes=0", "nodes must be a positive whole number"),
            ("mcts", "unknown bot"),
            ("brs:depth=0", "depth must be a positive whole number"),
            (
                "brs:speed=1",
                "unknown brs budget \"speed\" (depth, nodes or time)",
            ),
        ] {
            let e = BotSpec::parse(text).unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains(reason), "{text:?}: {msg}");
            for form in ["random", "greedy", "search:depth=N", "search:nodes=N"] {
                assert!(msg.contains(form), "{msg}");
            }
            assert!(msg.contains("search:time=250ms") && msg.contains("level:5"));
        }
    }

    #[test]
    fn search_bots_take_budgets_of_their_kinds_and_report_their_searches() {
        use jchomp_rules::Position;
        let config = jchomp_testkit::board("9x9 eat 1x1 poison 4,4 players 3");
        let start = Position::start(&config);
        let (depth, nodes) = (Budget::Depth(3), Budget::Nodes(2_000));
        for (text, takes_depth) in [
            ("search:depth=1", true),
            ("brs:nodes=100", true),
            ("maxn:depth=1", true),
            ("mcts:nodes=100", false),
            ("level:1", true),
            ("level:3", false),
        ] {
            let spec = BotSpec::parse(text).unwrap();
            let mut player = spec.build(3);
            assert_eq!(player.last_search(), None, "{text}");
            assert_eq!(player.set_budget(depth), takes_depth, "{text}");
            assert!(player.set_budget(nodes), "{text}");
            player.choose(&config, &start).unwrap();
            let searched = player.last_search().unwrap();
            assert!(searched.nodes > 100, "{text}: {searched:?}");
            // Its own budget back: the next search keeps to it.
            let own = spec.budget().unwrap();
            assert!(player.set_budget(own));
            let mut position = start;
            position.play(&config, jchomp_rules::Cell::new(0, 0));
            player.choose(&config, &position).unwrap();
            let again = player.last_search().unwrap();
            match own {
                Budget::Depth(d) => assert_eq!(again.depth, Some(d), "{text}"),
                Budget::Nodes(n) => assert_eq!(n < 2_000, again.nodes < 2_000, "{text}"),
                Budget::Time(_) => unreachable!(),
            }
        }
        for text in ["random", "greedy"] {
            let mut player = BotSpec::parse(text).unwrap().build(3);
            assert!(!player.set_budget(nodes) && !player.set_budget(depth));
            player.choose(&config, &start).unwrap();
            assert_eq!(player.last_search(), None, "{text}");
        }
    }

    #[test]
    fn levels_map_to_budgets() {
        for n in 1..=MAX_LEVEL {
            assert!(BotSpec::Level(n).budget().is_some());
        }
        assert_eq!(BotSpec::Random.budget(), None);
        assert_eq!(BotSpec::Greedy.budget(), None);
    }
}
