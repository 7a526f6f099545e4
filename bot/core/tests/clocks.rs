//! Clocks through the service on the in-memory store, with a clock that moves only when the
//! test says (issue 16): increments, the flag at the deadline's millisecond, a move in that
//! millisecond, a restart across a deadline, and a week of correspondence with its reminders.

use std::sync::Arc;

use bot_core::{
    Actor, GameService,
    model::{EndReason, GameRecord, GameResult, GameStatus, Place, Platform},
    outbox::{self, Announcement, Announcements},
    reply::{Audience, Reply},
    store::{GameFilter, GameStore, memory::MemoryStore},
    time_control::{DAY_MS, HOUR_MS, MINUTE_MS, ReminderPolicy, SECOND_MS},
};
use rules::Catalog;

mod common;
use common::*;

/// A UTC midnight (day 20834 since the epoch), so the days of the week test are whole.
const T0: i64 = 20_834 * DAY_MS;

type Service = GameService<MemoryStore, ManualClock>;

struct Table {
    svc: Arc<Service>,
    clock: ManualClock,
    news: Announcements,
    place: Place,
    alice: Actor,
    bob: Actor,
}

impl Table {
    fn new() -> Table {
        Table::over(MemoryStore::new(), ManualClock::at(T0))
    }

    /// A service over `store` (a restart: a new service, the same data).
    fn over(store: MemoryStore, clock: ManualClock) -> Table {
        let svc = Arc::new(GameService::new(
            store,
            clock.clone(),
            Arc::new(Catalog::builtin()),
        ));
        let news = Announcements::new(svc.clone(), &[]);
        Table {
            svc,
            clock,
            news,
            place: Place::room(Platform::Matrix, "!room:example.org"),
            alice: actor("alice"),
            bob: actor("bob"),
        }
    }

    /// What `who` is told, delivered as an adapter delivers it (so that the replies are
    /// never sent again as announcements).
    async fn say(&self, who: &Actor, text: &str) -> Vec<Reply> {
        let replies = self.svc.handle_text(who, &self.place, text).await;
        for r in &replies {
            let key = r.key.as_ref().expect("every reply is posted");
            self.svc.settle_mail(key, outbox::Attempt::Delivered).await;
        }
        replies
    }

    /// Alice challenges Bob to chess with `clock`; Bob accepts now. Alice is White.
    async fn start(&self, clock: &str) -> GameRecord {
        self.start_variant("chess", clock).await
    }

    /// [`Table::start`] for another two-player variant.
    async fn start_variant(&self, variant: &str, clock: &str) -> GameRecord {
        let r = self
            .say(
                &self.alice,
                &format!("challenge @bob:example.org {variant} clock {clock}"),
            )
            .await;
        assert!(
            r[0].text.contains(&format!("clock {clock}")),
            "{}",
            r[0].text
        );
        let r = self.say(&self.bob, "accept").await;
        assert!(r[0].text.contains("starts"), "{}", r[0].text);
        self.game().await
    }

    async fn game(&self) -> GameRecord {
        self.svc
            .store()
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .remove(0)
    }

    async fn drain(&mut self) -> Vec<Announcement> {
        let mut all = Vec::new();
        while let Some(a) = self.news.try_next().await {
            all.push(a);
        }
        all
    }
}

#[tokio::test]
async fn real_time_charges_from_the_acknowledged_move_and_adds_the_increment() {
    let t = Table::new();
    let g = t.start("10+5").await;
    let c = g.clock.clone().unwrap();
    assert_eq!(c.turn_started_ms, T0);
    assert_eq!(c.deadline_ms, T0 + 10 * MINUTE_MS);
    // White thinks 30.5 s.
    t.clock.advance(30_500);
    let r = t.say(&t.alice, "e4").await;
    assert!(r[0].text.contains("plays e4"), "{}", r[0].text);
    let c = t.game().await.clock.unwrap();
    assert_eq!(
        c.remaining_ms,
        vec![10 * MINUTE_MS - 30_500 + 5 * SECOND_MS, 10 * MINUTE_MS]
    );
    assert_eq!(
        c.turn_started_ms,
        T0 + 30_500,
        "Black's time runs from White's move"
    );
    // Black thinks 2 s: 9:58 + 5 s.
    t.clock.advance(2_000);
    t.say(&t.bob, "e5").await;
    let c = t.game().await.clock.unwrap();
    assert_eq!(c.remaining_ms[1], 10 * MINUTE_MS - 2_000 + 5 * SECOND_MS);
    assert_eq!(c.deadline_ms, T0 + 32_500 + c.remaining_ms[0]);
    // The board shows both clocks, White's running: 9:34.5 + 1 s thought so far.
    t.clock.advance(1_000);
    let r = t.say(&t.alice, "board").await;
    let pic = r[0].board.as_ref().unwrap();
    assert_eq!(
        pic.clock.as_deref(),
        Some("Clock 10+5 · White 9:33 ⏳ · Black 10:03")
    );
    let text = bot_core::picture::text_board(pic, t.svc.catalog()).unwrap();
    assert!(
        text.ends_with("Clock 10+5 · White 9:33 ⏳ · Black 10:03"),
        "{text}"
    );
    // The picture draws the same line, its running mark in a glyph the embedded font has.
    let view = bot_core::picture::board_view(pic, t.svc.catalog()).unwrap();
    assert_eq!(
        view.caption.as_deref(),
        Some("Clock 10+5 · White 9:33 ◀ · Black 10:03")
    );
    // `games` lists the clock too.
    let r = t.say(&t.alice, "games").await;
    assert!(r[0].text.contains("White 9:33"), "{}", r[0].text);
}

#[tokio::test]
async fn the_flag_falls_exactly_at_the_deadline_and_is_announced_to_room_and_players() {
    let mut t = Table::new();
    let g = t.start("1+0").await;
    let deadline = g.clock.unwrap().deadline_ms;
    let report = t.svc.fire_due(deadline - 1).await.unwrap();
    assert_eq!(report.flagged, 0);
    assert!(t.game().await.status.is_active());
    let report = t.svc.fire_due(deadline).await.unwrap();
    assert_eq!(report.flagged, 1);
    assert_eq!(
        t.game().await.status,
        GameStatus::Finished {
            result: GameResult::Win(1),
            reason: EndReason::Timeout
        }
    );
    let news = t.drain().await;
    assert_eq!(news.len(), 1);
    let a = &news[0];
    assert_eq!(a.place, t.place);
    let room = &a.replies[0];
    assert_eq!(room.audience, Audience::Room);
    assert!(room.text.contains("ran out of time"), "{}", room.text);
    // A flag is a result like any other: the game is rated in the write that ends it.
    assert!(
        room.text
            .contains("Ratings: {0} 1338 (-162), {1} 1662 (+162)."),
        "{}",
        room.text
    );
    assert!(room.mentions.contains(&t.alice.id) && room.mentions.contains(&t.bob.id));
    assert!(room.board.is_some());
    let private: Vec<&Reply> = a.replies[1..].iter().collect();
    assert_eq!(private.len(), 2);
    assert_eq!(private[0].audience, Audience::Private(t.alice.id.clone()));
    assert!(private[0].text.contains("you lose on time"));
    assert_eq!(private[1].audience, Audience::Private(t.bob.id.clone()));
    assert!(private[1].text.contains("you win on time"));
    // The finished game's clock stands at the flag: White 0:00.
    assert_eq!(
        room.board.as_ref().unwrap().clock.as_deref(),
        Some("Clock 1+0 · White 0:00 ⏳ · Black 1:00")
    );
    // Fired once: nothing is due any more.
    assert_eq!(
        t.svc.fire_due(deadline + DAY_MS).await.unwrap(),
        Default::default()
    );
    assert!(t.drain().await.is_empty());
    // And a late move finds no game left to play.
    t.clock.set(deadline + 5);
    let r = t.say(&t.alice, "e4").await;
    assert!(r[0].text.contains("no game in progress"), "{}", r[0].text);
}

#[tokio::test]
async fn a_move_in_the_same_millisecond_as_the_flag_loses_one_before_it_is_played() {
    let t = Table::new();
    let g = t.start("1+0").await;
    let deadline = g.clock.unwrap().deadline_ms;
    // One millisecond before: played, with 1 ms left.
    t.clock.set(deadline - 1);
    let r = t.say(&t.alice, "e4").await;
    assert!(r[0].text.contains("plays e4"), "{}", r[0].text);
    assert_eq!(t.game().await.clock.unwrap().remaining_ms[0], 1);
    // Black's move at his deadline's millisecond: not played; he has lost on time.
    let deadline = t.game().await.clock.unwrap().deadline_ms;
    t.clock.set(deadline);
    let r = t.say(&t.bob, "e5").await;
    assert!(r[0].text.contains("ran out of time"), "{}", r[0].text);
    let g = t.game().await;
    assert_eq!(
        g.moves,
        vec!["e2e4".to_string()],
        "the late move is not stored"
    );
    assert_eq!(
        g.status,
        GameStatus::Finished {
            result: GameResult::Win(0),
            reason: EndReason::Timeout
        }
    );
    assert_eq!(g.clock.unwrap().remaining_ms[1], 0);
}

#[tokio::test]
async fn a_restart_across_a_deadline_charges_the_time_the_bot_was_down() {
    let t = Table::new();
    let g = t.start("5+3").await;
    t.clock.advance(10 * SECOND_MS);
    t.say(&t.alice, "e4").await;
    let deadline = t.game().await.clock.unwrap().deadline_ms;
    let store = t.svc.store().clone();
    drop(t);
    // The bot is down for an hour; a new service over the same store comes up.
    let mut t = Table::over(store, ManualClock::at(deadline + HOUR_MS));
    // A move typed at once is too late: Black lost while the bot was down.
    let r = t.say(&t.bob, "e5").await;
    assert!(r[0].text.contains("ran out of time"), "{}", r[0].text);
    assert_eq!(
        t.game().await.status,
        GameStatus::Finished {
            result: GameResult::Win(0),
            reason: EndReason::Timeout
        }
    );
    // The scheduler finds nothing left to do: fired once, by the move.
    assert_eq!(t.svc.fire_due(t.clock.get()).await.unwrap().flagged, 0);
    assert!(t.drain().await.is_empty());
    assert_eq!(g.id, t.game().await.id);
}

#[tokio::test]
async fn the_scheduler_after_a_restart_fires_a_deadline_that_passed_while_down() {
    let t = Table::new();
    let g = t.start("3d").await;
    let deadline = g.clock.unwrap().deadline_ms;
    let store = t.svc.store().clone();
    drop(t);
    let mut t = Table::over(store, ManualClock::at(deadline + 2 * DAY_MS));
    let report = t.svc.fire_due(t.clock.get()).await.unwrap();
    assert_eq!(report.flagged, 1);
    assert_eq!(t.drain().await.len(), 1);
    assert_eq!(t.svc.fire_due(t.clock.get()).await.unwrap().flagged, 0);
}

#[tokio::test]
async fn a_flag_against_a_lone_king_is_a_draw() {
    let t = Table::new();
    t.start("1+0").await;
    // Replace the start with a position where Black has only his King (the record is the
    // truth; the game is rebuilt from it).
    let g = t.game().await;
    let store = t.svc.store().clone();
    let mut new = bot_core::model::NewGame {
        variant: g.variant.clone(),
        options: g.options.clone(),
        start_state: "4k3/8/8/8/8/8/8/R3K3 w - - 0 1".into(),
        seats: g.seats.clone(),
        place: g.place.clone(),
        rating_family: None,
        clock: g.clock.clone(),
        created_at: 0,
    };
    new.place = Place::room(Platform::Matrix, "!other:example.org");
    let lone = store.create_game(new).await.unwrap();
    // White (to move) flags: Black could never mate, so it is drawn.
    t.svc
        .fire_due(lone.clock.unwrap().deadline_ms)
        .await
        .unwrap();
    let g = store.get_game(lone.id).await.unwrap();
    assert_eq!(
        g.status,
        GameStatus::Finished {
            result: GameResult::Draw,
            reason: EndReason::Timeout
        }
    );
}

#[tokio::test]
async fn malformed_time_controls_are_refused_with_what_to_do() {
    let t = Table::new();
    for (bad, says) in [
        ("10+", "seconds added per move"),
        ("-3d", "cannot be negative"),
        ("999999d", "at most 30 days"),
        ("0+0", "no time"),
        ("soon", "is not a time control"),
    ] {
        let r = t
            .say(
                &t.alice,
                &format!("challenge @bob:example.org chess clock {bad}"),
            )
            .await;
        assert!(r[0].text.contains(says), "{bad}: {}", r[0].text);
        assert!(r[0].text.contains("Accepted:"), "{bad}: {}", r[0].text);
    }
    assert!(
        t.svc
            .store()
            .list_challenges(&Default::default())
            .await
            .unwrap()
            .is_empty(),
        "nothing is stored for a refused challenge"
    );
}

#[tokio::test]
async fn a_takeback_charges_the_running_clock_and_restarts_the_other() {
    let t = Table::new();
    t.start("10+0").await;
    t.clock.advance(60 * SECOND_MS);
    t.say(&t.alice, "e4").await;
    t.clock.advance(20 * SECOND_MS);
    t.say(&t.alice, "takeback").await;
    t.clock.advance(10 * SECOND_MS);
    let r = t.say(&t.bob, "takeback accept").await;
    assert!(r[0].text.contains("taken back"), "{}", r[0].text);
    let c = t.game().await.clock.unwrap();
    assert_eq!(
        c.remaining_ms,
        vec![9 * MINUTE_MS, 10 * MINUTE_MS - 30 * SECOND_MS]
    );
    assert_eq!(c.turn_started_ms, t.clock.get());
    assert_eq!(c.deadline_ms, t.clock.get() + 9 * MINUTE_MS);
}

/// One correspondence game over a week of simulated time, the scheduler running every half
/// hour: the reminders sent, the one throttled, and the flag at the end.
#[tokio::test]
async fn a_correspondence_week_with_reminders_sent_and_throttled() {
    let mut t = Table::new();
    t.start("1d+2d").await;
    let mut sent: Vec<(i64, String)> = Vec::new();
    let mut skipped = 0;
    let mut flagged = Vec::new();
    // Who moves when (hours after the start): White at 37 h, Black at 98 h, White at 128 h;
    // then Black never again.
    let moves = [
        (37, "alice", "e4"),
        (98, "bob", "e5"),
        (128, "alice", "Nf3"),
    ];
    for half_hours in 0..=(7 * 48) {
        let now = T0 + half_hours * 30 * MINUTE_MS;
        t.clock.set(now);
        for (h, who, mv) in moves {
            if now == T0 + h * HOUR_MS {
                let who = if who == "alice" { &t.alice } else { &t.bob };
                let r = t.say(who, mv).await;
                assert!(r[0].text.contains("plays"), "{}", r[0].text);
            }
        }
        let report = t.svc.fire_due(now).await.unwrap();
        skipped += report.skipped_reminders;
        for a in t.drain().await {
            for r in a.replies {
                match &r.audience {
                    Audience::Private(p) if r.text.contains("it is your move") => {
                        sent.push(((now - T0) / (30 * MINUTE_MS), p.user.clone()));
                    }
                    Audience::Room if r.text.contains("ran out of time") => {
                        flagged.push((now - T0) / (30 * MINUTE_MS));
                    }
                    _ => {}
                }
            }
        }
    }
    let hours = |h: f64| (h * 2.0) as i64;
    assert_eq!(
        sent,
        vec![
            // White's first turn (3 days with the reserve): half time.
            (hours(36.0), "@alice:example.org".to_string()),
            // Black's (37 h to 109 h): half time, 12 hours left.
            (hours(73.0), "@bob:example.org".to_string()),
            (hours(97.0), "@bob:example.org".to_string()),
            // White's (98 h to 157 h, 13 h of reserve spent): half time.
            (hours(127.5), "@alice:example.org".to_string()),
            // Black's (128 h to 163 h, 37 h of reserve spent): half time; 12 hours left
            // (151 h) is within 6 hours of it and throttled.
            (hours(145.5), "@bob:example.org".to_string()),
        ]
    );
    assert_eq!(skipped, 1, "the throttled reminder");
    assert_eq!(flagged, vec![hours(163.0)], "Black's time ran out");
}

#[tokio::test]
async fn reminders_respect_remind_off_and_the_daily_cap() {
    let mut t = Table::over(MemoryStore::new(), ManualClock::at(T0));
    t.svc = Arc::new(
        GameService::new(
            t.svc.store().clone(),
            t.clock.clone(),
            Arc::new(Catalog::builtin()),
        )
        .with_reminders(ReminderPolicy {
            daily_cap: 2,
            ..ReminderPolicy::default()
        }),
    );
    t.news = Announcements::new(t.svc.clone(), &[]);
    // Three games in three rooms, Alice to move in each.
    for room in ["!a:x", "!b:x", "!c:x"] {
        t.place = Place::room(Platform::Matrix, room);
        t.start("2d").await;
    }
    let r = t.say(&t.bob, "remind off").await;
    assert!(r[0].text.contains("Reminders off"), "{}", r[0].text);
    t.clock.set(T0 + DAY_MS);
    let report = t.svc.fire_due(t.clock.get()).await.unwrap();
    assert_eq!(
        (report.reminded, report.skipped_reminders),
        (2, 1),
        "the cap"
    );
    assert_eq!(t.drain().await.len(), 2);
    // Alice switches off: her next points pass silently; on again, they come back.
    t.say(&t.alice, "remind off").await;
    t.clock.set(T0 + 36 * HOUR_MS);
    let report = t.svc.fire_due(t.clock.get()).await.unwrap();
    assert_eq!((report.reminded, report.skipped_reminders), (0, 3));
    assert!(t.drain().await.is_empty());
    // A player who never answers is not retried: each point is claimed once.
    let again = t.svc.fire_due(t.clock.get() + HOUR_MS).await.unwrap();
    assert_eq!(again, Default::default());
}

/// A player his platform cannot reach (issue 16: direct messages closed, he left): the
/// first reminder is held by the adapter, and the reminder points after it, in this game and
/// his others, pass without a message until he is back (any command, which shows him what
/// was held); then they resume.
#[tokio::test]
async fn an_unreachable_player_is_not_reminded_again_until_he_is_back() {
    let mut t = Table::new();
    // Two games, Alice to move in each, 1 day and 2 of reserve (3 days to the deadline):
    // reminders at half time (36 h) and with 12 hours left (60 h) after each start.
    t.place = Place::room(Platform::Matrix, "!a:x");
    t.start("1d+2d").await;
    t.clock.set(T0 + 2 * HOUR_MS);
    t.place = Place::room(Platform::Matrix, "!b:x");
    t.start("1d+2d").await;
    t.drain().await;
    let mut sent: Vec<(i64, String)> = Vec::new();
    let mut skipped = Vec::new();
    let mut taken = Vec::new();
    for half_hours in 4..=(66 * 2) {
        let now = T0 + half_hours * 30 * MINUTE_MS;
        t.clock.set(now);
        if now == T0 + 61 * HOUR_MS {
            // Alice is back: any command, and her adapter shows her what was held.
            t.say(&t.alice, "games").await;
            taken = t.svc.take_undelivered(&t.alice.id).await;
        }
        let report = t.svc.fire_due(now).await.unwrap();
        if report.skipped_reminders > 0 {
            skipped.push((now - T0) / HOUR_MS);
        }
        for a in t.drain().await {
            for r in a.replies {
                if let Audience::Private(p) = &r.audience
                    && r.text.contains("it is your move")
                {
                    assert_eq!(p, &t.alice.id);
                    sent.push(((now - T0) / HOUR_MS, a.place.room.clone()));
                    // The adapter: her direct messages are closed, so the first is held.
                    if sent.len() == 1 {
                        t.svc.hold_undelivered(&r).await.unwrap();
                    }
                }
            }
        }
    }
    assert_eq!(
        sent,
        vec![(36, "!a:x".to_string()), (62, "!b:x".to_string())],
        "the first reminder (held), then none while she is away, then the next one"
    );
    assert_eq!(
        skipped,
        vec![38, 60],
        "game B at half time, game A with 12 hours left"
    );
    assert_eq!(
        taken.len(),
        1,
        "the held reminder, shown when she came back"
    );
    assert!(
        taken[0].text.contains("it is your move"),
        "{}",
        taken[0].text
    );
    assert!(
        !t.svc.store().has_held(&t.alice.id).await.unwrap(),
        "the resumed reminder was delivered"
    );
}

impl Table {
    /// What a player types in his direct chat with the bot.
    async fn dm(&self, who: &Actor, text: &str) -> Vec<Reply> {
        let place = Place::direct(Platform::Matrix, format!("!{}-dm:example.org", who.name));
        self.svc.handle_text(who, &place, text).await
    }
}

/// Clocks in Through the Looking-Glass: each player is charged for his own setup (White's
/// clock first), a strike does not pass the turn (his clock runs on), the increment comes
/// with each order that passes it, and each private board shows the clocks.
#[tokio::test]
async fn looking_glass_clocks_charge_setups_and_orders_and_run_on_through_a_strike() {
    let t = Table::new();
    let g = t.start_variant("looking-glass", "10+5").await;
    let c = g.clock.clone().unwrap();
    assert_eq!(
        (c.turn_started_ms, c.deadline_ms),
        (T0, T0 + 10 * MINUTE_MS)
    );
    // Bob chooses first: White's clock still runs (his choice is not his turn's end).
    t.clock.advance(4_000);
    t.dm(&t.bob, "setup 518").await;
    assert_eq!(t.game().await.clock, g.clock, "nothing charged yet");
    // Alice chooses after 10 s: play starts with her move, so the turn does not pass and
    // nothing is charged; her clock runs on from the start.
    t.clock.advance(6_000);
    let r = t.dm(&t.alice, "setup 518").await;
    let c = t.game().await.clock.unwrap();
    assert_eq!(c.remaining_ms, vec![10 * MINUTE_MS, 10 * MINUTE_MS]);
    assert_eq!(
        c.turn_started_ms, T0,
        "White's clock has run since the start"
    );
    let alice_board = r
        .iter()
        .filter(|r| r.audience == Audience::Private(t.alice.id.clone()))
        .find_map(|r| r.board.as_ref())
        .expect("Alice's private board");
    assert_eq!(
        alice_board.clock.as_deref(),
        Some("Clock 10+5 · White 9:50 ⏳ · Black 10:00")
    );
    // Her first order after 20 s more: 30 s charged, 5 s added; Black's time runs.
    t.clock.advance(20_000);
    t.dm(&t.alice, "e2e4").await;
    let c = t.game().await.clock.unwrap();
    assert_eq!(
        c.remaining_ms,
        vec![10 * MINUTE_MS - 30_000 + 5 * SECOND_MS, 10 * MINUTE_MS]
    );
    assert_eq!(c.turn_started_ms, T0 + 30_000);
    // Bob orders blind for the Real world and strikes: still his turn, his clock runs on.
    t.clock.advance(3_000);
    let r = t.dm(&t.bob, "R:a1a2").await;
    assert!(r.iter().any(|r| r.text.contains("strike 1 of 3")), "{r:?}");
    let after_strike = t.game().await.clock.unwrap();
    assert_eq!(after_strike, c, "a strike leaves the clock alone");
    t.clock.advance(2_000);
    t.dm(&t.bob, "e7e5").await;
    let c = t.game().await.clock.unwrap();
    assert_eq!(c.remaining_ms[1], 10 * MINUTE_MS - 5_000 + 5 * SECOND_MS);
    assert_eq!(c.turn_started_ms, T0 + 35_000);
}

/// A Looking-Glass player whose time runs out loses on time, by the scheduler or at his
/// late order; the room, both players and the reveal say so, and a reminder before it shows
/// only his own world.
#[tokio::test]
async fn looking_glass_flags_fall_with_the_reveal_and_reminders_show_only_his_world() {
    let mut t = Table::new();
    t.start_variant("looking-glass", "1d").await;
    t.dm(&t.alice, "setup 518").await;
    t.dm(&t.bob, "setup 518").await;
    t.dm(&t.alice, "e2e4").await;
    let deadline = t.game().await.clock.unwrap().deadline_ms;
    t.drain().await;
    // Half time: Bob is reminded privately, with his own world (the Mirror) only.
    let report = t.svc.fire_due(T0 + 12 * HOUR_MS).await.unwrap();
    assert_eq!(report.reminded, 1, "{report:?}");
    let news = t.drain().await;
    let reminder = &news[0].replies[0];
    assert_eq!(reminder.audience, Audience::Private(t.bob.id.clone()));
    let pic = reminder.board.as_ref().expect("his board");
    assert_eq!(pic.viewer, Some(1));
    assert!(pic.state.starts_with("view b"), "{}", pic.state);
    // The deadline passes: Black loses on time, announced with the reveal.
    let report = t.svc.fire_due(deadline).await.unwrap();
    assert_eq!(report.flagged, 1);
    assert_eq!(
        t.game().await.status,
        GameStatus::Finished {
            result: GameResult::Win(0),
            reason: EndReason::Timeout
        }
    );
    let news = t.drain().await;
    let replies = &news[0].replies;
    assert_eq!(replies[0].audience, Audience::Room);
    assert!(
        replies[0].text.contains("(Black) ran out of time"),
        "{}",
        replies[0].text
    );
    assert!(
        replies
            .iter()
            .any(|r| r.audience == Audience::Private(t.bob.id.clone())
                && r.text.contains("you lose on time"))
    );
    assert!(
        replies
            .iter()
            .any(|r| r.audience == Audience::Private(t.alice.id.clone())
                && r.text.contains("you win on time"))
    );
    assert!(
        replies
            .iter()
            .any(|r| r.audience == Audience::Room && r.text.contains("back rank")),
        "the reveal: {replies:?}"
    );

    // Another game: an order typed after the deadline is not played; the flag falls instead.
    let t = Table::new();
    t.start_variant("looking-glass", "1d").await;
    t.dm(&t.alice, "setup 518").await;
    let deadline = t.game().await.clock.unwrap().deadline_ms;
    t.clock.set(deadline);
    let r = t.dm(&t.bob, "setup 518").await;
    assert!(
        r.iter().any(|r| r.text.contains("(Black) ran out of time")),
        "{r:?}"
    );
    assert_eq!(t.game().await.moves, vec!["w setup RNBQKBNR"]);
}

/// Four players on a clock: a player whose time runs out is out (his resignation move,
/// stored like one) and the others play on, the next one's time running from then; when one
/// opponent is left, the flag ends the game on time for him.
#[tokio::test]
async fn a_four_player_flag_puts_the_player_out_and_the_last_one_wins_on_time() {
    let mut t = Table::new();
    let r = t
        .say(
            &t.alice,
            "challenge @bob:example.org @c:example.org @d:example.org dcb-balanced-4p clock 1+0",
        )
        .await;
    assert!(r[0].text.contains("clock 1+0"), "{}", r[0].text);
    for p in [&t.bob, &actor("c"), &actor("d")] {
        t.say(p, "accept").await;
    }
    let g = t.game().await;
    assert_eq!(g.seats.len(), 4);
    let first = g.clock.clone().unwrap();
    assert_eq!(first.remaining_ms, vec![MINUTE_MS; 4]);
    t.drain().await;
    // The first seat's minute passes: he is out, the second seat's minute starts then.
    let report = t.svc.fire_due(first.deadline_ms).await.unwrap();
    assert_eq!(report.flagged, 1, "{report:?}");
    let g = t.game().await;
    assert!(g.status.is_active());
    assert_eq!(g.moves.len(), 1, "the resignation move: {:?}", g.moves);
    let second = g.clock.clone().unwrap();
    assert_eq!(second.turn_started_ms, first.deadline_ms);
    assert_eq!(second.deadline_ms, first.deadline_ms + MINUTE_MS);
    let news = t.drain().await;
    let room = &news[0].replies[0];
    assert!(
        room.text.contains("ran out of time and is out"),
        "{}",
        room.text
    );
    assert!(room.board.is_some());
    assert!(
        news[0].replies[1..]
            .iter()
            .any(|r| r.audience == Audience::Private(g.seats[0].clone())
                && r.text.contains("you are out")),
        "{news:?}"
    );
    // The second seat's minute passes too: two players are left.
    let report = t.svc.fire_due(second.deadline_ms).await.unwrap();
    assert_eq!(report.flagged, 1);
    let third = t.game().await.clock.unwrap();
    assert!(t.game().await.status.is_active());
    t.drain().await;
    let report = t.svc.fire_due(third.deadline_ms).await.unwrap();
    assert_eq!(report.flagged, 1);
    let g = t.game().await;
    assert_eq!(
        g.status,
        GameStatus::Finished {
            result: GameResult::Win(3),
            reason: EndReason::Timeout
        },
        "the last one left wins on time"
    );
    let news = t.drain().await;
    assert!(
        news[0].replies[0].text.contains("wins"),
        "{}",
        news[0].replies[0].text
    );
}
