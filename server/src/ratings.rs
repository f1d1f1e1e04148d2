//! Ratings: the category a game counts in ([`category`]), a player's rating in one category
//! ([`Rating`]), and what a finished game does to its seats' ratings ([`rate`]): Glicko-2 with
//! lichess's constants for two players, Weng–Lin (OpenSkill's Bradley–Terry model) for three
//! and four, both from the `skillratings` crate.

use jchomp_protocol::json::{ConfigJson, ResultJson};
use serde::{Deserialize, Serialize};
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use skillratings::{MultiTeamOutcome, Outcomes};

/// A two-player rating's start (lichess).
pub(crate) const GLICKO_START: f64 = 1500.0;
/// A two-player rating's deviation at the start (lichess).
pub(crate) const GLICKO_DEVIATION: f64 = 500.0;
/// A two-player rating's volatility at the start (lichess).
pub(crate) const GLICKO_VOLATILITY: f64 = 0.09;
/// Glicko-2's τ (lichess).
pub(crate) const GLICKO_TAU: f64 = 0.75;
/// A two-player rating is provisional while its deviation is at least this (lichess).
pub(crate) const PROVISIONAL_DEVIATION: f64 = 110.0;

/// What one seat's rating did in one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// It did not lose and someone else did.
    Win,
    /// It lost (poisoned, out of time or abandoned).
    Loss,
    /// Nobody lost.
    Tie,
}

/// One point of a rating's history: the rating after one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Point {
    /// The game.
    pub game: String,
    /// When it ended, milliseconds since the epoch.
    pub when_ms: u64,
    /// The rating after it.
    pub rating: f64,
    /// The deviation after it.
    pub deviation: f64,
    /// What the game was for this player.
    pub outcome: Outcome,
}

/// A player's rating in one category, with their counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Rating {
    /// Glicko-2 rating, or Weng–Lin μ.
    pub rating: f64,
    /// Glicko-2 deviation, or Weng–Lin σ.
    pub deviation: f64,
    /// Glicko-2 volatility (0 for Weng–Lin).
    pub volatility: f64,
    /// Rated games won.
    pub wins: u32,
    /// Rated games lost.
    pub losses: u32,
    /// Rated games tied.
    pub ties: u32,
    /// When the last rated game ended, milliseconds since the epoch.
    pub last_ms: u64,
}

/// The category of a game: its variant and `2` or `3-4` players (`jchomp:2`, `classic:3-4`).
pub(crate) fn category(config: &ConfigJson) -> String {
    let mut game = config.variant.name().to_string();
    // Normal play and the ban on square bites make other games, rated apart.
    if config.play == jchomp_protocol::rules::Play::Normal {
        game.push_str("+normal");
    }
    if config.no_square_bites {
        game.push_str("+no-square-bites");
    }
    let players = if config.players == 2 { "2" } else { "3-4" };
    format!("{game}:{players}")
}

/// Whether `name` is a category some game counts in: a variant's name, then `+normal` and
/// `+no-square-bites` where they apply (in that order), then `:2` or `:3-4`.
pub(crate) fn is_category(name: &str) -> bool {
    let Some((game, players)) = name.rsplit_once(':') else {
        return false;
    };
    let game = game.strip_suffix("+no-square-bites").unwrap_or(game);
    let game = game.strip_suffix("+normal").unwrap_or(game);
    matches!(players, "2" | "3-4")
        && jchomp_protocol::rules::Variant::ALL
            .iter()
            .any(|v| v.name() == game)
}

/// Whether a category is rated with Glicko-2 (two players).
pub(crate) fn two_players(category: &str) -> bool {
    category.ends_with(":2")
}

/// A new player's rating in `category`.
pub(crate) fn initial(category: &str) -> Rating {
    let (rating, deviation, volatility) = if two_players(category) {
        (GLICKO_START, GLICKO_DEVIATION, GLICKO_VOLATILITY)
    } else {
        let w = WengLinRating::new();
        (w.rating, w.uncertainty, 0.0)
    };
    Rating {
        rating,
        deviation,
        volatility,
        wins: 0,
        losses: 0,
        ties: 0,
        last_ms: 0,
    }
}

/// Whether a rating is still provisional (two players: deviation ≥ 110; three and four: σ
/// above a third of its start).
pub(crate) fn provisional(category: &str, r: &Rating) -> bool {
    if two_players(category) {
        r.deviation >= PROVISIONAL_DEVIATION
    } else {
        r.deviation > WengLinRating::new().uncertainty / 3.0
    }
}

/// Each seat's outcome of a finished game: the seat that lost loses and the others win; in
/// normal play the seat that won wins and the others lose; a tie is a tie for all.
pub(crate) fn outcomes(result: &ResultJson, seats: usize) -> Vec<Outcome> {
    let only = |seat: u8, this: Outcome, rest: Outcome| -> Vec<Outcome> {
        (0..seats)
            .map(|s| if s == usize::from(seat) { this } else { rest })
            .collect()
    };
    match result {
        ResultJson::Poisoned { loser }
        | ResultJson::Timeout { loser }
        | ResultJson::Abandoned { loser } => only(*loser, Outcome::Loss, Outcome::Win),
        ResultJson::Won { winner } => only(*winner, Outcome::Win, Outcome::Loss),
        ResultJson::Tie => vec![Outcome::Tie; seats],
    }
}

/// The seats' ratings after a game of `category` with these outcomes, ending at `when_ms`.
pub(crate) fn rate(
    category: &str,
    before: &[Rating],
    outcomes: &[Outcome],
    when_ms: u64,
) -> Vec<Rating> {
    let values: Vec<(f64, f64, f64)> = if two_players(category) && before.len() == 2 {
        glicko_pair(before, outcomes[0])
    } else {
        weng_lin_ranked(before, outcomes)
    };
    before
        .iter()
        .zip(values)
        .zip(outcomes)
        .map(|((b, (rating, deviation, volatility)), o)| Rating {
            rating,
            deviation,
            volatility,
            wins: b.wins + u32::from(*o == Outcome::Win),
            losses: b.losses + u32::from(*o == Outcome::Loss),
            ties: b.ties + u32::from(*o == Outcome::Tie),
            last_ms: when_ms,
        })
        .collect()
}

/// Glicko-2 (τ 0.75) for two players; `first` is seat 0's outcome.
fn glicko_pair(before: &[Rating], first: Outcome) -> Vec<(f64, f64, f64)> {
    let g = |r: &Rating| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let outcome = match first {
        Outcome::Win => Outcomes::WIN,
        Outcome::Loss => Outcomes::LOSS,
        Outcome::Tie => Outcomes::DRAW,
    };
    let config = Glicko2Config {
        tau: GLICKO_TAU,
        ..Glicko2Config::new()
    };
    let (a, b) = glicko2(&g(&before[0]), &g(&before[1]), &outcome, &config);
    [a, b]
        .iter()
        .map(|r| (r.rating, r.deviation, r.volatility))
        .collect()
}

/// Weng–Lin with each seat a team of one, ranked: the loser last, the others tied first; a tie
/// all tied.
fn weng_lin_ranked(before: &[Rating], outcomes: &[Outcome]) -> Vec<(f64, f64, f64)> {
    let seats: Vec<(f64, f64, usize)> = before
        .iter()
        .zip(outcomes)
        .map(|(r, o)| {
            let rank = if *o == Outcome::Loss { 2 } else { 1 };
            (r.rating, r.deviation, rank)
        })
        .collect();
    weng_lin(&seats)
        .into_iter()
        .map(|(rating, uncertainty)| (rating, uncertainty, 0.0))
        .collect()
}

/// One Weng–Lin (Bradley–Terry, full pairing) update of single-player teams, each given as
/// (rating, uncertainty, rank), rank 1 first and equal ranks tied.
fn weng_lin(seats: &[(f64, f64, usize)]) -> Vec<(f64, f64)> {
    let teams: Vec<[WengLinRating; 1]> = seats
        .iter()
        .map(|&(rating, uncertainty, _)| {
            [WengLinRating {
                rating,
                uncertainty,
            }]
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(seats)
        .map(|(t, &(_, _, rank))| (&t[..], MultiTeamOutcome::new(rank)))
        .collect();
    weng_lin_multi_team(&ranked, &WengLinConfig::new())
        .into_iter()
        .map(|t| t.first().map_or((0.0, 0.0), |r| (r.rating, r.uncertainty)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::glicko2_rating_period;

    /// Glickman's worked example ("Example of the Glicko-2 system", glicko.net, τ = 0.5): a
    /// 1500/200/0.06 player beats 1400/30 and loses to 1550/100 and 1700/300 in one rating
    /// period: 1464.06 / 151.52 / 0.05999.
    #[test]
    fn glicko2_matches_glickmans_published_example() {
        let p = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let results = [
            (p(1400.0, 30.0), Outcomes::WIN),
            (p(1550.0, 100.0), Outcomes::LOSS),
            (p(1700.0, 300.0), Outcomes::LOSS),
        ];
        let config = Glicko2Config {
            tau: 0.5,
            ..Glicko2Config::new()
        };
        let after = glicko2_rating_period(&p(1500.0, 200.0), &results, &config);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    /// openskill.py's published Bradley–Terry full-pairing series
    /// (tests/models/test_bradley_terry_full_series.py): five newcomers play three games of
    /// five, three and four players with ties, ranked by score; the figures after the third
    /// game are theirs, to nine digits.
    #[test]
    fn weng_lin_matches_openskills_published_series() {
        let new = (25.0, 25.0 / 3.0);
        let game = |players: &[(f64, f64)], ranks: &[usize]| {
            let seats: Vec<_> = players
                .iter()
                .zip(ranks)
                .map(|(&(m, s), &r)| (m, s, r))
                .collect();
            weng_lin(&seats)
        };
        let first = game(&[new; 5], &[1, 2, 2, 3, 3]);
        let second = game(&[first[4], first[2], first[1]], &[1, 2, 2]);
        let third = game(&[first[3], second[2], second[1], first[0]], &[1, 1, 2, 2]);
        let expected = [
            (third[3], (27.643471362, 6.716636758)),
            (third[1], (28.84497938, 6.310098392)),
            (third[2], (20.705805441, 6.310098392)),
            (third[0], (24.387640207, 6.668755907)),
            (second[0], (23.354955778, 6.854096855)),
        ];
        for (i, ((mu, sigma), (want_mu, want_sigma))) in expected.into_iter().enumerate() {
            assert!(
                (mu - want_mu).abs() < 1e-6,
                "player {i}: mu {mu}, want {want_mu}"
            );
            assert!(
                (sigma - want_sigma).abs() < 1e-6,
                "player {i}: sigma {sigma}, want {want_sigma}"
            );
        }
    }

    #[test]
    fn two_newcomers_move_symmetrically_and_stay_provisional() {
        let cat = "jchomp:2";
        let start = [initial(cat), initial(cat)];
        let after = rate(cat, &start, &[Outcome::Win, Outcome::Loss], 7);
        assert!(after[0].rating > GLICKO_START && after[1].rating < GLICKO_START);
        assert!((after[0].rating - GLICKO_START + after[1].rating - GLICKO_START).abs() < 1e-9);
        assert!(after[0].deviation < GLICKO_DEVIATION);
        assert!(provisional(cat, &after[0]));
        assert_eq!(
            (after[0].wins, after[1].losses, after[0].last_ms),
            (1, 1, 7)
        );
    }

    #[test]
    fn many_players_the_poisoned_seat_loses_and_the_others_tie() {
        let cat = "jchomp:3-4";
        let start = vec![initial(cat); 3];
        let outcomes = outcomes(&ResultJson::Poisoned { loser: 1 }, 3);
        assert_eq!(outcomes, [Outcome::Win, Outcome::Loss, Outcome::Win]);
        let after = rate(cat, &start, &outcomes, 1);
        assert!(after[1].rating < 25.0 && after[0].rating > 25.0);
        assert!((after[0].rating - after[2].rating).abs() < 1e-9);
        let tied = rate(cat, &start, &[Outcome::Tie; 3], 1);
        assert!(tied.iter().all(|r| (r.rating - 25.0).abs() < 1e-9));
        assert_eq!(tied[2].ties, 1);
    }

    #[test]
    fn categories_part_variants_and_player_counts() {
        let two: ConfigJson =
            serde_json::from_str(r#"{"rows":4,"cols":4,"players":2,"eat":[1,1],"poison":[[0,0]]}"#)
                .unwrap();
        assert_eq!(category(&two), "jchomp:2");
        let classic: ConfigJson = serde_json::from_str(
            r#"{"rows":4,"cols":4,"players":4,"variant":"classic","poison":[[0,0]]}"#,
        )
        .unwrap();
        assert_eq!(category(&classic), "classic:3-4");
        let normal: ConfigJson = serde_json::from_str(
            r#"{"rows":4,"cols":4,"players":2,"variant":"breaks","poison":[[1,1]],"play":"normal","no_square_bites":true}"#,
        )
        .unwrap();
        assert_eq!(category(&normal), "breaks+normal+no-square-bites:2");
        for named in [&two, &classic, &normal] {
            assert!(is_category(&category(named)));
        }
        for wrong in [
            "jchmp:2",
            "jchomp:3",
            "jchomp",
            "classic:2-4",
            "jchomp+no-square-bites+normal:2",
            "",
        ] {
            assert!(!is_category(wrong), "{wrong}");
        }
    }

    #[test]
    fn in_normal_play_the_winner_wins_and_the_others_lose() {
        let outcomes = outcomes(&ResultJson::Won { winner: 2 }, 3);
        assert_eq!(outcomes, [Outcome::Loss, Outcome::Loss, Outcome::Win]);
        let after = rate(
            "classic+normal:3-4",
            &vec![initial("classic+normal:3-4"); 3],
            &outcomes,
            1,
        );
        assert!(after[2].rating > 25.0 && after[0].rating < 25.0);
        assert!((after[0].rating - after[1].rating).abs() < 1e-9);
    }
}
