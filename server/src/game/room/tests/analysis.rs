//! What a room lets `analyze` see: its position at any move index when it was created with
//! analysis, nothing while a game without it is waiting or in play, everything once that game
//! is over; three or four players are never analysed.

use super::{Harness, Requests, config};
use crate::game::analysis::About;
use jchomp_protocol::json::ConfigJson;
use jchomp_protocol::rules::Position;
use jchomp_protocol::wire::ErrorCode;

/// The board of `config` with analysis on.
fn with_analysis(rows: i64, cols: i64, players: i64) -> ConfigJson {
    ConfigJson {
        analysis: true,
        ..config(rows, cols, players)
    }
}

#[tokio::test(start_paused = true)]
async fn a_room_with_analysis_gives_its_position_at_any_index() {
    let h = Harness::new();
    let (mut room, mut a) = h.hosted(&with_analysis(4, 4, 2));
    // Even while seats are free: the start.
    let waiting = room.analyze(None).await.unwrap();
    assert_eq!((waiting.index, waiting.position.to_move()), (0, Some(0)));
    let mut b = h.peer();
    room.join(&b, "b").await.unwrap();
    room.play(&a, 3, 3).await;
    room.play(&b, 2, 3).await;
    let now = room.analyze(None).await.unwrap();
    assert_eq!(now.about, About::Room(room.id()));
    assert_eq!(now.index, 2);
    assert_eq!(now.position, *room.room.game.position());
    let earlier = room.analyze(Some(1)).await.unwrap();
    assert_eq!(earlier.index, 1);
    assert_eq!(earlier.position.to_move(), Some(1));
    assert_eq!(earlier.position.uneaten().count(), 15);
    assert_eq!(
        room.analyze(Some(0)).await.unwrap().position,
        Position::start(&room.room.config)
    );
    let r = room.analyze(Some(3)).await.unwrap_err();
    assert_eq!(r.code, ErrorCode::BadRequest);
    assert_eq!(
        r.message,
        format!(
            "index must be 0–2 (the moves played in room {}), got 3",
            room.id()
        )
    );
    // Asking changes nothing and tells the members nothing.
    a.drain();
    b.drain();
    room.analyze(None).await.unwrap();
    a.assert_silent();
    b.assert_silent();
    assert_eq!(room.room.version, 4);
}

#[tokio::test(start_paused = true)]
async fn a_room_without_analysis_refuses_until_its_game_is_over() {
    let h = Harness::new();
    let (mut room, a) = h.hosted(&config(4, 4, 2));
    let refused = format!(
        "room {} was created without analysis; its position may be analysed once its game is over",
        room.id()
    );
    let r = room.analyze(None).await.unwrap_err();
    assert_eq!(
        (r.code, r.message.clone()),
        (ErrorCode::Forbidden, refused.clone())
    );
    let b = h.peer();
    room.join(&b, "b").await.unwrap();
    room.play(&a, 3, 3).await;
    let r = room.analyze(Some(0)).await.unwrap_err();
    assert_eq!((r.code, r.message), (ErrorCode::Forbidden, refused));
    // b eats the poison: the game is over, and every position of it may be analysed.
    room.play(&b, 0, 0).await;
    let end = room.analyze(None).await.unwrap();
    assert_eq!((end.index, end.position.to_move()), (2, None));
    let first = room.analyze(Some(1)).await.unwrap();
    assert_eq!(first.position.to_move(), Some(1));
}

#[tokio::test(start_paused = true)]
async fn three_or_four_players_are_not_analysed() {
    let h = Harness::new();
    for players in [3, 4] {
        let (mut room, _) = h.hosted(&with_analysis(5, 5, players));
        let r = room.analyze(None).await.unwrap_err();
        assert_eq!(r.code, ErrorCode::AnalysisUnavailable);
        assert_eq!(
            r.message,
            format!(
                "analysis covers two-player games only; room {} has {players} players",
                room.id()
            )
        );
    }
}
