//! What a bystander may see of a game: its positions one by one and its moves in the game's
//! notation, for the web pages and the animated replays.
//!
//! A board game is public from its first move. A Looking-Glass game is not: while it is
//! played, a bystander in its room sees no square, no piece and no order, so everything here
//! refuses it with [`WatchError::Hidden`] until it ends, and then shows the whole game as the
//! reveal does (both worlds, every action). The rules alone decide; callers cannot ask for
//! more.

use render::BoardView;
use rules::{
    Catalog, Position,
    glass::{self, Glass},
    notation,
};

use crate::{
    model::{GameId, GameRecord, GameStatus},
    picture,
    reply::{BoardPicture, ReplayPicture},
    rules_engine::{EngineKind, GameKind},
    time_control::TimeControl,
};

/// Why a game, or one of its positions, cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WatchError {
    /// A hidden-information game still being played.
    #[error(
        "game {0} is a hidden-information game (Through the Looking-Glass): its boards and moves are shown to everybody when it ends"
    )]
    Hidden(GameId),
    /// A position past the end (or before the start) of the game.
    #[error("game {game} has positions 0 to {last}; there is no position {asked}")]
    NoSuchPly {
        /// The game.
        game: GameId,
        /// The position asked for.
        asked: usize,
        /// Its last position (the number of moves).
        last: usize,
    },
    /// The variant is not one this bot knows (a record from another version).
    #[error("game {game} is of the variant {variant}, which this bot does not know")]
    Variant {
        /// The game.
        game: GameId,
        /// Its variant's stored name.
        variant: String,
    },
    /// The record does not replay (a corrupt record, or rules that changed under it).
    #[error("game {game}'s record does not replay at move {ply}")]
    Replay {
        /// The game.
        game: GameId,
        /// The first move (from 1; 0 for the start) that does not.
        ply: usize,
    },
}

/// Whether a bystander must not see the game's boards and moves yet: a Looking-Glass game
/// that is not over.
pub fn is_hidden(record: &GameRecord) -> bool {
    GameKind::glass(&record.variant).is_some() && record.status == GameStatus::Active
}

/// The name of the game's variant as players read it (the stored name when unknown).
pub fn variant_name(record: &GameRecord, catalog: &Catalog) -> String {
    match GameKind::glass(&record.variant) {
        Some(rules) => GameKind::Glass(rules).display_name().to_string(),
        None => catalog
            .get(&record.variant)
            .map_or_else(|_| record.variant.clone(), |v| v.display_name.clone()),
    }
}

/// One position of a game as a bystander sees it.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The picture.
    pub view: BoardView,
    /// The move that led here, in the game's notation (`None` at the start).
    pub played: Option<String>,
}

/// Every position of a game, from the start to `upto` (or to the end), each with the move
/// that led to it.
///
/// # Errors
/// [`WatchError::Hidden`] for a Looking-Glass game being played, [`WatchError::NoSuchPly`]
/// for `upto` past the end, and [`WatchError::Variant`] / [`WatchError::Replay`] for a
/// record that does not replay.
pub fn frames(
    record: &GameRecord,
    catalog: &Catalog,
    players: &[String],
    upto: Option<usize>,
) -> Result<Vec<Frame>, WatchError> {
    let last = record.moves.len();
    let upto = upto.unwrap_or(last);
    if upto > last {
        return Err(WatchError::NoSuchPly {
            game: record.id,
            asked: upto,
            last,
        });
    }
    if is_hidden(record) {
        return Err(WatchError::Hidden(record.id));
    }
    positions(
        record.id,
        &record.variant,
        &record.start_state,
        &record.moves[..upto],
        catalog,
        players,
    )
}

/// The frames of a replay picture the service made (it refused what must not be shown),
/// from its `from_ply`.
///
/// # Errors
/// When the moves do not replay.
pub fn replay_frames(picture: &ReplayPicture, catalog: &Catalog) -> Result<Vec<Frame>, WatchError> {
    let mut all = positions(
        picture.game,
        &picture.variant,
        &picture.start_state,
        &picture.moves,
        catalog,
        &picture.players,
    )?;
    Ok(all.split_off(picture.from_ply.min(all.len().saturating_sub(1))))
}

/// The positions from the start through `moves`, unchecked for secrecy.
fn positions(
    id: GameId,
    variant: &str,
    start_state: &str,
    moves: &[String],
    catalog: &Catalog,
    players: &[String],
) -> Result<Vec<Frame>, WatchError> {
    let replay = |ply: usize| WatchError::Replay { game: id, ply };
    let mut out = Vec::with_capacity(moves.len() + 1);
    match GameKind::glass(variant) {
        Some(rules) => {
            let mut g = Glass::replay(glass::variant(), rules, &[]).map_err(|_| replay(0))?;
            let picture = |g: &Glass| BoardPicture {
                game: Some(id),
                diagram: None,
                engine: EngineKind::Glass,
                variant: variant.to_string(),
                state: g.state_text(),
                last_move: None,
                viewer: None,
                players: players.to_vec(),
                clock: None,
            };
            let view = |g: &Glass| picture::board_view(&picture(g), catalog).map_err(|_| replay(0));
            out.push(Frame {
                view: view(&g)?,
                played: None,
            });
            for (i, action) in moves.iter().enumerate() {
                g.apply_action(action).map_err(|_| replay(i + 1))?;
                out.push(Frame {
                    view: view(&g)?,
                    played: Some(action.clone()),
                });
            }
        }
        None => {
            let v = catalog.get(variant).map_err(|_| WatchError::Variant {
                game: id,
                variant: variant.to_string(),
            })?;
            let mut pos: Position = rules::fen::position(&v, start_state).map_err(|_| replay(0))?;
            let frame = |pos: &Position, played| Frame {
                view: picture::view(pos, picture::last_move(pos).as_ref(), None, players),
                played,
            };
            out.push(frame(&pos, None));
            for (i, m) in moves.iter().enumerate() {
                let mv = notation::parse_coord(&pos, m).map_err(|_| replay(i + 1))?;
                let san = notation::san(&pos, mv);
                pos.play_unchecked(mv);
                out.push(frame(&pos, Some(san)));
            }
        }
    }
    Ok(out)
}

/// The clocks of a game at `now_ms` as a bystander sees them: each seat's time left, and the
/// seat whose time runs; `None` without a clock, and for a hidden game (its players' times
/// would tell when each acted).
pub fn clocks(
    record: &GameRecord,
    to_move: usize,
    now_ms: i64,
) -> Option<(Vec<i64>, Option<usize>)> {
    if is_hidden(record) {
        return None;
    }
    let state = record.clock.as_ref()?;
    let control: TimeControl = record.game_options().ok()?.clock;
    if !control.is_some() {
        return None;
    }
    let running = record.status.is_active();
    let at = if running {
        now_ms
    } else {
        state.turn_started_ms
    };
    Some((
        control.left_at(state, to_move, at),
        running.then_some(to_move),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Place, Platform, PlayerId};

    fn record(variant: &str, start: &str, moves: &[&str], status: GameStatus) -> GameRecord {
        GameRecord {
            id: GameId(7),
            variant: variant.into(),
            options: String::new(),
            start_state: start.into(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
            seats: vec![
                PlayerId::new(Platform::Console, "white"),
                PlayerId::new(Platform::Console, "black"),
            ],
            place: Place::room(Platform::Console, "console"),
            status,
            pending_offer: None,
            clock: None,
            version: moves.len() as i64,
            rating_family: None,
            created_at: 0,
            updated_at: 0,
        }
    }

    fn chess_start() -> String {
        let c = Catalog::builtin();
        rules::fen::write(&Position::start(&c.get("chess").unwrap()))
    }

    #[test]
    fn a_board_game_shows_every_position_with_its_move_and_mark() {
        let c = Catalog::builtin();
        let r = record(
            "chess",
            &chess_start(),
            &["e2e4", "e7e5", "g1f3"],
            GameStatus::Active,
        );
        let f = frames(&r, &c, &["a".into(), "b".into()], None).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(f[0].played, None);
        assert!(f[0].view.last_move.is_none());
        assert_eq!(f[3].played.as_deref(), Some("Nf3"));
        assert!(f[3].view.last_move.is_some());
        assert_eq!(frames(&r, &c, &[], Some(1)).unwrap().len(), 2);
        assert_eq!(
            frames(&r, &c, &[], Some(4)).unwrap_err(),
            WatchError::NoSuchPly {
                game: GameId(7),
                asked: 4,
                last: 3
            }
        );
    }

    #[test]
    fn a_looking_glass_game_is_hidden_until_it_ends() {
        let c = Catalog::builtin();
        let moves = ["w setup RNBQKBNR", "b setup RNBQKBNR", "w R:e2e4"];
        let mut r = record(glass::NAME, "", &moves, GameStatus::Active);
        assert!(is_hidden(&r));
        assert_eq!(
            frames(&r, &c, &[], None).unwrap_err(),
            WatchError::Hidden(GameId(7))
        );
        assert!(
            WatchError::Hidden(GameId(7))
                .to_string()
                .contains("when it ends"),
            "says when it can be seen"
        );
        r.status = GameStatus::Aborted;
        let f = frames(&r, &c, &[], None).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(f[3].played.as_deref(), Some("w R:e2e4"));
        assert!(
            f[3].view.boards.iter().all(|b| !b.veiled),
            "the reveal veils nothing"
        );
    }

    #[test]
    fn a_record_that_does_not_replay_says_where() {
        let c = Catalog::builtin();
        let r = record(
            "chess",
            &chess_start(),
            &["e2e4", "e2e4"],
            GameStatus::Active,
        );
        assert_eq!(
            frames(&r, &c, &[], None).unwrap_err(),
            WatchError::Replay {
                game: GameId(7),
                ply: 2
            }
        );
        let r = record("no-such-variant", "", &[], GameStatus::Active);
        assert!(matches!(
            frames(&r, &c, &[], None),
            Err(WatchError::Variant { .. })
        ));
    }
}
