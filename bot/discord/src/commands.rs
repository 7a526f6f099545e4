//! The slash commands: each one turns its options into a core [`Command`] and delivers the
//! replies.

use bot_core::{
    command::{Answer, ColourChoice, Command, VariantCommand},
    model::{GameId, Place},
    reply::Reply,
    time_control::TimeControl,
};
use poise::serenity_prelude as serenity;

use crate::{
    Ctx, Error, convert,
    convert::ComponentId,
    deliver::{self, Outgoing, Target},
    moves,
};

/// Commands about challenges: they name an opponent in a server, so they are not offered in
/// the bot's DM (a challenge made there would live where the opponent cannot see it).
pub(crate) const SERVER_ONLY: [&str; 4] = ["challenge", "accept", "decline", "cancel"];

/// Every command, with where Discord may offer it set deliberately: installed to servers only
/// (the bot is not a user app, whose commands would run in other people's DMs without the
/// bot present), usable in server channels, and all but [`SERVER_ONLY`] in the bot's DM too,
/// where Looking-Glass players send their setups and orders.
pub(crate) fn all() -> Vec<poise::Command<crate::Bot, Error>> {
    let mut cmds = commands();
    for c in &mut cmds {
        c.install_context = Some(vec![serenity::InstallationContext::Guild]);
        c.interaction_context = Some(if SERVER_ONLY.contains(&&*c.name) {
            vec![serenity::InteractionContext::Guild]
        } else {
            vec![
                serenity::InteractionContext::Guild,
                serenity::InteractionContext::BotDm,
            ]
        });
    }
    cmds
}

/// The commands a player needs in his DM with the bot, offered there only: registered
/// globally next to a server's own registration ([`crate::Registration::Guild`]), since
/// Discord never offers a server's commands in DMs, and limited to DMs so the server does not
/// list each of them twice.
pub(crate) fn for_dms() -> Vec<poise::Command<crate::Bot, Error>> {
    let mut cmds = all();
    cmds.retain(|c| !SERVER_ONLY.contains(&&*c.name));
    for c in &mut cmds {
        c.interaction_context = Some(vec![serenity::InteractionContext::BotDm]);
    }
    cmds
}

fn commands() -> Vec<poise::Command<crate::Bot, Error>> {
    vec![
        challenge(),
        play(),
        accept(),
        decline(),
        cancel(),
        move_(),
        board(),
        moves(),
        resign(),
        draw(),
        takeback(),
        abort(),
        games(),
        history(),
        export(),
        analyse(),
        replay(),
        variant(),
        variants(),
        rules(),
        profile(),
        leaderboard(),
        piece(),
        help(),
        setup(),
        ask(),
        remind(),
    ]
}

fn place(ctx: Ctx<'_>) -> Place {
    let channel = match ctx {
        poise::Context::Application(a) => a.interaction.channel.as_ref(),
        poise::Context::Prefix(_) => None,
    };
    convert::place(ctx.channel_id().get(), channel)
}

/// The server the command came from ([`bot_core::Actor::server`]): players' variants belong
/// to it. `None` in a DM.
fn server(ctx: Ctx<'_>) -> Option<String> {
    ctx.guild_id().map(|g| g.get().to_string())
}

/// Whether the invoker may manage this server or channel ([`bot_core::Actor::admin`]):
/// Discord puts the member's permissions in the channel into the interaction. Never in a DM.
fn manages_the_place(ctx: Ctx<'_>) -> bool {
    let poise::Context::Application(a) = ctx else {
        return false;
    };
    a.interaction
        .member
        .as_ref()
        .and_then(|m| m.permissions)
        .is_some_and(|p| p.administrator() || p.manage_guild() || p.manage_channels())
}

/// Runs a core command for the invoker and delivers the replies.
async fn run(ctx: Ctx<'_>, cmd: Command) -> Result<(), Error> {
    let mut actor = deliver::actor(ctx.author());
    actor.admin = manages_the_place(ctx);
    actor.server = server(ctx);
    let place = place(ctx);
    let mut target = Target::command(ctx);
    actor.answer = Some(target.handle());
    let work = ctx.data().games.handle(&actor, &place, cmd);
    let replies = deliver::in_time(ctx.data(), &mut target, work).await?;
    deliver::deliver(ctx.data(), &mut target, replies).await
}

/// Answers a command with a refusal the adapter decided itself (before the core saw it).
async fn refuse(ctx: Ctx<'_>, refusal: bot_core::reply::Reply) -> Result<(), Error> {
    let mut target = Target::command(ctx);
    deliver::deliver(ctx.data(), &mut target, vec![refusal]).await
}

fn game(id: Option<i64>) -> Option<GameId> {
    id.map(GameId)
}

/// Colour choice of a challenge.
#[derive(Debug, Clone, Copy, poise::ChoiceParameter)]
pub enum Colour {
    /// The challenger moves first.
    #[name = "first (white)"]
    First,
    /// The challenger moves second.
    #[name = "second (black)"]
    Second,
    /// Drawn by lot.
    #[name = "random"]
    Random,
}

impl From<Colour> for ColourChoice {
    fn from(c: Colour) -> Self {
        match c {
            Colour::First => ColourChoice::First,
            Colour::Second => ColourChoice::Second,
            Colour::Random => ColourChoice::Random,
        }
    }
}

/// A seat of the four-player forms, by its colour (in turn order).
#[derive(Debug, Clone, Copy, poise::ChoiceParameter)]
pub enum Seat {
    #[name = "red"]
    Red,
    #[name = "blue"]
    Blue,
    #[name = "yellow"]
    Yellow,
    #[name = "green"]
    Green,
}

impl Seat {
    /// The seat's index: red 0 (moves first) to green 3.
    fn index(self) -> u8 {
        match self {
            Seat::Red => 0,
            Seat::Blue => 1,
            Seat::Yellow => 2,
            Seat::Green => 3,
        }
    }
}

/// What `/variant` does with a room's own variants.
#[derive(Debug, Clone, Copy, poise::ChoiceParameter)]
pub enum VariantAction {
    /// Check a definition and add it.
    #[name = "add"]
    Add,
    /// Its rules and start position.
    #[name = "show"]
    Show,
    /// This room's variants.
    #[name = "list"]
    List,
    /// Remove one you added.
    #[name = "remove"]
    Remove,
    /// The text as it was added.
    #[name = "export"]
    Export,
}

/// Answer to an offer (draw, takeback).
#[derive(Debug, Clone, Copy, poise::ChoiceParameter)]
pub enum OfferAnswer {
    /// Make the offer.
    #[name = "offer"]
    Offer,
    /// Accept the opponent's offer.
    #[name = "accept"]
    Accept,
    /// Decline the opponent's offer.
    #[name = "decline"]
    Decline,
}

impl From<OfferAnswer> for Answer {
    fn from(r: OfferAnswer) -> Self {
        match r {
            OfferAnswer::Offer => Answer::Offer,
            OfferAnswer::Accept => Answer::Accept,
            OfferAnswer::Decline => Answer::Decline,
        }
    }
}

/// The variant names matching what is typed (prefix first, then anywhere), at most 25.
pub(crate) fn variant_names(names: &[String], partial: &str) -> Vec<String> {
    let p = partial.trim().to_lowercase();
    let mut out: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with(&p))
        .cloned()
        .collect();
    out.extend(
        names
            .iter()
            .filter(|n| !n.starts_with(&p) && n.contains(&p))
            .cloned(),
    );
    out.truncate(moves::MAX_CHOICES);
    out
}

async fn variant_choices(ctx: Ctx<'_>, partial: &str) -> serenity::CreateAutocompleteResponse {
    // This server's own variants first: the built-in ones are in `/variants` too.
    let mut every = ctx
        .data()
        .games
        .custom_names(&place(ctx), server(ctx).as_deref())
        .await;
    every.extend(
        bot_core::rules_engine::GameKind::every_name(&ctx.data().catalog)
            .into_iter()
            .filter(|n| bot_core::custom::hash_of_game_variant(n).is_none()),
    );
    let choices = variant_names(&every, partial)
        .into_iter()
        .map(|n| serenity::AutocompleteChoice::new(n.clone(), n))
        .collect();
    serenity::CreateAutocompleteResponse::new().set_choices(choices)
}

async fn move_choices(ctx: Ctx<'_>, partial: &str) -> serenity::CreateAutocompleteResponse {
    let actor = deliver::actor(ctx.author());
    let place = place(ctx);
    let choices = match ctx.data().games.current_game(&actor, &place, None).await {
        // Only the player to move gets moves: the opponent's would mislead.
        Some(g) if g.my_turn => moves::suggest(&g.position, partial)
            .into_iter()
            .map(|c| serenity::AutocompleteChoice::new(c.name, c.value))
            .collect(),
        _ => Vec::new(),
    };
    serenity::CreateAutocompleteResponse::new().set_choices(choices)
}

async fn origin_choices(ctx: Ctx<'_>, partial: &str) -> serenity::CreateAutocompleteResponse {
    let actor = deliver::actor(ctx.author());
    let place = place(ctx);
    let choices = match ctx.data().games.current_game(&actor, &place, None).await {
        Some(g) => moves::origins(&g.position, partial)
            .into_iter()
            .map(|c| serenity::AutocompleteChoice::new(c.name, c.value))
            .collect(),
        None => Vec::new(),
    };
    serenity::CreateAutocompleteResponse::new().set_choices(choices)
}

/// Challenge someone to a game
#[poise::command(slash_command)]
#[allow(clippy::too_many_arguments)] // one per slash-command option, as poise wants them
pub async fn challenge(
    ctx: Ctx<'_>,
    #[description = "Who you want to play"] opponent: serenity::User,
    #[description = "The variant"]
    #[autocomplete = "variant_choices"]
    variant: String,
    #[description = "Your colour (default: random; four players: seats in the order named)"]
    colour: Option<Colour>,
    #[description = "Chess960 only: the start position, 0-959 (default: random)"]
    #[min = 0]
    #[max = 959]
    position: Option<u16>,
    #[description = "Four-player games: the second opponent (Yellow)"] opponent2: Option<
        serenity::User,
    >,
    #[description = "Four-player games: the third opponent (Green)"] opponent3: Option<
        serenity::User,
    >,
    #[description = "Whether the game counts for both players' ratings (default: yes)"]
    rated: Option<bool>,
    #[description = "Time control: 10+5 (minutes each + seconds a move), 3d (days a move), 3d+7d (with a reserve); default none"]
    #[max_length = 40]
    clock: Option<String>,
) -> Result<(), Error> {
    // A time control that does not read is refused before anything is created (or a thread
    // opened), with what is accepted.
    let clock = match clock.as_deref().map(TimeControl::parse).transpose() {
        Ok(c) => c.unwrap_or_default(),
        Err(e) => {
            let mut target = Target::command(ctx);
            return deliver::deliver(ctx.data(), &mut target, vec![Reply::actor(e.to_string())])
                .await;
        }
    };
    let opponents: Vec<serenity::User> = std::iter::once(opponent)
        .chain(opponent2)
        .chain(opponent3)
        .collect();
    let thread = ctx.data().threads
        && ctx.guild_id().is_some()
        && place(ctx).thread.is_none()
        && opponents.iter().all(|o| o.id != ctx.author().id)
        && ctx.data().catalog.get(&variant).is_ok();
    // Two players: the colour is drawn unless chosen. More: the seats follow the order of
    // the options (Red is the challenger) unless `random` is chosen.
    let default_colour = if opponents.len() > 1 {
        ColourChoice::First
    } else {
        ColourChoice::Random
    };
    let cmd = Command::Challenge {
        opponents: opponents
            .iter()
            .map(|o| convert::opponent_text(o.id.get()))
            .collect(),
        variant: variant.clone(),
        colour: colour.map_or(default_colour, ColourChoice::from),
        position,
        clock,
        rated: rated.unwrap_or(true),
    };
    if thread {
        challenge_in_thread(ctx, cmd, &opponents, &variant).await
    } else {
        run(ctx, cmd).await
    }
}

/// The name of a game's thread (Discord allows 100 characters).
pub(crate) fn thread_name(challenger: &str, opponents: &[String], variant: &str) -> String {
    format!("{challenger} vs {} · {variant}", opponents.join(" vs "))
        .chars()
        .take(100)
        .collect()
}

/// A challenge with a thread of its own: the challenge, and later the game, live there.
async fn challenge_in_thread(
    ctx: Ctx<'_>,
    cmd: Command,
    opponents: &[serenity::User],
    variant: &str,
) -> Result<(), Error> {
    let mut target = Target::command(ctx);
    if let Err(e) = target.defer(false).await {
        tracing::warn!("could not defer: {e}");
    }
    let actor = deliver::actor(ctx.author());
    let names: Vec<String> = opponents.iter().map(|o| deliver::actor(o).name).collect();
    let name = thread_name(&actor.name, &names, variant);
    let created = ctx
        .channel_id()
        .create_thread(
            ctx,
            serenity::CreateThread::new(name).kind(serenity::ChannelType::PublicThread),
        )
        .await;
    let thread = match created {
        Ok(t) => t,
        Err(e) => {
            // No thread (the bot lacks Create Public Threads, or Discord refused): the game
            // lives in the channel, as without threads.
            tracing::warn!("could not open a thread for a game, playing in the channel: {e}");
            let replies = ctx.data().games.handle(&actor, &place(ctx), cmd).await;
            return deliver::deliver(ctx.data(), &mut target, replies).await;
        }
    };
    let place = place(ctx).in_thread(thread.id.get().to_string());
    let replies = ctx.data().games.handle(&actor, &place, cmd).await;
    let accepted = matches!(
        replies.first().map(|r| &r.audience),
        Some(bot_core::reply::Audience::Room)
    );
    if !accepted {
        // Refused: no game will live there.
        if let Err(e) = thread.id.delete(ctx).await {
            tracing::warn!("could not delete the unused thread {}: {e}", thread.id);
        }
        return deliver::deliver(ctx.data(), &mut target, replies).await;
    }
    let mut rest = Vec::new();
    for reply in replies {
        if reply.audience == bot_core::reply::Audience::Room {
            // A post Discord does not take now is the outbox sender's to deliver there.
            if let Err(e) = deliver::post(ctx.data(), ctx.http(), thread.id, &reply).await {
                tracing::warn!("the game's first message waits for the sender: {e}");
            }
        } else {
            rest.push(reply);
        }
    }
    target
        .send(Outgoing {
            content: format!(
                "{} challenges {}: the game is in <#{}>.",
                convert::mention(&actor.id),
                opponents
                    .iter()
                    .map(|o| convert::mention(&convert::player(o.id.get())))
                    .collect::<Vec<_>>()
                    .join(", "),
                thread.id
            ),
            mentions: std::iter::once(ctx.author().id.get())
                .chain(opponents.iter().map(|o| o.id.get()))
                .collect(),
            ..Outgoing::default()
        })
        .await?;
    if !rest.is_empty() {
        deliver::deliver(ctx.data(), &mut target, rest).await?;
    }
    Ok(())
}

/// Play against the bot: the game starts at once
#[poise::command(slash_command)]
pub async fn play(
    ctx: Ctx<'_>,
    #[description = "The variant"]
    #[autocomplete = "variant_choices"]
    variant: String,
    #[description = "The bot's level: 1 (beginner) to 5 (full strength, about 1800 in chess); default 3"]
    #[min = 1]
    #[max = 5]
    level: Option<u8>,
    #[description = "Your colour (default: random)"] colour: Option<Colour>,
    #[description = "Chess960 only: the start position, 0-959 (default: random)"]
    #[min = 0]
    #[max = 959]
    position: Option<u16>,
    #[description = "Four players only: your seat (default: red, or blue with colour second)"]
    seat: Option<Seat>,
) -> Result<(), Error> {
    run(
        ctx,
        Command::PlayBot {
            variant,
            level,
            colour: colour.map_or(ColourChoice::Random, ColourChoice::from),
            position,
            seat: seat.map(Seat::index),
        },
    )
    .await
}

/// Accept a challenge
#[poise::command(slash_command)]
pub async fn accept(
    ctx: Ctx<'_>,
    #[description = "The challenge number (if you have several)"] id: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Accept(id)).await
}

/// Decline a challenge
#[poise::command(slash_command)]
pub async fn decline(
    ctx: Ctx<'_>,
    #[description = "The challenge number (if you have several)"] id: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Decline(id)).await
}

/// Withdraw your challenge
#[poise::command(slash_command)]
pub async fn cancel(
    ctx: Ctx<'_>,
    #[description = "The challenge number (if you have several)"] id: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Cancel(id)).await
}

/// Play a move
#[poise::command(slash_command, rename = "move")]
pub async fn move_(
    ctx: Ctx<'_>,
    #[description = "Your move: a piece or cell narrows the list (Nf3, e2e4, O-O)"]
    #[rename = "move"]
    #[autocomplete = "move_choices"]
    text: String,
    #[description = "The game number (if you play several here)"] game: Option<i64>,
) -> Result<(), Error> {
    let actor = deliver::actor(ctx.author());
    let place = place(ctx);
    // A move that could be several (a promotion without its piece, `Nd2` with two Knights):
    // let the player pick one from a menu.
    if let Some(g) = ctx
        .data()
        .games
        .current_game(&actor, &place, self::game(game))
        .await
        && g.my_turn
    {
        let id = g.id;
        let options = moves::move_choices(&g.position, &text);
        if !options.is_empty() {
            let menu = serenity::CreateSelectMenu::new(
                ComponentId::ChooseMove(id).encode(),
                serenity::CreateSelectMenuKind::String {
                    options: options
                        .into_iter()
                        .map(|(san, coord)| serenity::CreateSelectMenuOption::new(san, coord))
                        .collect(),
                },
            )
            .placeholder("Which move?");
            return Target::command(ctx)
                .send(Outgoing {
                    content: format!(
                        "{} could be several moves: pick one.",
                        bot_core::quote::quote(&text)
                    ),
                    ephemeral: true,
                    png: None,
                    components: vec![serenity::CreateActionRow::SelectMenu(menu)],
                    ..Outgoing::default()
                })
                .await
                .map_err(Into::into);
        }
    }
    run(
        ctx,
        Command::Move {
            game: self::game(game),
            text,
        },
    )
    .await
}

/// Looking-Glass: choose your secret back rank (best in a DM with the bot)
#[poise::command(slash_command)]
pub async fn setup(
    ctx: Ctx<'_>,
    #[description = "A Chess960 number (518 = orthodox), eight letters like RNBQKBNR, or random"]
    choice: String,
    #[description = "The game number (if you play several)"] game: Option<i64>,
) -> Result<(), Error> {
    run(
        ctx,
        Command::Setup {
            game: self::game(game),
            choice,
        },
    )
    .await
}

/// Reminders of your correspondence moves, on or off.
#[derive(Debug, Clone, Copy, poise::ChoiceParameter)]
pub enum OnOff {
    /// Remind me.
    #[name = "on"]
    On,
    /// Do not.
    #[name = "off"]
    Off,
}

/// Whether I remind you privately when a correspondence game waits for your move
#[poise::command(slash_command)]
pub async fn remind(
    ctx: Ctx<'_>,
    #[description = "on (the default) or off"] setting: OnOff,
) -> Result<(), Error> {
    run(ctx, Command::Remind(matches!(setting, OnOff::On))).await
}

/// Looking-Glass: do I have a legal move on the world I cannot see? (answered privately)
#[poise::command(slash_command)]
pub async fn ask(
    ctx: Ctx<'_>,
    #[description = "The game number (if you play several)"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Ask(self::game(game))).await
}

/// Show the board
#[poise::command(slash_command)]
pub async fn board(
    ctx: Ctx<'_>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Board(self::game(game))).await
}

/// List the legal moves
#[poise::command(slash_command)]
pub async fn moves(
    ctx: Ctx<'_>,
    #[description = "Only the moves of the piece on this cell"]
    #[autocomplete = "origin_choices"]
    from: Option<String>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    run(
        ctx,
        Command::Moves {
            game: self::game(game),
            from,
        },
    )
    .await
}

/// Resign a game (asks for confirmation)
#[poise::command(slash_command)]
pub async fn resign(
    ctx: Ctx<'_>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    let actor = deliver::actor(ctx.author());
    let place = place(ctx);
    // Any game of his, a Looking-Glass one given from his DM included: always confirmed.
    let Some(id) = ctx
        .data()
        .games
        .game_to_act_on(&actor, &place, self::game(game))
        .await
    else {
        // No game of the actor here: the core says why.
        return run(ctx, Command::Resign(self::game(game))).await;
    };
    let row = serenity::CreateActionRow::Buttons(vec![
        serenity::CreateButton::new(ComponentId::Resign(true, id).encode())
            .label("Resign")
            .style(serenity::ButtonStyle::Danger),
        serenity::CreateButton::new(ComponentId::Resign(false, id).encode())
            .label("Keep playing")
            .style(serenity::ButtonStyle::Secondary),
    ]);
    Target::command(ctx)
        .send(Outgoing {
            content: format!("Resign game {id}? This cannot be undone."),
            ephemeral: true,
            png: None,
            components: vec![row],
            ..Outgoing::default()
        })
        .await
        .map_err(Into::into)
}

/// Offer, accept or decline a draw
#[poise::command(slash_command)]
pub async fn draw(
    ctx: Ctx<'_>,
    #[description = "Offer (default), accept or decline"] answer: Option<OfferAnswer>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    let a = answer.map_or(Answer::Offer, Answer::from);
    run(ctx, Command::Draw(a, self::game(game))).await
}

/// Ask for, accept or decline a takeback
#[poise::command(slash_command)]
pub async fn takeback(
    ctx: Ctx<'_>,
    #[description = "Ask (default), accept or decline"] answer: Option<OfferAnswer>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    let a = answer.map_or(Answer::Offer, Answer::from);
    run(ctx, Command::Takeback(a, self::game(game))).await
}

/// Call a game off before both sides have moved
#[poise::command(slash_command)]
pub async fn abort(
    ctx: Ctx<'_>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Abort(self::game(game))).await
}

/// List the games here and yours
#[poise::command(slash_command)]
pub async fn games(ctx: Ctx<'_>) -> Result<(), Error> {
    run(ctx, Command::Games).await
}

/// Show the moves played
#[poise::command(slash_command)]
pub async fn history(
    ctx: Ctx<'_>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::History(self::game(game))).await
}

/// After a game: the engine's evaluation graph, mistakes and accuracy
#[poise::command(slash_command)]
pub async fn analyse(
    ctx: Ctx<'_>,
    #[description = "The game number (default: the last finished game here)"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Analyse(self::game(game))).await
}

/// Export a game as text
#[poise::command(slash_command)]
pub async fn export(
    ctx: Ctx<'_>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Export(self::game(game))).await
}

/// Show the game so far as an animated picture
#[poise::command(slash_command)]
pub async fn replay(
    ctx: Ctx<'_>,
    #[description = "The game number"] game: Option<i64>,
) -> Result<(), Error> {
    run(ctx, Command::Replay(self::game(game))).await
}

/// This channel's own variants: add (a file or text), show, list, remove, export
#[poise::command(slash_command)]
pub async fn variant(
    ctx: Ctx<'_>,
    #[description = "What to do"] action: VariantAction,
    #[description = "The variant's name (show, remove, export)"] name: Option<String>,
    #[description = "add: a variants.ini section or fairybot TOML file"] file: Option<
        serenity::Attachment,
    >,
    #[description = "add: the definition as text, instead of a file"] definition: Option<String>,
) -> Result<(), Error> {
    let named = |name: Option<String>| name.unwrap_or_default().trim().to_lowercase();
    let cmd = match action {
        VariantAction::List => VariantCommand::List,
        VariantAction::Show => VariantCommand::Show(named(name)),
        VariantAction::Remove => VariantCommand::Remove(named(name)),
        VariantAction::Export => VariantCommand::Export(named(name)),
        VariantAction::Add => {
            let (file_name, text) = match (file, definition) {
                (Some(f), _) => {
                    // Not downloaded at all past the core's cap on a definition's size.
                    if f.size as usize > bot_core::command::MAX_DEFINITION_BYTES {
                        let refusal = bot_core::reply::Reply::actor(format!(
                            "{} has {} bytes; a variant definition may have at most {} (one \
                             variant takes 1-3 KB). Attach the one variant's section only.",
                            bot_core::quote::quote(&f.filename),
                            f.size,
                            bot_core::command::MAX_DEFINITION_BYTES
                        ));
                        return refuse(ctx, refusal).await;
                    }
                    let bytes = match f.download().await {
                        Ok(bytes) => bytes,
                        Err(e) => {
                            tracing::warn!("variant attachment not downloaded: {e}");
                            let refusal = bot_core::reply::Reply::actor(format!(
                                "I could not read {} from Discord. Try again, or paste the \
                                 definition in the `definition` option.",
                                bot_core::quote::quote(&f.filename)
                            ));
                            return refuse(ctx, refusal).await;
                        }
                    };
                    (
                        Some(f.filename.clone()),
                        String::from_utf8_lossy(&bytes).into_owned(),
                    )
                }
                (None, Some(text)) => (None, text),
                (None, None) => (None, String::new()),
            };
            VariantCommand::Add { file_name, text }
        }
    };
    run(ctx, Command::Variant(cmd)).await
}

/// List the variants
#[poise::command(slash_command)]
pub async fn variants(ctx: Ctx<'_>) -> Result<(), Error> {
    run(ctx, Command::Variants).await
}

/// Explain a variant's rules
#[poise::command(slash_command)]
pub async fn rules(
    ctx: Ctx<'_>,
    #[description = "The variant"]
    #[autocomplete = "variant_choices"]
    variant: String,
) -> Result<(), Error> {
    run(ctx, Command::Rules(variant)).await
}

/// A player's ratings, record and games in progress
#[poise::command(slash_command)]
pub async fn profile(
    ctx: Ctx<'_>,
    #[description = "Whose profile (default: yours)"] player: Option<serenity::User>,
) -> Result<(), Error> {
    let who = player.map(|p| convert::opponent_text(p.id.get()));
    run(ctx, Command::Profile(who)).await
}

/// The best ratings in a variant on Discord, and your place
#[poise::command(slash_command)]
pub async fn leaderboard(
    ctx: Ctx<'_>,
    #[description = "The variant"]
    #[autocomplete = "variant_choices"]
    variant: String,
) -> Result<(), Error> {
    run(ctx, Command::Leaderboard(variant)).await
}

/// Explain a piece of a variant
#[poise::command(slash_command)]
pub async fn piece(
    ctx: Ctx<'_>,
    #[description = "The variant"]
    #[autocomplete = "variant_choices"]
    variant: String,
    #[description = "The piece: its letter or name"] piece: String,
) -> Result<(), Error> {
    run(ctx, Command::Piece { variant, piece }).await
}

/// How to play with fairybot
#[poise::command(slash_command)]
pub async fn help(
    ctx: Ctx<'_>,
    #[description = "A command to explain"] command: Option<String>,
) -> Result<(), Error> {
    run(ctx, Command::Help(command)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_prefix_first_and_limited() {
        let names: Vec<String> = ["capablanca", "chess", "grand", "shogi", "chess960"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(variant_names(&names, "ch"), ["chess", "chess960"]);
        assert_eq!(variant_names(&names, "ess"), ["chess", "chess960"]);
        assert_eq!(variant_names(&names, "").len(), 5);
        let many: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
        assert_eq!(variant_names(&many, "").len(), 25);
    }

    #[test]
    fn thread_names_fit() {
        let bob = ["bob".to_string()];
        assert_eq!(thread_name("alice", &bob, "chess"), "alice vs bob · chess");
        assert_eq!(
            thread_name(&"a".repeat(90), &bob, "chess").chars().count(),
            100
        );
        let three = ["b".to_string(), "c".to_string(), "d".to_string()];
        assert_eq!(
            thread_name("a", &three, "dcb-balanced-4p"),
            "a vs b vs c vs d · dcb-balanced-4p"
        );
    }

    #[test]
    fn options_become_core_values() {
        assert_eq!(ColourChoice::from(Colour::First), ColourChoice::First);
        assert_eq!(ColourChoice::from(Colour::Second), ColourChoice::Second);
        assert_eq!(ColourChoice::from(Colour::Random), ColourChoice::Random);
        assert_eq!(Answer::from(OfferAnswer::Offer), Answer::Offer);
        assert_eq!(Answer::from(OfferAnswer::Accept), Answer::Accept);
        assert_eq!(Answer::from(OfferAnswer::Decline), Answer::Decline);
        assert_eq!(game(Some(3)), Some(GameId(3)));
    }

    #[test]
    fn contexts_are_set_on_purpose() {
        use poise::serenity_prelude::InteractionContext::{BotDm, Guild};
        for c in all() {
            assert_eq!(
                c.install_context,
                Some(vec![serenity::InstallationContext::Guild])
            );
            let expected = if SERVER_ONLY.contains(&&*c.name) {
                vec![Guild]
            } else {
                vec![Guild, BotDm]
            };
            assert_eq!(c.interaction_context, Some(expected), "{}", c.name);
        }
        let dm = for_dms();
        assert_eq!(dm.len(), all().len() - SERVER_ONLY.len());
        for name in ["move", "setup", "ask", "board", "resign", "draw", "help"] {
            let c = dm.iter().find(|c| c.name == name).expect(name);
            assert_eq!(c.interaction_context, Some(vec![BotDm]));
        }
    }

    #[test]
    fn every_command_is_registered_with_a_description() {
        let cmds = all();
        let names: Vec<&str> = cmds.iter().map(|c| &*c.name).collect();
        for n in bot_core::command::names() {
            assert!(names.contains(n), "{n} has no slash command");
        }
        assert!(
            cmds.iter()
                .all(|c| c.description.is_some() && c.slash_action.is_some())
        );
    }
}
