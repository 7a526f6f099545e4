//! The conformance suite every [`GameStore`] backend runs: written once, so that the memory
//! store the service is tested on and the SQL stores it runs on cannot drift apart.
//!
//! A backend's test calls [`run_all`] with a factory that returns a fresh, empty store for each
//! check (a new `sqlite::memory:` pool, a new file in a temp dir, a new Postgres schema). The
//! checks are also public one by one, for a backend that wants to run a single one while
//! debugging. They panic on failure, naming what differed; [`run_all`] prints each check's
//! name first, so a failure shows which check it was.
//!
//! Available with the `conformance` cargo feature (and in the core's own tests). Needs a tokio
//! runtime: the race checks spawn tasks; give it a multi-threaded one so they really race.

use std::{future::Future, sync::Arc};

use tokio::sync::Barrier;

use super::{ChallengeFilter, GameFilter, GameStore, Missing, StoreError};
use crate::analysis::{
    AnalysisRequest, AnalysisStart, AnalysisState, GameAnalysis, Mistake, SeatReport, Severity,
};
use crate::model::{
    ChallengeId, ChallengeResolution, ChallengeStatus, GameId, GameStatus, GameUpdate, HeldMessage,
    NewChallenge, NewGame, Offer, OfferKind, Place, Platform, PlayerId, RatingRecord, SeatSet,
};
use crate::outbox::{Backlog, Claim, Envelope, Handle, Keys, MailState, Origin, Settled, Tell};
use crate::rating::Standing;
use crate::reply::{Audience, Reply};

/// The name and the function of one check.
type Check<S> = (&'static str, fn(S) -> BoxedCheck);
type BoxedCheck = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

macro_rules! checks {
    ($($name:ident),* $(,)?) => {
        /// The names of all checks, in the order [`run_all`] runs them.
        pub const CHECKS: &[&str] = &[$(stringify!($name)),*];

        fn all_checks<S: GameStore + Clone + 'static>() -> Vec<Check<S>> {
            vec![$((stringify!($name), |s: S| Box::pin(async move { $name(&s).await }))),*]
        }
    };
}

checks!(
    players_round_trip,
    challenge_round_trip,
    challenge_listing_filters,
    resolving_a_challenge,
    accepting_creates_the_game_atomically,
    racing_accepts_create_one_game,
    invitations_round_trip,
    every_invitee_must_accept,
    racing_last_acceptances_create_one_game,
    game_round_trip,
    moves_keep_their_order,
    append_sets_status_and_offer,
    stale_versions_conflict_and_change_nothing,
    racing_appends_apply_once,
    reads_see_consistent_snapshots,
    update_game_leaves_moves_alone,
    takeback_truncates,
    game_listing_filters,
    unknown_ids_are_not_found,
    invalid_requests_are_rejected,
    finishing_a_rated_game_rates_it_once,
    unrated_aborted_and_lone_games_rate_nobody,
    leaderboards_order_and_places,
    racing_results_for_one_player_lose_no_update,
    clocks_round_trip_and_wake_only_active_games,
    due_games_are_listed_most_overdue_first,
    reminder_settings_and_daily_caps,
    racing_flags_finish_a_game_once,
    held_messages_are_kept_in_order_bounded_and_taken_once,
    racing_takes_get_each_held_message_once,
    has_held_says_whether_messages_wait_for_a_player,
    the_first_message_held_from_a_game_is_told_as_first,
    outbox_posts_claims_and_settles,
    outbox_rides_on_game_writes_and_not_on_failed_ones,
    outbox_claims_run_out_and_are_released,
    outbox_is_claimed_once_by_racing_senders,
    analyses_start_progress_finish_and_cache,
    stale_analyses_are_taken_over_and_only_by_one,
    racing_analysis_starts_start_one,
);

/// Run every check, each on a fresh store from `make`.
///
/// # Panics
///
/// On the first failing check, after printing its name.
pub async fn run_all<S, F, Fut>(mut make: F)
where
    S: GameStore + Clone + 'static,
    F: FnMut() -> Fut,
    Fut: Future<Output = S>,
{
    for (name, check) in all_checks::<S>() {
        println!("conformance: {name}");
        let store = make().await;
        check(store).await;
    }
    println!("conformance: all {} checks passed", CHECKS.len());
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const T0: i64 = 1_780_000_000;

fn alice() -> PlayerId {
    PlayerId::new(Platform::Matrix, "@alice:example.org")
}

fn bob() -> PlayerId {
    PlayerId::new(Platform::Matrix, "@bob:example.org")
}

fn carol() -> PlayerId {
    PlayerId::new(Platform::Discord, "112233445566778899")
}

fn dave() -> PlayerId {
    PlayerId::new(Platform::Discord, "998877665544332211")
}

fn room_a() -> Place {
    Place::room(Platform::Matrix, "!a:example.org")
}

fn room_b() -> Place {
    Place::room(Platform::Matrix, "!b:example.org")
}

fn new_challenge(
    challenger: PlayerId,
    challenged: Option<PlayerId>,
    place: Place,
    at: i64,
) -> NewChallenge {
    NewChallenge {
        challenger,
        challenged,
        more_invited: Vec::new(),
        variant: "capablanca".into(),
        options: "clock = \"none\"\n".into(),
        place,
        created_at: at,
    }
}

fn new_game(seats: Vec<PlayerId>, place: Place, at: i64) -> NewGame {
    NewGame {
        variant: "chess".into(),
        options: "{\"rated\":false}".into(),
        start_state: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        seats,
        place,
        rating_family: None,
        clock: None,
        created_at: at,
    }
}

fn rated_game(seats: Vec<PlayerId>, at: i64) -> NewGame {
    NewGame {
        rating_family: Some("chess".into()),
        ..new_game(seats, room_a(), at)
    }
}

fn finished(result: &str, reason: &str) -> GameStatus {
    GameStatus::Finished {
        result: crate::model::GameResult::parse(result).expect("a result"),
        reason: crate::model::EndReason::parse(reason).expect("a reason"),
    }
}

fn offer(kind: OfferKind, by_seat: u8) -> GameUpdate {
    GameUpdate {
        status: GameStatus::Active,
        pending_offer: Some(Offer::new(kind, by_seat)),
        clock: None,
        tell: Default::default(),
    }
}

fn expect_not_found<T: std::fmt::Debug>(what: &str, result: super::Result<T>, expected: Missing) {
    match result {
        Err(StoreError::NotFound(m)) => assert_eq!(m, expected, "{what}"),
        other => panic!("{what}: expected NotFound({expected}), got {other:?}"),
    }
}

fn expect_conflict<T: std::fmt::Debug>(
    what: &str,
    result: super::Result<T>,
    game: GameId,
    expected: i64,
    actual: i64,
) {
    match result {
        Err(StoreError::Conflict {
            game: g,
            expected: e,
            actual: a,
        }) => assert_eq!((g, e, a), (game, expected, actual), "{what}"),
        other => panic!("{what}: expected Conflict {{ {expected} vs {actual} }}, got {other:?}"),
    }
}

fn ids<T, I: Ord + Copy>(items: &[T], id: impl Fn(&T) -> I) -> Vec<I> {
    items.iter().map(id).collect()
}

// ---------------------------------------------------------------------------------------------
// Players

/// Upsert creates, then renames while keeping `created_at`; the same name again writes
/// nothing; the same user id on two platforms is two players.
pub async fn players_round_trip<S: GameStore>(store: &S) {
    let created = store.upsert_player(&alice(), "Alice", T0).await.unwrap();
    assert_eq!(created.id, alice());
    assert_eq!(created.display_name, "Alice");
    assert_eq!((created.created_at, created.updated_at), (T0, T0));
    assert_eq!(store.get_player(&alice()).await.unwrap(), created);

    // Seen again under the same name: nothing changes (no write on every command).
    let seen = store
        .upsert_player(&alice(), "Alice", T0 + 7)
        .await
        .unwrap();
    assert_eq!(seen, created, "an unchanged name is not an update");

    let renamed = store
        .upsert_player(&alice(), "Alice Ł. ♞", T0 + 9)
        .await
        .unwrap();
    assert_eq!(renamed.display_name, "Alice Ł. ♞");
    assert_eq!((renamed.created_at, renamed.updated_at), (T0, T0 + 9));
    assert_eq!(store.get_player(&alice()).await.unwrap(), renamed);

    // Same user string, other platform: a different player.
    let twin = PlayerId::new(Platform::Console, "@alice:example.org");
    let other = store
        .upsert_player(&twin, "console alice", T0)
        .await
        .unwrap();
    assert_eq!(other.display_name, "console alice");
    assert_eq!(store.get_player(&alice()).await.unwrap(), renamed);
}

// ---------------------------------------------------------------------------------------------
// Challenges

/// Every field of a challenge survives storage, directed and open, with and without a thread.
pub async fn challenge_round_trip<S: GameStore>(store: &S) {
    let directed = store
        .create_challenge(new_challenge(
            alice(),
            Some(bob()),
            room_a().in_thread("$thread:example.org"),
            T0,
        ))
        .await
        .unwrap();
    assert_eq!(directed.challenger, alice());
    assert_eq!(directed.challenged, Some(bob()));
    assert_eq!(directed.variant, "capablanca");
    assert_eq!(directed.options, "clock = \"none\"\n");
    assert_eq!(directed.place, room_a().in_thread("$thread:example.org"));
    assert_eq!(directed.status, ChallengeStatus::Pending);
    assert_eq!((directed.created_at, directed.updated_at), (T0, T0));
    assert_eq!(store.get_challenge(directed.id).await.unwrap(), directed);

    let open = store
        .create_challenge(new_challenge(carol(), None, room_b(), T0 + 1))
        .await
        .unwrap();
    assert_ne!(open.id, directed.id);
    assert_eq!(open.challenged, None);
    assert_eq!(open.place.thread, None);
    assert_eq!(store.get_challenge(open.id).await.unwrap(), open);
}

/// Listing by place (a room covers its threads), by player (made or received), pending only,
/// and combinations; newest first.
pub async fn challenge_listing_filters<S: GameStore>(store: &S) {
    let in_thread = room_a().in_thread("t1");
    let c1 = store
        .create_challenge(new_challenge(alice(), Some(bob()), room_a(), T0))
        .await
        .unwrap();
    let c2 = store
        .create_challenge(new_challenge(carol(), None, in_thread.clone(), T0 + 1))
        .await
        .unwrap();
    let c3 = store
        .create_challenge(new_challenge(bob(), Some(carol()), room_b(), T0 + 2))
        .await
        .unwrap();
    let c4 = store
        .create_challenge(new_challenge(dave(), Some(alice()), room_a(), T0 + 3))
        .await
        .unwrap();
    store
        .resolve_challenge(c4.id, ChallengeResolution::Declined, T0 + 4)
        .await
        .unwrap();

    let list = |f: ChallengeFilter| async move {
        let found = store.list_challenges(&f).await.unwrap();
        ids(&found, |c| c.id)
    };
    assert_eq!(
        list(ChallengeFilter::default()).await,
        vec![c4.id, c3.id, c2.id, c1.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().at(room_a())).await,
        vec![c4.id, c2.id, c1.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().at(in_thread.clone())).await,
        vec![c2.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().at(Place::room(Platform::Discord, "!a:example.org"))).await,
        Vec::<ChallengeId>::new(),
        "the same room id on another platform is another room"
    );
    assert_eq!(
        list(ChallengeFilter::default().of(alice())).await,
        vec![c4.id, c1.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().of(carol())).await,
        vec![c3.id, c2.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().pending()).await,
        vec![c3.id, c2.id, c1.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().of(alice()).pending()).await,
        vec![c1.id]
    );
    assert_eq!(
        list(ChallengeFilter::default().at(room_a()).of(bob()).pending()).await,
        vec![c1.id]
    );
    // Listed records are whole records.
    let listed = store
        .list_challenges(&ChallengeFilter::default().of(dave()))
        .await
        .unwrap();
    assert_eq!(listed, vec![store.get_challenge(c4.id).await.unwrap()]);
}

/// A pending challenge can be declined, cancelled or expired exactly once.
pub async fn resolving_a_challenge<S: GameStore>(store: &S) {
    for (i, resolution) in [
        ChallengeResolution::Declined,
        ChallengeResolution::Cancelled,
        ChallengeResolution::Expired,
    ]
    .into_iter()
    .enumerate()
    {
        let c = store
            .create_challenge(new_challenge(alice(), Some(bob()), room_a(), T0))
            .await
            .unwrap();
        let at = T0 + 10 + i as i64;
        let resolved = store.resolve_challenge(c.id, resolution, at).await.unwrap();
        assert_eq!(resolved.status, ChallengeStatus::from(resolution));
        assert_eq!((resolved.created_at, resolved.updated_at), (T0, at));
        assert_eq!(store.get_challenge(c.id).await.unwrap(), resolved);

        match store
            .resolve_challenge(c.id, ChallengeResolution::Cancelled, at + 1)
            .await
        {
            Err(StoreError::ChallengeClosed { id, status }) => {
                assert_eq!((id, status), (c.id, resolution.into()));
            }
            other => panic!("resolving twice: expected ChallengeClosed, got {other:?}"),
        }
        match store
            .accept_challenge(c.id, &bob(), new_game(vec![alice(), bob()], room_a(), at))
            .await
        {
            Err(StoreError::ChallengeClosed { .. }) => {}
            other => panic!("accepting a resolved challenge: got {other:?}"),
        }
        assert_eq!(store.get_challenge(c.id).await.unwrap(), resolved);
    }
    assert!(
        store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .is_empty(),
        "no game from resolved challenges"
    );
}

/// Accepting marks the challenge and creates its game together; an open challenge records who
/// accepted it; a second accept fails and creates nothing.
pub async fn accepting_creates_the_game_atomically<S: GameStore>(store: &S) {
    let open = store
        .create_challenge(new_challenge(alice(), None, room_a().in_thread("t"), T0))
        .await
        .unwrap();
    let seats = vec![bob(), alice()];
    let (challenge, game) = store
        .accept_challenge(
            open.id,
            &bob(),
            new_game(seats.clone(), open.place.clone(), T0 + 7),
        )
        .await
        .unwrap();
    assert_eq!(challenge.status, ChallengeStatus::Accepted(game.id));
    assert_eq!(
        challenge.challenged,
        Some(bob()),
        "open challenge filled in"
    );
    assert_eq!(challenge.updated_at, T0 + 7);
    assert_eq!(store.get_challenge(open.id).await.unwrap(), challenge);
    assert_eq!(game.seats, seats);
    assert_eq!(game.place, open.place);
    assert_eq!(game.status, GameStatus::Active);
    assert_eq!((game.version, game.created_at), (0, T0 + 7));
    assert!(game.moves.is_empty());
    assert_eq!(store.get_game(game.id).await.unwrap(), game);

    match store
        .accept_challenge(
            open.id,
            &carol(),
            new_game(vec![carol(), alice()], room_a(), T0 + 8),
        )
        .await
    {
        Err(StoreError::ChallengeClosed { id, status }) => {
            assert_eq!((id, status), (open.id, ChallengeStatus::Accepted(game.id)));
        }
        other => panic!("second accept: expected ChallengeClosed, got {other:?}"),
    }
    let games = store.list_games(&GameFilter::default()).await.unwrap();
    assert_eq!(ids(&games, |g| g.id), vec![game.id]);

    // A directed challenge keeps its challenged player.
    let directed = store
        .create_challenge(new_challenge(carol(), Some(dave()), room_b(), T0))
        .await
        .unwrap();
    let (challenge, _) = store
        .accept_challenge(
            directed.id,
            &dave(),
            new_game(vec![carol(), dave()], room_b(), T0 + 1),
        )
        .await
        .unwrap();
    assert_eq!(challenge.challenged, Some(dave()));

    // A failing game creation (no seats) leaves the challenge pending.
    let third = store
        .create_challenge(new_challenge(alice(), Some(bob()), room_b(), T0))
        .await
        .unwrap();
    assert!(matches!(
        store
            .accept_challenge(third.id, &bob(), new_game(vec![], room_b(), T0 + 1))
            .await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.get_challenge(third.id).await.unwrap(), third);
    assert_eq!(
        store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .len(),
        2
    );
}

/// Several tasks accept one open challenge at once: exactly one wins, one game exists.
pub async fn racing_accepts_create_one_game<S: GameStore + Clone + 'static>(store: &S) {
    const RACERS: usize = 6;
    let c = store
        .create_challenge(new_challenge(alice(), None, room_a(), T0))
        .await
        .unwrap();
    let barrier = Arc::new(Barrier::new(RACERS));
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = store.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                let by = PlayerId::new(Platform::Console, format!("racer{i}"));
                barrier.wait().await;
                store
                    .accept_challenge(c.id, &by, new_game(vec![alice(), by.clone()], room_a(), T0))
                    .await
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok((challenge, game)) => winners.push((challenge, game)),
            Err(StoreError::ChallengeClosed { .. }) => {}
            Err(e) => panic!("racing accept failed unexpectedly: {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one accept wins");
    let (challenge, game) = &winners[0];
    assert_eq!(store.get_challenge(c.id).await.unwrap(), *challenge);
    assert_eq!(challenge.challenged.as_ref(), game.seats.get(1));
    let games = store.list_games(&GameFilter::default()).await.unwrap();
    assert_eq!(ids(&games, |g| g.id), vec![game.id], "exactly one game");
}

/// A challenge to three players keeps them in order, is listed for each of them, and starts
/// with nobody's acceptance; a challenge inviting someone twice, or further players without a
/// first, is refused.
pub async fn invitations_round_trip<S: GameStore>(store: &S) {
    let mut new = new_challenge(alice(), Some(bob()), room_a(), T0);
    new.more_invited = vec![carol(), dave()];
    let c = store.create_challenge(new.clone()).await.unwrap();
    assert_eq!(c.challenged, Some(bob()));
    assert_eq!(c.more_invited, vec![carol(), dave()]);
    assert!(c.accepted.is_empty());
    assert_eq!(c.waiting_for(), vec![bob(), carol(), dave()]);
    assert_eq!(store.get_challenge(c.id).await.unwrap(), c);
    for p in [alice(), bob(), carol(), dave()] {
        let listed = store
            .list_challenges(&ChallengeFilter::default().of(p.clone()).pending())
            .await
            .unwrap();
        assert_eq!(listed, vec![c.clone()], "listed for {p}");
    }
    // A two-player challenge beside it reads back with no further invitees.
    let two = store
        .create_challenge(new_challenge(carol(), Some(dave()), room_b(), T0 + 1))
        .await
        .unwrap();
    assert!(two.more_invited.is_empty() && two.accepted.is_empty());
    assert_eq!(
        ids(
            &store
                .list_challenges(&ChallengeFilter::default().of(dave()))
                .await
                .unwrap(),
            |c| c.id
        ),
        vec![two.id, c.id]
    );
    let mut twice = new.clone();
    twice.more_invited = vec![carol(), bob()];
    assert!(matches!(
        store.create_challenge(twice).await,
        Err(StoreError::Invalid(_))
    ));
    let mut headless = new;
    headless.challenged = None;
    assert!(matches!(
        store.create_challenge(headless).await,
        Err(StoreError::Invalid(_))
    ));
}

/// Each invitee's acceptance is recorded on its own; the last one creates the game with the
/// challenge accepted in the same step; accepting twice changes nothing; someone not invited
/// is refused; a challenge declined after some acceptances is closed for the rest.
pub async fn every_invitee_must_accept<S: GameStore>(store: &S) {
    let mut new = new_challenge(alice(), Some(bob()), room_a(), T0);
    new.more_invited = vec![carol(), dave()];
    let c = store.create_challenge(new.clone()).await.unwrap();
    let seats = vec![alice(), bob(), carol(), dave()];
    let game = |at| new_game(seats.clone(), room_a(), at);

    // Not through the two-player door: nothing changes.
    assert!(matches!(
        store.accept_challenge(c.id, &bob(), game(T0 + 1)).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.get_challenge(c.id).await.unwrap(), c);
    let (after, none) = store
        .accept_invitation(c.id, &carol(), game(T0 + 1))
        .await
        .unwrap();
    assert!(none.is_none());
    assert_eq!(after.status, ChallengeStatus::Pending);
    assert_eq!(after.accepted, vec![carol()]);
    assert_eq!(after.updated_at, T0 + 1);
    assert_eq!(store.get_challenge(c.id).await.unwrap(), after);

    let (again, none) = store
        .accept_invitation(c.id, &carol(), game(T0 + 2))
        .await
        .unwrap();
    assert!(none.is_none());
    assert_eq!(
        again.accepted,
        vec![carol()],
        "a second accept is no change"
    );

    assert!(matches!(
        store
            .accept_invitation(c.id, &PlayerId::new(Platform::Console, "eve"), game(T0 + 2))
            .await,
        Err(StoreError::Invalid(_))
    ));

    let (after, none) = store
        .accept_invitation(c.id, &bob(), game(T0 + 3))
        .await
        .unwrap();
    assert!(none.is_none());
    assert_eq!(after.accepted, vec![bob(), carol()], "in seat order");
    assert!(
        store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .is_empty()
    );

    let (done, created) = store
        .accept_invitation(c.id, &dave(), game(T0 + 4))
        .await
        .unwrap();
    let created = created.expect("the last acceptance creates the game");
    assert_eq!(done.status, ChallengeStatus::Accepted(created.id));
    assert_eq!(done.accepted, vec![bob(), carol(), dave()]);
    assert_eq!(created.seats, seats);
    assert_eq!(store.get_challenge(c.id).await.unwrap(), done);
    assert_eq!(store.get_game(created.id).await.unwrap(), created);
    assert!(matches!(
        store.accept_invitation(c.id, &dave(), game(T0 + 5)).await,
        Err(StoreError::ChallengeClosed { .. })
    ));

    // Declined after one acceptance: closed for everyone.
    let d = store.create_challenge(new).await.unwrap();
    store
        .accept_invitation(d.id, &bob(), game(T0 + 6))
        .await
        .unwrap();
    store
        .resolve_challenge(d.id, ChallengeResolution::Declined, T0 + 7)
        .await
        .unwrap();
    assert!(matches!(
        store.accept_invitation(d.id, &carol(), game(T0 + 8)).await,
        Err(StoreError::ChallengeClosed { .. })
    ));
    assert_eq!(
        store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .len(),
        1
    );
    // A two-player challenge accepted this way starts at once.
    let two = store
        .create_challenge(new_challenge(alice(), Some(bob()), room_b(), T0))
        .await
        .unwrap();
    let (two, g) = store
        .accept_invitation(two.id, &bob(), new_game(vec![alice(), bob()], room_b(), T0))
        .await
        .unwrap();
    assert!(matches!(two.status, ChallengeStatus::Accepted(id) if Some(id) == g.map(|g| g.id)));
}

/// The three invitees of a four-seat challenge accept at the same moment, several times
/// over: every acceptance is kept, and exactly one game is created.
pub async fn racing_last_acceptances_create_one_game<S: GameStore + Clone + 'static>(store: &S) {
    for round in 0..3 {
        let mut new = new_challenge(alice(), Some(bob()), room_a(), T0 + round);
        new.more_invited = vec![carol(), dave()];
        let c = store.create_challenge(new).await.unwrap();
        let barrier = Arc::new(Barrier::new(3));
        let tasks: Vec<_> = [bob(), carol(), dave()]
            .into_iter()
            .map(|by| {
                let store = store.clone();
                let barrier = barrier.clone();
                tokio::spawn(async move {
                    barrier.wait().await;
                    store
                        .accept_invitation(
                            c.id,
                            &by,
                            new_game(vec![alice(), bob(), carol(), dave()], room_a(), T0),
                        )
                        .await
                })
            })
            .collect();
        let mut games = Vec::new();
        for task in tasks {
            let (_, game) = task.await.unwrap().expect("every acceptance is kept");
            games.extend(game);
        }
        assert_eq!(games.len(), 1, "exactly one game in round {round}");
        let c = store.get_challenge(c.id).await.unwrap();
        assert_eq!(c.status, ChallengeStatus::Accepted(games[0].id));
        assert_eq!(c.accepted, vec![bob(), carol(), dave()]);
    }
}

// ---------------------------------------------------------------------------------------------
// Games

/// Every field of a new game survives storage, including four seats in order.
pub async fn game_round_trip<S: GameStore>(store: &S) {
    let seats = vec![dave(), alice(), carol(), bob()];
    let mut new = new_game(seats.clone(), room_b().in_thread("⚔ thread"), T0);
    new.variant = "four-player".into();
    new.options = "teams = true\nname = \"Ünïcödé 🐉\"\n".into();
    new.start_state = "x".repeat(600);
    let game = store.create_game(new.clone()).await.unwrap();
    assert_eq!(game.variant, new.variant);
    assert_eq!(game.options, new.options);
    assert_eq!(game.start_state, new.start_state);
    assert_eq!(game.seats, seats);
    assert_eq!(game.place, new.place);
    assert!(game.moves.is_empty());
    assert_eq!(game.status, GameStatus::Active);
    assert_eq!(game.pending_offer, None);
    assert_eq!(game.version, 0);
    assert_eq!((game.created_at, game.updated_at), (T0, T0));
    assert_eq!(store.get_game(game.id).await.unwrap(), game);
    assert_eq!(game.seat_of(&carol()), Some(2));

    let second = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    assert_ne!(second.id, game.id);
    assert_eq!(store.get_game(game.id).await.unwrap(), game);
}

/// Moves come back in the order they were appended, each append bumps the version by one, and
/// moves of different games stay apart.
pub async fn moves_keep_their_order<S: GameStore>(store: &S) {
    let a = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let b = store
        .create_game(new_game(vec![carol(), dave()], room_a(), T0))
        .await
        .unwrap();
    let mut expected = Vec::new();
    for ply in 0..120_i64 {
        // Moves whose text order differs from their ply order, and multi-digit ranks.
        let mv = format!(
            "{}{}-z{}",
            char::from(b'a' + (ply % 26) as u8),
            120 - ply,
            ply
        );
        let version = store
            .append_move(a.id, ply, &mv, &GameUpdate::active(), T0 + ply)
            .await
            .unwrap();
        assert_eq!(version, ply + 1);
        expected.push(mv);
        if ply % 10 == 0 {
            let v = ply / 10;
            store
                .append_move(b.id, v, &format!("b{v}"), &GameUpdate::active(), T0)
                .await
                .unwrap();
        }
    }
    let got = store.get_game(a.id).await.unwrap();
    assert_eq!(got.moves, expected);
    assert_eq!(got.version, 120);
    assert_eq!(got.updated_at, T0 + 119);
    assert_eq!(got.created_at, T0);
    let got_b = store.get_game(b.id).await.unwrap();
    assert_eq!(
        got_b.moves,
        (0..12).map(|v| format!("b{v}")).collect::<Vec<_>>()
    );
    assert_eq!(got_b.version, 12);
}

/// The update passed with a move is stored with it: offers, a finished game.
pub async fn append_sets_status_and_offer<S: GameStore>(store: &S) {
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let with_offer = offer(OfferKind::Draw, 1);
    store
        .append_move(g.id, 0, "e2e4", &with_offer, T0 + 1)
        .await
        .unwrap();
    let got = store.get_game(g.id).await.unwrap();
    assert_eq!(got.pending_offer, with_offer.pending_offer);
    assert_eq!(got.status, GameStatus::Active);

    let mate = GameUpdate {
        status: finished("1-0", "checkmate"),
        pending_offer: None,
        clock: None,
        tell: Default::default(),
    };
    let v = store
        .append_move(g.id, 1, "f7f6", &mate, T0 + 2)
        .await
        .unwrap();
    assert_eq!(v, 2);
    let got = store.get_game(g.id).await.unwrap();
    assert_eq!(got.status, finished("1-0", "checkmate"));
    assert_eq!(got.pending_offer, None);
    assert_eq!(got.moves, vec!["e2e4", "f7f6"]);
    assert_eq!(got.updated_at, T0 + 2);
}

/// A write against a stale version fails with the versions involved and changes nothing.
pub async fn stale_versions_conflict_and_change_nothing<S: GameStore>(store: &S) {
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    store
        .append_move(g.id, 0, "e2e4", &GameUpdate::active(), T0 + 1)
        .await
        .unwrap();
    store
        .append_move(g.id, 1, "e7e5", &GameUpdate::active(), T0 + 2)
        .await
        .unwrap();
    let before = store.get_game(g.id).await.unwrap();
    let resign = GameUpdate {
        status: finished("0-1", "resignation"),
        pending_offer: None,
        clock: None,
        tell: Default::default(),
    };
    for stale in [0, 1, 3, -1] {
        expect_conflict(
            "append",
            store
                .append_move(g.id, stale, "d2d4", &resign, T0 + 9)
                .await,
            g.id,
            stale,
            2,
        );
        expect_conflict(
            "update",
            store.update_game(g.id, stale, &resign, T0 + 9).await,
            g.id,
            stale,
            2,
        );
        expect_conflict(
            "truncate",
            store.truncate_moves(g.id, stale, 0, &resign, T0 + 9).await,
            g.id,
            stale,
            2,
        );
    }
    assert_eq!(store.get_game(g.id).await.unwrap(), before);
}

/// Several tasks append with the same expected version at once: exactly one applies, the others
/// get `Conflict`, and the game holds one move per round.
pub async fn racing_appends_apply_once<S: GameStore + Clone + 'static>(store: &S) {
    const RACERS: usize = 8;
    const ROUNDS: i64 = 5;
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let mut winners = Vec::new();
    for round in 0..ROUNDS {
        let barrier = Arc::new(Barrier::new(RACERS));
        let tasks: Vec<_> = (0..RACERS)
            .map(|i| {
                let store = store.clone();
                let barrier = barrier.clone();
                tokio::spawn(async move {
                    let mv = format!("r{round}m{i}");
                    barrier.wait().await;
                    let result = store
                        .append_move(g.id, round, &mv, &GameUpdate::active(), T0 + round)
                        .await;
                    (mv, result)
                })
            })
            .collect();
        let mut won = Vec::new();
        for task in tasks {
            match task.await.unwrap() {
                (mv, Ok(version)) => {
                    assert_eq!(version, round + 1);
                    won.push(mv);
                }
                (
                    _,
                    Err(StoreError::Conflict {
                        expected, actual, ..
                    }),
                ) => {
                    assert_eq!((expected, actual), (round, round + 1));
                }
                (_, Err(e)) => panic!("racing append failed unexpectedly: {e}"),
            }
        }
        assert_eq!(won.len(), 1, "round {round}: exactly one append wins");
        winners.extend(won);
    }
    let got = store.get_game(g.id).await.unwrap();
    assert_eq!(got.moves, winners);
    assert_eq!(got.version, ROUNDS);
}

/// While one task appends, loads from other tasks always see a version and a move list that
/// belong together (here: as many moves as the version, since only appends happen).
pub async fn reads_see_consistent_snapshots<S: GameStore + Clone + 'static>(store: &S) {
    const MOVES: i64 = 150;
    const READERS: usize = 3;
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let store = store.clone();
            let done = done.clone();
            tokio::spawn(async move {
                let mut reads = 0_u64;
                while !done.load(std::sync::atomic::Ordering::Relaxed) || reads == 0 {
                    let game = store.get_game(g.id).await.unwrap();
                    assert_eq!(game.moves.len() as i64, game.version, "torn read");
                    for (ply, mv) in game.moves.iter().enumerate() {
                        assert_eq!(*mv, format!("s{ply}"), "torn read at ply {ply}");
                    }
                    reads += 1;
                    tokio::task::yield_now().await;
                }
                reads
            })
        })
        .collect();
    for ply in 0..MOVES {
        store
            .append_move(g.id, ply, &format!("s{ply}"), &GameUpdate::active(), T0)
            .await
            .unwrap();
        tokio::task::yield_now().await;
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    for reader in readers {
        assert!(reader.await.unwrap() > 0);
    }
    assert_eq!(store.get_game(g.id).await.unwrap().version, MOVES);
}

/// Status and offer changes are versioned and leave the moves alone.
pub async fn update_game_leaves_moves_alone<S: GameStore>(store: &S) {
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    store
        .append_move(g.id, 0, "e2e4", &GameUpdate::active(), T0 + 1)
        .await
        .unwrap();
    let steps = [
        offer(OfferKind::Draw, 0),
        GameUpdate::active(),
        offer(OfferKind::Takeback, 1),
        GameUpdate {
            status: finished("1/2-1/2", "agreement"),
            pending_offer: None,
            clock: None,
            tell: Default::default(),
        },
        GameUpdate {
            status: GameStatus::Aborted,
            pending_offer: Some(Offer {
                kind: OfferKind::Draw,
                by_seat: 3,
                agreed: SeatSet::EMPTY.with(0).with(2),
            }),
            clock: None,
            tell: Default::default(),
        },
    ];
    for (i, update) in steps.iter().enumerate() {
        let expected = 1 + i as i64;
        let v = store
            .update_game(g.id, expected, update, T0 + 10 + i as i64)
            .await
            .unwrap();
        assert_eq!(v, expected + 1);
        let got = store.get_game(g.id).await.unwrap();
        assert_eq!(got.status, update.status);
        assert_eq!(got.pending_offer, update.pending_offer);
        assert_eq!(got.moves, vec!["e2e4"]);
        assert_eq!(got.version, v);
        assert_eq!(got.updated_at, T0 + 10 + i as i64);
    }
}

/// A takeback keeps a prefix of the moves; later moves continue from there; keeping all is a
/// plain versioned update; keeping more than exist is invalid and changes nothing.
pub async fn takeback_truncates<S: GameStore>(store: &S) {
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let moves: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
    for (i, mv) in moves.iter().enumerate() {
        store
            .append_move(g.id, i as i64, mv, &offer(OfferKind::Takeback, 0), T0)
            .await
            .unwrap();
    }
    let v = store
        .truncate_moves(g.id, 10, 8, &GameUpdate::active(), T0 + 1)
        .await
        .unwrap();
    assert_eq!(v, 11);
    let got = store.get_game(g.id).await.unwrap();
    assert_eq!(got.moves, moves[..8]);
    assert_eq!(got.pending_offer, None);

    let v = store
        .append_move(g.id, v, "new8", &GameUpdate::active(), T0 + 2)
        .await
        .unwrap();
    let got = store.get_game(g.id).await.unwrap();
    assert_eq!(got.moves.len(), 9);
    assert_eq!(got.moves[8], "new8");

    let v2 = store
        .truncate_moves(g.id, v, 9, &offer(OfferKind::Draw, 1), T0 + 3)
        .await
        .unwrap();
    assert_eq!(v2, v + 1);
    assert_eq!(store.get_game(g.id).await.unwrap().moves.len(), 9);

    let before = store.get_game(g.id).await.unwrap();
    assert!(matches!(
        store
            .truncate_moves(g.id, v2, 10, &GameUpdate::active(), T0 + 4)
            .await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.get_game(g.id).await.unwrap(), before);

    let v3 = store
        .truncate_moves(g.id, v2, 0, &GameUpdate::active(), T0 + 5)
        .await
        .unwrap();
    let got = store.get_game(g.id).await.unwrap();
    assert!(got.moves.is_empty());
    store
        .append_move(g.id, v3, "again", &GameUpdate::active(), T0 + 6)
        .await
        .unwrap();
    assert_eq!(store.get_game(g.id).await.unwrap().moves, vec!["again"]);
}

/// Listing by place (a room covers its threads), by player (any seat), active only, with a
/// limit, and combinations; newest first, whole records with their moves.
pub async fn game_listing_filters<S: GameStore>(store: &S) {
    let thread = room_a().in_thread("t1");
    let g1 = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let g2 = store
        .create_game(new_game(vec![carol(), alice()], thread.clone(), T0 + 1))
        .await
        .unwrap();
    let g3 = store
        .create_game(new_game(
            vec![bob(), carol(), dave(), bob()],
            room_b(),
            T0 + 2,
        ))
        .await
        .unwrap();
    let g4 = store
        .create_game(new_game(vec![dave(), carol()], room_a(), T0 + 3))
        .await
        .unwrap();
    store
        .append_move(g1.id, 0, "e2e4", &GameUpdate::active(), T0 + 4)
        .await
        .unwrap();
    store
        .append_move(g2.id, 0, "d2d4", &GameUpdate::active(), T0 + 4)
        .await
        .unwrap();
    store
        .append_move(g2.id, 1, "d7d5", &GameUpdate::active(), T0 + 4)
        .await
        .unwrap();
    store
        .update_game(
            g4.id,
            0,
            &GameUpdate {
                status: GameStatus::Aborted,
                pending_offer: None,
                clock: None,
                tell: Default::default(),
            },
            T0 + 5,
        )
        .await
        .unwrap();
    store
        .update_game(
            g1.id,
            1,
            &GameUpdate {
                status: finished("0-1", "resignation"),
                pending_offer: None,
                clock: None,
                tell: Default::default(),
            },
            T0 + 6,
        )
        .await
        .unwrap();

    let list = |f: GameFilter| async move {
        let found = store.list_games(&f).await.unwrap();
        ids(&found, |g| g.id)
    };
    assert_eq!(
        list(GameFilter::default()).await,
        vec![g4.id, g3.id, g2.id, g1.id]
    );
    assert_eq!(
        list(GameFilter::default().at(room_a())).await,
        vec![g4.id, g2.id, g1.id]
    );
    assert_eq!(list(GameFilter::default().at(thread)).await, vec![g2.id]);
    assert_eq!(
        list(GameFilter::default().of(alice())).await,
        vec![g2.id, g1.id]
    );
    assert_eq!(
        list(GameFilter::default().of(bob())).await,
        vec![g3.id, g1.id],
        "a player in two seats is listed once"
    );
    assert_eq!(
        list(GameFilter::default().active()).await,
        vec![g3.id, g2.id]
    );
    assert_eq!(
        list(GameFilter::default().of(carol()).active()).await,
        vec![g3.id, g2.id]
    );
    assert_eq!(
        list(GameFilter::default().at(room_a()).of(carol()).active()).await,
        vec![g2.id]
    );
    assert_eq!(
        list(GameFilter::default().limit(2)).await,
        vec![g4.id, g3.id]
    );
    assert_eq!(
        list(GameFilter::default().of(alice()).limit(1)).await,
        vec![g2.id]
    );
    assert_eq!(
        list(GameFilter::default().limit(0)).await,
        Vec::<GameId>::new()
    );
    assert_eq!(
        list(GameFilter::default().of(PlayerId::new(Platform::Console, "nobody"))).await,
        Vec::<GameId>::new()
    );

    let listed = store.list_games(&GameFilter::default()).await.unwrap();
    for game in &listed {
        assert_eq!(*game, store.get_game(game.id).await.unwrap());
    }
    assert_eq!(listed[2].moves, vec!["d2d4", "d7d5"]);
}

/// Every operation on an unknown id reports which record is missing.
pub async fn unknown_ids_are_not_found<S: GameStore>(store: &S) {
    let real = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let game = GameId(real.id.0 + 1000);
    let challenge = ChallengeId(4242);
    let up = GameUpdate::active();
    let missing_game = || Missing::Game(game);
    expect_not_found("get_game", store.get_game(game).await, missing_game());
    expect_not_found(
        "append_move",
        store.append_move(game, 0, "e2e4", &up, T0).await,
        missing_game(),
    );
    expect_not_found(
        "update_game",
        store.update_game(game, 0, &up, T0).await,
        missing_game(),
    );
    expect_not_found(
        "truncate_moves",
        store.truncate_moves(game, 0, 0, &up, T0).await,
        missing_game(),
    );
    expect_not_found(
        "get_challenge",
        store.get_challenge(challenge).await,
        Missing::Challenge(challenge),
    );
    expect_not_found(
        "resolve_challenge",
        store
            .resolve_challenge(challenge, ChallengeResolution::Declined, T0)
            .await,
        Missing::Challenge(challenge),
    );
    expect_not_found(
        "accept_challenge",
        store
            .accept_challenge(
                challenge,
                &bob(),
                new_game(vec![alice(), bob()], room_a(), T0),
            )
            .await,
        Missing::Challenge(challenge),
    );
    expect_not_found(
        "get_player",
        store.get_player(&dave()).await,
        Missing::Player(dave()),
    );
    assert_eq!(
        store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .len(),
        1,
        "the failed accept created no game"
    );
}

/// Requests no backend can store are refused the same way everywhere.
pub async fn invalid_requests_are_rejected<S: GameStore>(store: &S) {
    assert!(matches!(
        store.create_game(new_game(vec![], room_a(), T0)).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(
        store
            .list_games(&GameFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
    let g = store
        .create_game(new_game(vec![alice()], room_a(), T0))
        .await
        .unwrap();
    assert!(matches!(
        store
            .truncate_moves(g.id, 0, 1, &GameUpdate::active(), T0)
            .await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.get_game(g.id).await.unwrap(), g);
}

// ---------------------------------------------------------------------------------------------
// Ratings

/// The rating of `player` in chess, as stored.
async fn chess_rating<S: GameStore>(store: &S, player: &PlayerId) -> Option<RatingRecord> {
    store
        .ratings_of(player)
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.family == "chess")
}

/// A rated game that finishes is rated in the same write, by exactly the shared rule; later
/// writes to the finished game (an offer cleared, a repeated result) never rate it again,
/// whichever write path finishes it.
pub async fn finishing_a_rated_game_rates_it_once<S: GameStore>(store: &S) {
    store.upsert_player(&alice(), "Alice", T0).await.unwrap();
    let g = store
        .create_game(rated_game(vec![alice(), bob()], T0))
        .await
        .unwrap();
    assert_eq!(g.rating_family.as_deref(), Some("chess"));
    assert_eq!(
        store.get_game(g.id).await.unwrap().rating_family.as_deref(),
        Some("chess")
    );
    assert!(
        chess_rating(store, &alice()).await.is_none(),
        "unrated before"
    );
    let mate = GameUpdate {
        status: finished("1-0", "checkmate"),
        pending_offer: None,
        clock: None,
        tell: Default::default(),
    };
    let v = store
        .append_move(g.id, 0, "e2e4", &mate, T0 + 10)
        .await
        .unwrap();
    let (a, b) = crate::rating::settle(
        Standing::new_player(T0 + 10),
        Standing::new_player(T0 + 10),
        crate::rating::Score::Win,
        T0 + 10,
    );
    let alice_now = chess_rating(store, &alice()).await.expect("alice rated");
    let bob_now = chess_rating(store, &bob()).await.expect("bob rated");
    assert_eq!(alice_now.name, "Alice");
    assert_eq!(bob_now.name, "", "a player never seen has no name");
    for (got, want) in [(&alice_now.standing, a), (&bob_now.standing, b)] {
        assert!(
            (got.rating.rating - want.rating.rating).abs() < 1e-9,
            "{got:?} {want:?}"
        );
        assert!((got.rating.deviation - want.rating.deviation).abs() < 1e-9);
        assert!((got.rating.volatility - want.rating.volatility).abs() < 1e-12);
        assert_eq!(
            (got.games, got.wins, got.draws, got.losses, got.updated_at),
            (
                want.games,
                want.wins,
                want.draws,
                want.losses,
                want.updated_at
            )
        );
    }
    let changes = store.rating_changes(g.id).await.unwrap();
    assert_eq!(changes.len(), 2);
    assert_eq!((changes[0].seat, &changes[0].player), (0, &alice()));
    assert!((changes[0].before - 1500.0).abs() < 1e-9 && changes[0].after > 1500.0);
    assert!(changes[1].after < 1500.0);
    // Writing the finished status again, by every path, rates nothing more.
    let v = store.update_game(g.id, v, &mate, T0 + 20).await.unwrap();
    store
        .truncate_moves(g.id, v, 1, &mate, T0 + 30)
        .await
        .unwrap();
    assert_eq!(
        chess_rating(store, &alice()).await.unwrap().standing.games,
        1
    );
    assert_eq!(store.rating_changes(g.id).await.unwrap(), changes);
    // A second game, finished by update_game (a resignation), rates against the new ratings.
    let g2 = store
        .create_game(rated_game(vec![bob(), alice()], T0 + 40))
        .await
        .unwrap();
    store
        .update_game(
            g2.id,
            0,
            &GameUpdate {
                status: finished("1/2-1/2", "agreement"),
                pending_offer: None,
                clock: None,
                tell: Default::default(),
            },
            T0 + 50,
        )
        .await
        .unwrap();
    let alice_after = chess_rating(store, &alice()).await.unwrap().standing;
    assert_eq!(
        (alice_after.games, alice_after.wins, alice_after.draws),
        (2, 1, 1)
    );
    assert!(
        alice_after.rating.rating < alice_now.standing.rating.rating,
        "a draw with the lower-rated player costs Alice"
    );
    // A stale write that loses its race rates nothing.
    let g3 = store
        .create_game(rated_game(vec![alice(), bob()], T0 + 60))
        .await
        .unwrap();
    let stale = store.update_game(g3.id, 7, &mate, T0 + 70).await;
    assert!(
        matches!(stale, Err(StoreError::Conflict { .. })),
        "{stale:?}"
    );
    assert!(store.rating_changes(g3.id).await.unwrap().is_empty());
    assert_eq!(
        chess_rating(store, &alice()).await.unwrap().standing.games,
        2
    );
}

/// Games without a family, aborted games, unfinished ones, games of four and games against
/// oneself leave every rating alone.
pub async fn unrated_aborted_and_lone_games_rate_nobody<S: GameStore>(store: &S) {
    let win = GameUpdate {
        status: finished("1-0", "resignation"),
        pending_offer: None,
        clock: None,
        tell: Default::default(),
    };
    let unrated = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    store
        .update_game(unrated.id, 0, &win, T0 + 1)
        .await
        .unwrap();
    let aborted = store
        .create_game(rated_game(vec![alice(), bob()], T0))
        .await
        .unwrap();
    store
        .update_game(
            aborted.id,
            0,
            &GameUpdate {
                status: GameStatus::Aborted,
                pending_offer: None,
                clock: None,
                tell: Default::default(),
            },
            T0 + 1,
        )
        .await
        .unwrap();
    let alone = store
        .create_game(rated_game(vec![alice(), alice()], T0))
        .await
        .unwrap();
    store.update_game(alone.id, 0, &win, T0 + 1).await.unwrap();
    let four = store
        .create_game(rated_game(vec![alice(), bob(), carol(), dave()], T0))
        .await
        .unwrap();
    store.update_game(four.id, 0, &win, T0 + 1).await.unwrap();
    let ongoing = store
        .create_game(rated_game(vec![alice(), bob()], T0))
        .await
        .unwrap();
    store
        .append_move(ongoing.id, 0, "e2e4", &GameUpdate::active(), T0 + 1)
        .await
        .unwrap();
    for p in [alice(), bob(), carol(), dave()] {
        assert!(store.ratings_of(&p).await.unwrap().is_empty(), "{p}");
    }
    for g in [unrated.id, aborted.id, alone.id, four.id, ongoing.id] {
        assert!(store.rating_changes(g).await.unwrap().is_empty());
    }
    let board = store
        .leaderboard(Platform::Matrix, "chess", 10)
        .await
        .unwrap();
    assert!(board.is_empty());
    assert_eq!(
        store.leaderboard_place(&alice(), "chess").await.unwrap(),
        None
    );
}

/// Leaderboards list one platform's players of one family: established ratings before
/// provisional ones, each by rating; a player's place counts the same way.
pub async fn leaderboards_order_and_places<S: GameStore>(store: &S) {
    let matrix = |n: usize| PlayerId::new(Platform::Matrix, format!("@p{n}:example.org"));
    let mut at = T0;
    // p0 and p1 play many games, p0 winning two in three (both become established); p2 beats
    // p3 once (both provisional).
    let mut play = async |white: PlayerId, black: PlayerId, family: Option<&str>| {
        at += 100;
        let g = store
            .create_game(NewGame {
                rating_family: family.map(str::to_owned),
                ..new_game(vec![white, black], room_a(), at)
            })
            .await
            .unwrap();
        store
            .update_game(
                g.id,
                0,
                &GameUpdate {
                    status: finished("1-0", "checkmate"),
                    pending_offer: None,
                    clock: None,
                    tell: Default::default(),
                },
                at,
            )
            .await
            .unwrap();
    };
    for i in 0..30 {
        if i % 3 == 2 {
            play(matrix(1), matrix(0), Some("chess")).await;
        } else {
            play(matrix(0), matrix(1), Some("chess")).await;
        }
    }
    play(matrix(2), matrix(3), Some("chess")).await;
    play(matrix(2), matrix(3), Some("toulousain")).await;
    play(carol(), dave(), Some("chess")).await;
    let board = store
        .leaderboard(Platform::Matrix, "chess", 10)
        .await
        .unwrap();
    let order: Vec<&str> = board.iter().map(|r| r.player.user.as_str()).collect();
    let established: Vec<bool> = board
        .iter()
        .map(|r| !r.standing.rating.is_provisional())
        .collect();
    assert_eq!(
        order,
        [
            "@p0:example.org",
            "@p1:example.org",
            "@p2:example.org",
            "@p3:example.org"
        ],
        "established first, then provisional, each by rating"
    );
    assert_eq!(established, [true, true, false, false]);
    assert!(
        board[2].standing.rating.rating > board[0].standing.rating.rating,
        "the provisional winner's rating is higher, yet he is listed after"
    );
    assert!(board.iter().all(|r| r.family == "chess"));
    let top2 = store
        .leaderboard(Platform::Matrix, "chess", 2)
        .await
        .unwrap();
    assert_eq!(top2, board[..2].to_vec());
    for (i, r) in board.iter().enumerate() {
        assert_eq!(
            store.leaderboard_place(&r.player, "chess").await.unwrap(),
            Some(i as u32 + 1),
            "{}",
            r.player
        );
    }
    assert_eq!(
        store.leaderboard_place(&carol(), "chess").await.unwrap(),
        Some(1),
        "Discord's leaderboard is its own"
    );
    assert_eq!(
        store
            .leaderboard_place(&matrix(0), "toulousain")
            .await
            .unwrap(),
        None
    );
    let p2 = store.ratings_of(&matrix(2)).await.unwrap();
    assert_eq!(
        p2.iter().map(|r| r.family.as_str()).collect::<Vec<_>>(),
        ["chess", "toulousain"]
    );
}

/// Many rated games involving one player finish at once, from several tasks: every result
/// counts in his tally (no two read the same old rating and overwrite each other).
pub async fn racing_results_for_one_player_lose_no_update<S: GameStore + Clone + 'static>(
    store: &S,
) {
    const GAMES: usize = 12;
    let opponent = |n: usize| PlayerId::new(Platform::Matrix, format!("@o{n}:example.org"));
    let mut ids = Vec::new();
    for n in 0..GAMES {
        let seats = if n % 2 == 0 {
            vec![alice(), opponent(n)]
        } else {
            vec![opponent(n), alice()]
        };
        ids.push(store.create_game(rated_game(seats, T0)).await.unwrap().id);
    }
    let barrier = Arc::new(Barrier::new(GAMES));
    let tasks: Vec<_> = ids
        .into_iter()
        .map(|id| {
            let store = store.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                store
                    .update_game(
                        id,
                        0,
                        &GameUpdate {
                            status: finished("1/2-1/2", "agreement"),
                            pending_offer: None,
                            clock: None,
                            tell: Default::default(),
                        },
                        T0 + 5,
                    )
                    .await
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().expect("each result is stored");
    }
    let alice_now = chess_rating(store, &alice()).await.unwrap().standing;
    assert_eq!(
        (alice_now.games, alice_now.draws),
        (GAMES as u32, GAMES as u32)
    );
}

// ---------------------------------------------------------------------------------------------
// Clocks (issue 16)

fn clock(deadline_ms: i64, wake_ms: i64) -> crate::time_control::ClockState {
    crate::time_control::ClockState {
        remaining_ms: vec![600_000, 599_999],
        turn_started_ms: deadline_ms - 600_000,
        deadline_ms,
        wake_ms,
        reminded: 1,
        last_reminder_ms: Some(deadline_ms - 1),
    }
}

/// A game with a clock whose next wake is `wake_ms`.
async fn clocked_game<S: GameStore>(store: &S, wake_ms: i64) -> crate::model::GameRecord {
    let mut new = new_game(vec![alice(), bob()], room_a(), T0);
    new.options = "colour=first clock=10+5".into();
    new.clock = Some(clock(wake_ms, wake_ms));
    store.create_game(new).await.unwrap()
}

/// The clock comes back as written, moves and offers keep it unless they write one, and a
/// game that is no longer active is never due again.
pub async fn clocks_round_trip_and_wake_only_active_games<S: GameStore>(store: &S) {
    let g = clocked_game(store, 5_000).await;
    assert_eq!(g.clock, Some(clock(5_000, 5_000)));
    assert_eq!(store.get_game(g.id).await.unwrap().clock, g.clock);
    let plain = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    assert_eq!(store.get_game(plain.id).await.unwrap().clock, None);
    // An offer without a clock keeps the stored one.
    store
        .update_game(g.id, 0, &offer(OfferKind::Draw, 0), T0 + 1)
        .await
        .unwrap();
    assert_eq!(store.get_game(g.id).await.unwrap().clock, g.clock);
    // A move writes the new one.
    let later = clock(9_000, 7_000);
    store
        .append_move(
            g.id,
            1,
            "e2e4",
            &GameUpdate::active().with_clock(Some(later.clone())),
            T0 + 2,
        )
        .await
        .unwrap();
    let read = store.get_game(g.id).await.unwrap();
    assert_eq!(read.clock, Some(later.clone()));
    assert_eq!(
        store.list_games(&GameFilter::default()).await.unwrap()[1].clock,
        Some(later.clone()),
        "listings carry the clock too"
    );
    assert_eq!(store.due_games(6_999, 10).await.unwrap(), vec![]);
    assert_eq!(store.due_games(7_000, 10).await.unwrap(), vec![g.id]);
    // A takeback writes its clock as well.
    let back = clock(20_000, 20_000);
    store
        .truncate_moves(
            g.id,
            2,
            0,
            &GameUpdate::active().with_clock(Some(back.clone())),
            T0 + 3,
        )
        .await
        .unwrap();
    assert_eq!(store.get_game(g.id).await.unwrap().clock, Some(back));
    assert_eq!(store.due_games(19_999, 10).await.unwrap(), vec![]);
    // Finished: the clock is kept to be shown, but never due again.
    store
        .update_game(
            g.id,
            3,
            &GameUpdate {
                status: finished("0-1", "timeout"),
                pending_offer: None,
                clock: None,
                tell: Default::default(),
            },
            T0 + 4,
        )
        .await
        .unwrap();
    let read = store.get_game(g.id).await.unwrap();
    assert!(read.clock.is_some());
    assert_eq!(store.due_games(i64::MAX, 10).await.unwrap(), vec![]);
}

/// Due games come most overdue first, only those due, at most `limit`.
pub async fn due_games_are_listed_most_overdue_first<S: GameStore>(store: &S) {
    let late = clocked_game(store, 3_000).await;
    let early = clocked_game(store, 1_000).await;
    let future = clocked_game(store, 9_000).await;
    assert_eq!(
        store.due_games(5_000, 10).await.unwrap(),
        vec![early.id, late.id]
    );
    assert_eq!(store.due_games(5_000, 1).await.unwrap(), vec![early.id]);
    assert_eq!(
        store.due_games(9_000, 10).await.unwrap(),
        vec![early.id, late.id, future.id]
    );
}

/// `remind on|off` is stored per player (on by default), and the daily count stops at the
/// cap and starts again the next day.
pub async fn reminder_settings_and_daily_caps<S: GameStore>(store: &S) {
    assert!(matches!(
        store.set_reminders(&alice(), false, T0).await,
        Err(StoreError::NotFound(Missing::Player(_)))
    ));
    assert!(matches!(
        store.count_reminder(&alice(), 1, 5).await,
        Err(StoreError::NotFound(Missing::Player(_)))
    ));
    let p = store.upsert_player(&alice(), "Alice", T0).await.unwrap();
    assert!(p.reminders, "reminders are on unless switched off");
    let p = store.set_reminders(&alice(), false, T0 + 1).await.unwrap();
    assert!(!p.reminders);
    assert!(!store.get_player(&alice()).await.unwrap().reminders);
    // A new name keeps the setting.
    let p = store
        .upsert_player(&alice(), "Alicia", T0 + 2)
        .await
        .unwrap();
    assert!(!p.reminders);
    assert!(
        store
            .set_reminders(&alice(), true, T0 + 3)
            .await
            .unwrap()
            .reminders
    );
    store.upsert_player(&bob(), "Bob", T0).await.unwrap();
    for _ in 0..2 {
        assert!(store.count_reminder(&alice(), 100, 2).await.unwrap());
    }
    assert!(!store.count_reminder(&alice(), 100, 2).await.unwrap());
    assert!(
        store.count_reminder(&bob(), 100, 2).await.unwrap(),
        "per player"
    );
    assert!(
        store.count_reminder(&alice(), 101, 2).await.unwrap(),
        "a new day"
    );
}

/// Two writers flagging one game at the version they read: exactly one finishes it.
pub async fn racing_flags_finish_a_game_once<S: GameStore + Clone + 'static>(store: &S) {
    let g = clocked_game(store, 1_000).await;
    let barrier = Arc::new(Barrier::new(2));
    let mut tasks = Vec::new();
    for winner in ["1-0", "0-1"] {
        let (store, barrier) = (store.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store
                .update_game(
                    g.id,
                    0,
                    &GameUpdate {
                        status: finished(winner, "timeout"),
                        pending_offer: None,
                        clock: None,
                        tell: Default::default(),
                    },
                    T0 + 1,
                )
                .await
        }));
    }
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(v) => {
                assert_eq!(v, 1);
                ok += 1;
            }
            Err(StoreError::Conflict { .. }) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(store.due_games(i64::MAX, 10).await.unwrap(), vec![]);
}

fn held(to: PlayerId, n: usize) -> HeldMessage {
    let mentioned = if to.platform == Platform::Matrix {
        bob()
    } else {
        dave()
    };
    HeldMessage {
        to,
        game: n.is_multiple_of(2).then_some(GameId(n as i64)),
        text: format!("report {n}: {{0}} moved"),
        mentions: vec![mentioned],
        with_board: n.is_multiple_of(3),
        at: T0 + n as i64,
    }
}

/// Messages held for a player come back whole, oldest first, at most
/// [`HeldMessage::PER_PLAYER`] of them (the newest), once; other players' stay.
pub async fn held_messages_are_kept_in_order_bounded_and_taken_once<S: GameStore>(store: &S) {
    assert_eq!(store.take_held(&alice()).await.unwrap(), vec![]);
    let extra = 3;
    for n in 0..HeldMessage::PER_PLAYER + extra {
        store.hold_message(held(alice(), n)).await.unwrap();
    }
    store.hold_message(held(carol(), 99)).await.unwrap();
    let taken = store.take_held(&alice()).await.unwrap();
    let expected: Vec<HeldMessage> = (extra..HeldMessage::PER_PLAYER + extra)
        .map(|n| held(alice(), n))
        .collect();
    assert_eq!(taken, expected);
    assert_eq!(
        store.take_held(&alice()).await.unwrap(),
        vec![],
        "taken once"
    );
    assert_eq!(
        store.take_held(&carol()).await.unwrap(),
        vec![held(carol(), 99)]
    );
    // A mention on another platform is refused, and nothing is held.
    let mut foreign = held(alice(), 1);
    foreign.mentions = vec![PlayerId::new(Platform::Discord, "42")];
    assert!(matches!(
        store.hold_message(foreign).await,
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(store.take_held(&alice()).await.unwrap(), vec![]);
}

/// Four takers at once for one player's held messages: each message reaches exactly one.
pub async fn racing_takes_get_each_held_message_once<S: GameStore + Clone + 'static>(store: &S) {
    for n in 0..10 {
        store.hold_message(held(alice(), n)).await.unwrap();
    }
    let barrier = Arc::new(Barrier::new(4));
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let (store, barrier) = (store.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            store.take_held(&alice()).await.unwrap()
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort_by_key(|m| m.at);
    assert_eq!(all, (0..10).map(|n| held(alice(), n)).collect::<Vec<_>>());
}

/// `has_held` is true exactly while messages wait for the player: from the first held until
/// they are taken, and for him only.
pub async fn has_held_says_whether_messages_wait_for_a_player<S: GameStore>(store: &S) {
    assert!(!store.has_held(&alice()).await.unwrap(), "nothing held yet");
    store.hold_message(held(alice(), 1)).await.unwrap();
    store.hold_message(held(alice(), 2)).await.unwrap();
    assert!(store.has_held(&alice()).await.unwrap());
    assert!(
        !store.has_held(&carol()).await.unwrap(),
        "not another player's"
    );
    assert!(
        store.has_held(&alice()).await.unwrap(),
        "asking takes nothing"
    );
    assert_eq!(store.take_held(&alice()).await.unwrap().len(), 2);
    assert!(!store.has_held(&alice()).await.unwrap(), "taken");
    // A refused message leaves nothing held.
    let mut foreign = held(alice(), 3);
    foreign.mentions = vec![PlayerId::new(Platform::Discord, "42")];
    assert!(store.hold_message(foreign).await.is_err());
    assert!(!store.has_held(&alice()).await.unwrap());
}

/// `hold_message` says whether a message is the first held for its player from its game (or
/// the first of no game) since he last took them: the room is told once per game, not once
/// per report.
pub async fn the_first_message_held_from_a_game_is_told_as_first<S: GameStore>(store: &S) {
    // Held 2 and 4 are of games 2 and 4; 1 and 3 of no game.
    assert!(
        store.hold_message(held(alice(), 2)).await.unwrap(),
        "first of game 2"
    );
    assert!(
        !store.hold_message(held(alice(), 2)).await.unwrap(),
        "game 2 again"
    );
    assert!(
        store.hold_message(held(alice(), 4)).await.unwrap(),
        "first of game 4"
    );
    assert!(
        store.hold_message(held(alice(), 1)).await.unwrap(),
        "first of no game"
    );
    assert!(
        !store.hold_message(held(alice(), 3)).await.unwrap(),
        "no game again"
    );
    assert!(
        store.hold_message(held(carol(), 2)).await.unwrap(),
        "another player's first"
    );
    store.take_held(&alice()).await.unwrap();
    assert!(
        store.hold_message(held(alice(), 2)).await.unwrap(),
        "read: news again"
    );
}

// ---------------------------------------------------------------------------------------------
// The outbox

fn envelopes(keys: &Keys, place: &Place, texts: &[&str]) -> Vec<Envelope> {
    texts
        .iter()
        .map(|t| Envelope {
            key: keys.next(),
            place: place.clone(),
            origin: Origin::Command {
                actor: alice(),
                handle: None,
            },
            reply: Reply::room(*t).mention(bob()),
            part: 0,
        })
        .collect()
}

fn claim(owner: &str, until_ms: i64) -> Claim {
    Claim {
        owner: owner.into(),
        until_ms,
    }
}

const MS: i64 = T0 * 1000;

/// Posted envelopes come back whole, oldest first, only on their platform; a claimed one
/// is not due until its claim runs out; a delivered one never again; a later one when its
/// time comes, counting the attempt and keeping the handle it was given.
pub async fn outbox_posts_claims_and_settles<S: GameStore>(store: &S) {
    let keys = Keys::new(1);
    let posted = envelopes(&keys, &room_a(), &["one", "two", "three"]);
    store.post(&posted, None, MS).await.unwrap();
    store.post(&posted[..1], None, MS + 5).await.unwrap();
    let mine = envelopes(&keys, &room_a(), &["mine"]);
    store
        .post(&mine, Some(&claim("p1", MS + 60_000)), MS)
        .await
        .unwrap();
    let discord = envelopes(&keys, &Place::room(Platform::Discord, "1"), &["elsewhere"]);
    store.post(&discord, None, MS).await.unwrap();
    assert_eq!(
        store.backlog().await.unwrap(),
        Backlog {
            waiting: 5,
            oldest_ms: Some(MS)
        }
    );

    let got = store
        .claim_due(Platform::Matrix, &claim("p2", MS + 1_000), MS, 2)
        .await
        .unwrap();
    assert_eq!(got.len(), 2, "at most the limit");
    assert_eq!(got[0].envelope, posted[0], "an envelope comes back whole");
    assert_eq!(got[1].envelope.key, posted[1].key, "oldest first");
    assert_eq!((got[0].attempts, got[0].posted_ms), (0, MS));
    let rest = store
        .claim_due(Platform::Matrix, &claim("p2", MS + 1_000), MS, 10)
        .await
        .unwrap();
    assert_eq!(
        rest.iter().map(|e| &e.envelope.key).collect::<Vec<_>>(),
        vec![&posted[2].key],
        "claimed entries, by anyone, are not due; the other platform's are not offered"
    );

    store
        .settle(&posted[0].key, &Settled::Delivered, MS)
        .await
        .unwrap();
    let handle = Handle {
        token: "app:token".into(),
        until_ms: MS + 900_000,
    };
    store
        .settle(
            &posted[1].key,
            &Settled::Later {
                not_before_ms: MS + 2_000,
                handle: Some(handle.clone()),
            },
            MS,
        )
        .await
        .unwrap();
    store
        .settle(&posted[2].key, &Settled::GaveUp("room gone".into()), MS)
        .await
        .unwrap();
    store
        .settle(&posted[0].key, &Settled::GaveUp("late".into()), MS)
        .await
        .unwrap();
    assert!(matches!(
        store
            .settle(&keys.next(), &Settled::Delivered, MS)
            .await
            .unwrap_err(),
        StoreError::Invalid(_)
    ));
    assert!(
        store
            .claim_due(Platform::Matrix, &claim("p3", MS + 9_000), MS + 1_999, 10)
            .await
            .unwrap()
            .is_empty(),
        "a later attempt waits for its time; delivered and given-up entries never come back"
    );
    let again = store
        .claim_due(Platform::Matrix, &claim("p3", MS + 9_000), MS + 2_000, 10)
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].attempts, 1);
    let Origin::Command { handle: kept, .. } = &again[0].envelope.origin else {
        panic!("the origin changed");
    };
    assert_eq!(
        kept.as_ref(),
        Some(&handle),
        "the handle is kept for the sender"
    );
    assert_eq!(
        store.backlog().await.unwrap().waiting,
        3,
        "the later one, the claimed one, the Discord one"
    );
}

/// Envelopes told with a game write are posted in its transaction: present after it, and
/// absent when the write fails (a stale version), so that a move and its announcement are
/// stored both or neither.
pub async fn outbox_rides_on_game_writes_and_not_on_failed_ones<S: GameStore>(store: &S) {
    let keys = Keys::new(2);
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let told = |texts: &[&str], claimed: bool| GameUpdate {
        tell: Tell {
            envelopes: envelopes(&keys, &room_a(), texts),
            claim: claimed.then(|| claim("p1", MS + 60_000)),
            posted_ms: MS,
        },
        ..GameUpdate::active()
    };
    let first = told(&["e4 played"], false);
    store
        .append_move(g.id, 0, "e2e4", &first, T0)
        .await
        .unwrap();
    let stale = told(&["stale"], false);
    assert!(matches!(
        store.append_move(g.id, 0, "d2d4", &stale, T0).await,
        Err(StoreError::Conflict { .. })
    ));
    let offer = told(&["draw offered"], false);
    store.update_game(g.id, 1, &offer, T0).await.unwrap();
    let back = told(&["taken back"], true);
    store.truncate_moves(g.id, 2, 0, &back, T0).await.unwrap();
    let stale = told(&["stale too"], false);
    assert!(store.update_game(g.id, 0, &stale, T0).await.is_err());

    let mut due = Vec::new();
    for e in store
        .claim_due(Platform::Matrix, &claim("p2", MS + 1_000), MS, 10)
        .await
        .unwrap()
    {
        store
            .settle(&e.envelope.key, &Settled::Delivered, MS)
            .await
            .unwrap();
        due.push(e.envelope.reply.text);
    }
    assert_eq!(
        due,
        vec!["e4 played", "draw offered"],
        "posted with their writes (the claimed one is not due), none with a failed write"
    );
    assert_eq!(store.backlog().await.unwrap().waiting, 1);
    let e = &store
        .claim_due(
            Platform::Matrix,
            &claim("p3", MS + 120_000),
            MS + 60_001,
            10,
        )
        .await
        .unwrap()[0];
    assert_eq!(e.envelope.reply.text, "taken back");
    assert_eq!(e.envelope.reply.audience, Audience::Room);
    assert_eq!(e.envelope.reply.mentions, vec![bob()]);

    // `mail` knows a key from its write on, and never one of a failed write: how a
    // command run again learns whether its first run was stored, and an edit whether the
    // message it replaces is still to be sent.
    for (update, was) in [
        (&first, Some(MailState::Delivered)),
        (&offer, Some(MailState::Delivered)),
        (&back, Some(MailState::Waiting)),
        (&stale, None),
    ] {
        let key = &update.tell.envelopes[0].key;
        assert_eq!(
            store.mail(key).await.unwrap().map(|m| m.state),
            was,
            "{key}"
        );
    }
    assert_eq!(store.mail(&keys.next()).await.unwrap(), None);
    // A delivery reported under the entry's key counts at once, whenever the store writes
    // the report; a given-up entry is told apart from a delivered one.
    let back_key = &back.tell.envelopes[0].key;
    store
        .settle(back_key, &Settled::DeliveredUnderKey, MS + 60_002)
        .await
        .unwrap();
    assert_eq!(
        store.mail(back_key).await.unwrap().map(|m| m.state),
        Some(MailState::Delivered)
    );
    let gone = envelopes(&keys, &room_a(), &["never deliverable"]);
    store.post(&gone, None, MS + 60_003).await.unwrap();
    // What the entry says comes back with it (an edit after a restart looks for its text).
    assert_eq!(
        store.mail(&gone[0].key).await.unwrap().map(|m| m.envelope),
        Some(gone[0].clone())
    );
    assert_eq!(
        store.mail(&gone[0].key).await.unwrap().map(|m| m.state),
        Some(MailState::Waiting)
    );
    store
        .settle(
            &gone[0].key,
            &Settled::GaveUp("no room".into()),
            MS + 60_004,
        )
        .await
        .unwrap();
    assert_eq!(
        store.mail(&gone[0].key).await.unwrap().map(|m| m.state),
        Some(MailState::GivenUp)
    );
}

/// A claim that runs out makes its entry due again for anyone (its process died), and a
/// process starting again releases what it held at once.
pub async fn outbox_claims_run_out_and_are_released<S: GameStore>(store: &S) {
    let keys = Keys::new(3);
    let a = envelopes(&keys, &room_a(), &["held by p1"]);
    let b = envelopes(&keys, &room_b(), &["held by p2"]);
    store
        .post(&a, Some(&claim("p1", MS + 10)), MS)
        .await
        .unwrap();
    store
        .post(&b, Some(&claim("p2", MS + 10)), MS)
        .await
        .unwrap();
    let none = store
        .claim_due(Platform::Matrix, &claim("p3", MS + 100), MS + 10, 10)
        .await
        .unwrap();
    assert!(none.is_empty(), "a claim holds until its time");
    assert_eq!(store.release_claims("p1", MS).await.unwrap(), 1);
    assert_eq!(store.release_claims("p1", MS).await.unwrap(), 0);
    let got = store
        .claim_due(Platform::Matrix, &claim("p3", MS + 100), MS + 10, 10)
        .await
        .unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].envelope.key, a[0].key, "released, not p2's");
    let got = store
        .claim_due(Platform::Matrix, &claim("p3", MS + 100), MS + 11, 10)
        .await
        .unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].envelope.key, b[0].key, "p2's claim ran out");
    store
        .settle(&a[0].key, &Settled::Delivered, MS + 12)
        .await
        .unwrap();
    assert_eq!(
        store.release_claims("p3", MS).await.unwrap(),
        1,
        "a delivered entry has no claim left to release"
    );
}

/// Senders of several processes claiming at once: each entry goes to exactly one of them.
pub async fn outbox_is_claimed_once_by_racing_senders<S: GameStore + Clone + 'static>(store: &S) {
    const SENDERS: usize = 6;
    const ENTRIES: usize = 60;
    let keys = Keys::new(4);
    let texts: Vec<String> = (0..ENTRIES).map(|i| format!("m{i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    store
        .post(&envelopes(&keys, &room_a(), &refs), None, MS)
        .await
        .unwrap();
    let barrier = Arc::new(Barrier::new(SENDERS));
    let tasks: Vec<_> = (0..SENDERS)
        .map(|i| {
            let store = store.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                let mut mine = Vec::new();
                loop {
                    let got = store
                        .claim_due(
                            Platform::Matrix,
                            &claim(&format!("s{i}"), MS + 60_000),
                            MS,
                            4,
                        )
                        .await
                        .unwrap();
                    if got.is_empty() {
                        break mine;
                    }
                    for e in got {
                        store
                            .settle(&e.envelope.key, &Settled::Delivered, MS)
                            .await
                            .unwrap();
                        mine.push(e.envelope.reply.text);
                    }
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    let mut want = texts.clone();
    want.sort();
    assert_eq!(all, want, "every entry delivered exactly once");
    assert_eq!(store.backlog().await.unwrap().waiting, 0);
}

// ---------------------------------------------------------------------------------------------
// Analyses

fn analysis_start(game: GameId, plies: u32, owner: &str, now_ms: i64) -> AnalysisStart {
    AnalysisStart {
        game,
        plies,
        total: plies + 1,
        owner: owner.into(),
        request: AnalysisRequest {
            place: room_a(),
            asked_by: alice(),
            progress: crate::outbox::Key::parse("abc.1"),
        },
        now_ms,
    }
}

fn analysis_of(game: GameId, plies: u32) -> GameAnalysis {
    GameAnalysis {
        game,
        variant: "chess".into(),
        plies,
        nodes: 1_000,
        scores: (0..=plies as i32).map(|i| i * 10 - 25_000).collect(),
        seat_scores: Vec::new(),
        numbers: Vec::new(),
        seats: vec![
            SeatReport {
                seat: 0,
                moves: plies.div_ceil(2),
                accuracy: Some(87.25),
                mistakes: vec![Mistake {
                    ply: 2,
                    number: 2,
                    severity: Severity::Blunder,
                    loss: 41.5,
                    before: 0.5,
                    after: 0.085,
                    played: "g4".into(),
                    best: Some("Nc3 \"é\"".into()),
                    best_cells: Some(crate::reply::MovedCells {
                        from: "b1".into(),
                        to: "c3".into(),
                    }),
                    state: "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2".into(),
                }],
            },
            SeatReport {
                seat: 1,
                moves: plies / 2,
                accuracy: None,
                mistakes: Vec::new(),
            },
        ],
    }
}

pub async fn analyses_start_progress_finish_and_cache<S: GameStore>(store: &S) {
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    assert_eq!(store.analysis(g.id).await.unwrap(), None);
    expect_not_found(
        "begin_analysis",
        store
            .begin_analysis(&analysis_start(GameId(g.id.0 + 99), 4, "p1", MS), 0)
            .await,
        Missing::Game(GameId(g.id.0 + 99)),
    );
    let start = analysis_start(g.id, 4, "p1", MS);
    assert!(store.begin_analysis(&start, MS - 1).await.unwrap());
    let a = store.analysis(g.id).await.unwrap().unwrap();
    assert_eq!(a.state, AnalysisState::Running { done: 0, total: 5 });
    assert_eq!((a.plies, a.owner.as_str()), (4, "p1"));
    assert_eq!(a.request, start.request);
    assert_eq!((a.started_ms, a.updated_ms), (MS, MS));
    // Running and fresh: a second start is refused.
    assert!(
        !store
            .begin_analysis(&analysis_start(g.id, 4, "p2", MS + 5), MS)
            .await
            .unwrap()
    );
    // Progress only by its owner.
    assert!(
        !store
            .analysis_progress(g.id, "p2", 3, MS + 10)
            .await
            .unwrap()
    );
    assert!(
        store
            .analysis_progress(g.id, "p1", 3, MS + 10)
            .await
            .unwrap()
    );
    let a = store.analysis(g.id).await.unwrap().unwrap();
    assert_eq!(a.state, AnalysisState::Running { done: 3, total: 5 });
    assert_eq!(a.updated_ms, MS + 10);
    // Finishing: only by its owner; the result reads back exactly.
    let done = analysis_of(g.id, 4);
    assert!(!store.finish_analysis(&done, "p2", MS + 20).await.unwrap());
    assert!(store.finish_analysis(&done, "p1", MS + 20).await.unwrap());
    let a = store.analysis(g.id).await.unwrap().unwrap();
    assert_eq!(a.state, AnalysisState::Done(Box::new(done.clone())));
    assert_eq!(a.updated_ms, MS + 20);
    // A finished analysis is not progressed, finished again or abandoned.
    assert!(
        !store
            .analysis_progress(g.id, "p1", 4, MS + 30)
            .await
            .unwrap()
    );
    assert!(!store.finish_analysis(&done, "p1", MS + 30).await.unwrap());
    assert!(!store.abandon_analysis(g.id, "p1").await.unwrap());
    // The cache holds for the same moves, however old.
    assert!(
        !store
            .begin_analysis(&analysis_start(g.id, 4, "p2", MS + 40), i64::MAX)
            .await
            .unwrap()
    );
    // Other moves (a record that changed): it starts afresh.
    assert!(
        store
            .begin_analysis(&analysis_start(g.id, 6, "p2", MS + 50), MS)
            .await
            .unwrap()
    );
    let a = store.analysis(g.id).await.unwrap().unwrap();
    assert_eq!(a.state, AnalysisState::Running { done: 0, total: 7 });
    assert_eq!(a.owner, "p2");
    // Abandoned by its owner only; then it may start again.
    assert!(!store.abandon_analysis(g.id, "p1").await.unwrap());
    assert!(store.abandon_analysis(g.id, "p2").await.unwrap());
    assert_eq!(store.analysis(g.id).await.unwrap(), None);
    assert!(
        store
            .begin_analysis(&analysis_start(g.id, 6, "p1", MS + 60), MS)
            .await
            .unwrap()
    );
}

pub async fn stale_analyses_are_taken_over_and_only_by_one<S: GameStore>(store: &S) {
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    assert!(
        store
            .begin_analysis(&analysis_start(g.id, 2, "p1", MS), 0)
            .await
            .unwrap()
    );
    assert!(
        store
            .analysis_progress(g.id, "p1", 1, MS + 100)
            .await
            .unwrap()
    );
    // Progress at MS + 100 is not before MS + 100: still counts.
    assert!(
        !store
            .begin_analysis(&analysis_start(g.id, 2, "p2", MS + 200), MS + 100)
            .await
            .unwrap()
    );
    // Older than the cut: p2 takes it over, and p1 can no longer write to it.
    assert!(
        store
            .begin_analysis(&analysis_start(g.id, 2, "p2", MS + 300), MS + 101)
            .await
            .unwrap()
    );
    assert_eq!(store.analysis(g.id).await.unwrap().unwrap().owner, "p2");
    assert!(
        !store
            .analysis_progress(g.id, "p1", 2, MS + 400)
            .await
            .unwrap()
    );
    assert!(
        !store
            .finish_analysis(&analysis_of(g.id, 2), "p1", MS + 400)
            .await
            .unwrap()
    );
    assert!(!store.abandon_analysis(g.id, "p1").await.unwrap());
    assert!(
        store
            .finish_analysis(&analysis_of(g.id, 2), "p2", MS + 500)
            .await
            .unwrap()
    );
}

pub async fn racing_analysis_starts_start_one<S: GameStore + Clone + 'static>(store: &S) {
    const RACERS: usize = 6;
    let g = store
        .create_game(new_game(vec![alice(), bob()], room_a(), T0))
        .await
        .unwrap();
    let barrier = Arc::new(Barrier::new(RACERS));
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = store.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                store
                    .begin_analysis(&analysis_start(g.id, 8, &format!("p{i}"), MS), MS)
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut won = 0;
    for t in tasks {
        won += usize::from(t.await.unwrap());
    }
    assert_eq!(won, 1, "one start wins");
}
