//! The command grammar shared by Matrix and the console (Discord builds the same [`Command`]s
//! from typed slash options).
//!
//! ```text
//! challenge @user VARIANT [white|black|random] [clock 10+5|3d|3d+7d] [unrated]
//! accept [ID]   decline [ID]   cancel [ID]   remind on|off
//! play VARIANT vs bot [level 1-5] [white|black|random|red|blue|yellow|green]   (or `play VARIANT level N`)
//! move [#GAME] MOVE   (or a bare move in a game's room)     board [#GAME]   moves [#GAME] [CELL]
//! resign [#GAME]   draw [accept|decline] [#GAME]   takeback [accept|decline] [#GAME]
//! abort [#GAME]   games   history [#GAME]   export [#GAME]   replay [#GAME]   variants   rules VARIANT
//! piece VARIANT PIECE   help [COMMAND]
//! profile [@user]   leaderboard VARIANT   analyse [#GAME]
//! setup [#GAME] NUMBER|RNBQKBNR|random   ask [#GAME]        (Through the Looking-Glass)
//! ```

use crate::{
    model::GameId,
    quote::{MAX_COMMAND_BYTES, quote},
    time_control::TimeControl,
};

/// Which colour the challenger wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColourChoice {
    /// The challenger plays first.
    #[default]
    First,
    /// The challenger plays second.
    Second,
    /// Drawn from the service's [`Chance`](crate::Chance) when the challenge is accepted.
    Random,
}

/// An answer to an offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Make (or repeat) the offer.
    Offer,
    /// Accept the pending offer.
    Accept,
    /// Decline the pending offer.
    Decline,
}

/// One command, platform-neutral.
///
/// Its `Debug` leaves out what may be secret (a Looking-Glass back rank, an order), so a
/// command in a log or a panic message never gives a hidden board away.
#[derive(Clone, PartialEq, Eq)]
pub enum Command {
    /// Challenge someone, or three for a four-player game (none = an open challenge anyone
    /// in the room may accept).
    Challenge {
        /// The opponents as typed (`@alice`, `@alice:example.org`, a Discord mention), in the
        /// order of the seats they will take after the challenger's. The parser takes any
        /// number; the service, which knows the variant's seats, says what is wrong with them.
        opponents: Vec<String>,
        /// The variant's name.
        variant: String,
        /// Colour choice.
        colour: ColourChoice,
        /// Chess960: the start position's number (0..=959); `None` draws one at random.
        position: Option<u16>,
        /// Whether the game counts for ratings (`unrated` says no).
        rated: bool,
        /// The time control (none unless `clock …` is given).
        clock: TimeControl,
    },
    /// Play against the bot: the game starts at once.
    PlayBot {
        /// The variant's name.
        variant: String,
        /// The bot's level as typed (1..=5, checked by the service; `None`: the default,
        /// [`crate::opponent::DEFAULT_LEVEL`]).
        level: Option<u8>,
        /// Colour choice (`random` unless the player names one).
        colour: ColourChoice,
        /// Chess960: the start position's number.
        position: Option<u16>,
        /// In a four-player form, the seat the player named by its colour (`red` 0, `blue`
        /// 1, `yellow` 2, `green` 3); `None`: as the colour says (see the service).
        seat: Option<u8>,
    },
    /// Accept a challenge (the only one addressed to the actor if no id).
    Accept(Option<i64>),
    /// Decline a challenge.
    Decline(Option<i64>),
    /// Withdraw one's own challenge.
    Cancel(Option<i64>),
    /// Play a move.
    Move {
        /// Which game, if the actor says.
        game: Option<GameId>,
        /// The move text, in any accepted notation.
        text: String,
    },
    /// Show the board.
    Board(Option<GameId>),
    /// List legal moves, optionally of one piece.
    Moves {
        /// Which game.
        game: Option<GameId>,
        /// A start cell to narrow the list.
        from: Option<String>,
    },
    /// Resign.
    Resign(Option<GameId>),
    /// Offer, accept or decline a draw.
    Draw(Answer, Option<GameId>),
    /// Request, accept or decline a takeback.
    Takeback(Answer, Option<GameId>),
    /// Call the game off before both sides have moved.
    Abort(Option<GameId>),
    /// List games in this room and the actor's games.
    Games,
    /// The move list.
    History(Option<GameId>),
    /// The game as PGN-like text.
    Export(Option<GameId>),
    /// A finished game's analysis: evaluation graph, biggest mistakes, accuracy.
    Analyse(Option<GameId>),
    /// The game so far as an animated picture, one frame per move.
    Replay(Option<GameId>),
    /// List the variants.
    Variants,
    /// Explain a variant's rules.
    Rules(String),
    /// Explain one piece of a variant.
    Piece {
        /// The variant.
        variant: String,
        /// A letter or a name.
        piece: String,
    },
    /// Help, in general or for one command.
    Help(Option<String>),
    /// Looking-Glass: choose one's secret back rank (a Chess960 number, eight letters, or
    /// `random`).
    Setup {
        /// Which game.
        game: Option<GameId>,
        /// The choice as typed.
        choice: String,
    },
    /// Looking-Glass: ask whether one has a legal move on the world one cannot see.
    Ask(Option<GameId>),
    /// A player's ratings, record and current games (the actor's, or the one mentioned).
    Profile(Option<String>),
    /// The best ratings of a variant's rating family on this platform.
    Leaderboard(String),
    /// Switch one's reminders of correspondence moves on (`true`) or off.
    Remind(bool),
    /// Players' own variants: add, show, list, remove, export (issue 30).
    Variant(VariantCommand),
}

/// A `variant` subcommand: the library of this room's own variants
/// ([`crate::custom::Library`]).
#[derive(Clone, PartialEq, Eq)]
pub enum VariantCommand {
    /// Check a definition and add it to this room's library.
    Add {
        /// The file's name when one was attached or read (its extension chooses the
        /// format), or `x.ini` / `x.toml` from a code block's language tag.
        file_name: Option<String>,
        /// The definition, a code block's fences removed.
        text: String,
    },
    /// A variant's rules and start position.
    Show(String),
    /// The room's own variants.
    List,
    /// Remove one (its author only).
    Remove(String),
    /// The text as uploaded.
    Export(String),
}

impl std::fmt::Debug for VariantCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VariantCommand::Add { file_name, text } => f
                .debug_struct("Add")
                .field("file_name", file_name)
                .field("text", &format_args!("<{} bytes, not shown>", text.len()))
                .finish(),
            VariantCommand::Show(n) => f.debug_tuple("Show").field(n).finish(),
            VariantCommand::List => f.write_str("List"),
            VariantCommand::Remove(n) => f.debug_tuple("Remove").field(n).finish(),
            VariantCommand::Export(n) => f.debug_tuple("Export").field(n).finish(),
        }
    }
}

/// The longest `variant add` text the parser reads: the library refuses definitions over its
/// own cap (16 KB) with a clear message; past this the text is not read at all.
pub const MAX_DEFINITION_BYTES: usize = 32 * 1024;

/// The definition after `variant add`, when `text` is that command: the rest of the text with
/// its line breaks, a Markdown code block's fences removed (the fence's `ini` or `toml` tag
/// becomes a file name that chooses the format). `None` for any other command.
pub fn variant_add_body(text: &str) -> Option<(Option<String>, String)> {
    let rest = text.trim_start();
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let (head, rest) = rest.split_once(char::is_whitespace)?;
    if !head.eq_ignore_ascii_case("variant") {
        return None;
    }
    let rest = rest.trim_start();
    let (sub, body) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if !sub.eq_ignore_ascii_case("add") {
        return None;
    }
    let body = body.trim();
    let Some(fenced) = body.strip_prefix("```") else {
        return Some((None, body.to_string()));
    };
    let (tag, inner) = fenced.split_once('\n').unwrap_or((fenced, ""));
    let inner = inner.trim_end();
    let inner = inner.strip_suffix("```").unwrap_or(inner);
    let file_name = match tag.trim().to_ascii_lowercase().as_str() {
        "ini" => Some("definition.ini".to_string()),
        "toml" => Some("definition.toml".to_string()),
        _ => None,
    };
    Some((file_name, inner.trim_end().to_string()))
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Move { game, text } => f
                .debug_struct("Move")
                .field("game", game)
                .field("text", &format_args!("<{} bytes, not shown>", text.len()))
                .finish(),
            Command::Setup { game, choice } => f
                .debug_struct("Setup")
                .field("game", game)
                .field(
                    "choice",
                    &format_args!("<{} bytes, not shown>", choice.len()),
                )
                .finish(),
            Command::Challenge {
                opponents,
                variant,
                colour,
                position,
                rated,
                clock,
            } => f
                .debug_struct("Challenge")
                .field("opponents", opponents)
                .field("variant", variant)
                .field("colour", colour)
                .field("position", position)
                .field("rated", rated)
                .field("clock", clock)
                .finish(),
            Command::PlayBot {
                variant,
                level,
                colour,
                position,
                seat,
            } => f
                .debug_struct("PlayBot")
                .field("variant", variant)
                .field("level", level)
                .field("colour", colour)
                .field("position", position)
                .field("seat", seat)
                .finish(),
            Command::Accept(id) => f.debug_tuple("Accept").field(id).finish(),
            Command::Decline(id) => f.debug_tuple("Decline").field(id).finish(),
            Command::Cancel(id) => f.debug_tuple("Cancel").field(id).finish(),
            Command::Board(g) => f.debug_tuple("Board").field(g).finish(),
            Command::Moves { game, from } => f
                .debug_struct("Moves")
                .field("game", game)
                .field("from", from)
                .finish(),
            Command::Resign(g) => f.debug_tuple("Resign").field(g).finish(),
            Command::Draw(a, g) => f.debug_tuple("Draw").field(a).field(g).finish(),
            Command::Takeback(a, g) => f.debug_tuple("Takeback").field(a).field(g).finish(),
            Command::Abort(g) => f.debug_tuple("Abort").field(g).finish(),
            Command::Games => f.write_str("Games"),
            Command::History(g) => f.debug_tuple("History").field(g).finish(),
            Command::Export(g) => f.debug_tuple("Export").field(g).finish(),
            Command::Analyse(g) => f.debug_tuple("Analyse").field(g).finish(),
            Command::Replay(g) => f.debug_tuple("Replay").field(g).finish(),
            Command::Variants => f.write_str("Variants"),
            Command::Rules(v) => f.debug_tuple("Rules").field(v).finish(),
            Command::Piece { variant, piece } => f
                .debug_struct("Piece")
                .field("variant", variant)
                .field("piece", piece)
                .finish(),
            Command::Help(t) => f.debug_tuple("Help").field(t).finish(),
            Command::Ask(g) => f.debug_tuple("Ask").field(g).finish(),
            Command::Profile(who) => f.debug_tuple("Profile").field(who).finish(),
            Command::Leaderboard(v) => f.debug_tuple("Leaderboard").field(v).finish(),
            Command::Remind(on) => f.debug_tuple("Remind").field(on).finish(),
            Command::Variant(v) => f.debug_tuple("Variant").field(v).finish(),
        }
    }
}

impl Command {
    /// The command's name, for logs and spans (never its arguments).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Challenge { .. } => "challenge",
            Command::PlayBot { .. } => "play",
            Command::Accept(_) => "accept",
            Command::Decline(_) => "decline",
            Command::Cancel(_) => "cancel",
            Command::Move { .. } => "move",
            Command::Board(_) => "board",
            Command::Moves { .. } => "moves",
            Command::Resign(_) => "resign",
            Command::Draw(..) => "draw",
            Command::Takeback(..) => "takeback",
            Command::Abort(_) => "abort",
            Command::Games => "games",
            Command::History(_) => "history",
            Command::Replay(_) => "replay",
            Command::Export(_) => "export",
            Command::Analyse(_) => "analyse",
            Command::Variants => "variants",
            Command::Rules(_) => "rules",
            Command::Piece { .. } => "piece",
            Command::Help(_) => "help",
            Command::Setup { .. } => "setup",
            Command::Ask(_) => "ask",
            Command::Profile(_) => "profile",
            Command::Leaderboard(_) => "leaderboard",
            Command::Remind(_) => "remind",
            Command::Variant(_) => "variant",
        }
    }

    /// The first free-text field longer than a command may be, measured. Text typed in chat
    /// is capped by [`parse`]; this holds commands built from a platform's typed options
    /// (Discord) to the same limit, so no path hands the engine a megabyte.
    pub fn oversized(&self) -> Option<crate::quote::Oversized> {
        let fields: Vec<&str> = match self {
            Command::Challenge {
                opponents, variant, ..
            } => opponents
                .iter()
                .map(String::as_str)
                .chain([variant.as_str()])
                .collect(),
            Command::PlayBot { variant, .. } => vec![variant],
            Command::Move { text, .. } => vec![text],
            Command::Moves { from, .. } => from.iter().map(String::as_str).collect(),
            Command::Rules(v) => vec![v],
            Command::Piece { variant, piece } => vec![variant, piece],
            Command::Help(topic) => topic.iter().map(String::as_str).collect(),
            Command::Setup { choice, .. } => vec![choice],
            Command::Profile(who) => who.iter().map(String::as_str).collect(),
            Command::Leaderboard(variant) => vec![variant],
            Command::Variant(
                VariantCommand::Show(n) | VariantCommand::Remove(n) | VariantCommand::Export(n),
            ) => vec![n],
            // A definition is held to the library's own cap, with its own message.
            Command::Variant(VariantCommand::Add { text, .. })
                if text.len() > MAX_DEFINITION_BYTES =>
            {
                vec![text]
            }
            _ => Vec::new(),
        };
        fields
            .into_iter()
            .find(|f| f.len() > MAX_COMMAND_BYTES)
            .map(crate::quote::Oversized::of)
    }
}

/// Why text is not a command; always says what to type instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Nothing was typed.
    #[error("type a command, for example `help`")]
    Empty,
    /// The text is longer than any command ([`MAX_COMMAND_BYTES`]).
    #[error("{}", crate::quote::too_long(.0))]
    TooLong(crate::quote::Oversized),
    /// The first word is not a command.
    #[error("unknown command {}{}; type `help` for the list", quote(.word), .suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
    Unknown {
        /// What was typed.
        word: String,
        /// The closest command name, if one is close.
        suggestion: Option<String>,
    },
    /// A command is missing an argument or has a wrong one.
    #[error("{0}")]
    Usage(String),
}

const NAMES: &[&str] = &[
    "challenge",
    "accept",
    "decline",
    "cancel",
    "move",
    "board",
    "moves",
    "resign",
    "draw",
    "takeback",
    "abort",
    "games",
    "history",
    "export",
    "analyse",
    "replay",
    "variants",
    "rules",
    "piece",
    "help",
    "setup",
    "ask",
    "profile",
    "leaderboard",
    "remind",
    "variant",
];

/// The usage line of each command, for `help COMMAND` and usage errors.
pub fn usage(command: &str) -> Option<&'static str> {
    Some(match command {
        "challenge" => {
            "challenge @user VARIANT [white|black|random] [position N] [clock TIME] [unrated] — or `challenge VARIANT` for an open challenge; four-player games name three: `challenge @a @b @c dcb-balanced-4p [random]`; Chess960 starts from a random position, or from position N (0-959); `clock 10+5` is 10 minutes each plus 5 seconds a move, `clock 3d` three days a move (`clock 3d+7d` with a 7-day reserve); no clock unless given; `unrated` keeps the game out of both players' ratings"
        }
        "accept" => {
            "accept [CHALLENGE-ID] — accept a challenge addressed to you (a four-player game starts when all three have accepted)"
        }
        "decline" => "decline [CHALLENGE-ID] — decline a challenge addressed to you",
        "cancel" => "cancel [CHALLENGE-ID] — withdraw your own challenge",
        "move" => {
            "move [#GAME] MOVE — e.g. `move e2e4`, `move Nf3`; in a game's room a bare `e4` works too"
        }
        "board" => "board [#GAME] — show the board",
        "moves" => "moves [#GAME] [CELL] — list legal moves, e.g. `moves e2`",
        "resign" => "resign [#GAME] — give up the game",
        "draw" => "draw [accept|decline] [#GAME] — offer a draw, or answer an offer",
        "takeback" => "takeback [accept|decline] [#GAME] — ask to undo your last move, or answer",
        "abort" => {
            "abort [#GAME] — call the game off before both sides have moved (four players: before Red's first move)"
        }
        "games" => "games — list the games here and yours",
        "history" => "history [#GAME] — the moves so far",
        "export" => "export [#GAME] — the game as PGN-like text",
        "analyse" => {
            "analyse [#GAME] — after a game: the engine looks at every position and shows an evaluation graph, each player's three biggest mistakes with the better move, and an accuracy per player (`analyze` works too)"
        }
        "replay" => "replay [#GAME] — the game so far as an animated picture",
        "variants" => "variants — list the games fairybot plays",
        "rules" => "rules VARIANT — how a variant is played",
        "piece" => "piece VARIANT PIECE — how one piece moves, e.g. `piece toulousain gryphon`",
        "help" => "help [COMMAND] — this help",
        "play" => {
            "play VARIANT [@user] [white|black|random] [position N] — another name for `challenge`: start a game, e.g. `play chess` or `play @bob toulousain`; then type moves, e.g. `e4`. Against the bot: `play toulousain vs bot` or `play toulousain level 3` (levels 1, beginner, to 5, full strength; default 3; in chess, on Stockfish's scale, level 3 plays about 1300, level 4 about 1700, level 5 1800 and more, levels 1 and 2 well below 1300; in Capablanca and Grand, against Fairy-Stockfish at 100 ms a move, level 3 plays about its Skill Level 1-2, levels 4 and 5 about Skill Level 5-6, levels 1 and 2 below Skill Level 0); in a four-player form, e.g. `play dcb-balanced-4p vs bot`, the bot takes the three other seats"
        }
        "setup" => {
            "setup [#GAME] NUMBER|RNBQKBNR|random — Looking-Glass: choose your secret back rank (Chess960 rules), privately"
        }
        "remind" => {
            "remind on|off — whether I remind you privately when a correspondence game waits for your move (on unless you say off)"
        }
        "ask" => {
            "ask [#GAME] — Looking-Glass: do I have a legal move on the world I cannot see? (yes or no, privately)"
        }
        "profile" => {
            "profile [@user] — ratings (a `?` marks a provisional one), wins, draws and losses, and games in progress: yours, or another player's"
        }
        "leaderboard" => {
            "leaderboard VARIANT — the ten best ratings in a variant on this platform, and your place, e.g. `leaderboard toulousain`"
        }
        "variant" => {
            "variant add|show|list|remove|export — this room's own variants: `variant add` followed by a definition (fairybot's TOML or a Fairy-Stockfish variants.ini section, in a code block) checks it and adds it; `variant show NAME`, `variant list`, `variant remove NAME` (yours), `variant export NAME` (the text as added); then `play NAME` as any variant"
        }
        _ => return None,
    })
}

/// All command names.
pub fn names() -> &'static [&'static str] {
    NAMES
}

/// Whether `word` names a command (any case), so a log may show it.
pub fn is_command_word(word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    NAMES.contains(&word.as_str()) || aliases().contains(&word.as_str())
}

/// Other names of commands (`play` is `challenge`), which have help of their own.
pub fn aliases() -> &'static [&'static str] {
    &["play"]
}

fn game_arg(word: &str) -> Option<GameId> {
    let digits = word.strip_prefix('#').unwrap_or(word);
    if word.starts_with('#') || word.strip_prefix("game").is_some() {
        digits.trim_start_matches("game").parse().ok().map(GameId)
    } else {
        None
    }
}

/// Splits off `#N` game selectors anywhere in the arguments.
fn take_game(args: &mut Vec<&str>) -> Option<GameId> {
    let i = args
        .iter()
        .position(|a| a.starts_with('#') && game_arg(a).is_some())?;
    game_arg(args.remove(i))
}

fn usage_err(command: &str, problem: &str) -> ParseError {
    ParseError::Usage(format!(
        "{} Usage: {}",
        crate::text::sentence(problem),
        usage(command).unwrap_or(command)
    ))
}

/// A Chess960 start position's number, 0 to 959 (518 is the usual chess array).
fn chess960_position(text: &str) -> Result<u16, ParseError> {
    match text.parse::<u16>() {
        Ok(n) if n < 960 => Ok(n),
        _ => Err(usage_err(
            "challenge",
            &format!(
                "{} is not a Chess960 position: give a number from 0 to 959 (518 is the usual chess array)",
                quote(text)
            ),
        )),
    }
}

/// A bot level as typed: a number from 1 to 5.
fn bot_level(text: &str) -> Result<u8, ParseError> {
    match text.parse::<u8>().ok().map(engine::Level::new) {
        Some(Ok(level)) => Ok(level.number()),
        _ => Err(usage_err(
            "play",
            &format!(
                "{} is not a level: choose 1 (beginner) to 5 (full strength)",
                quote(text)
            ),
        )),
    }
}

/// The edit distance between two short words, for "did you mean".
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != *cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest of `options` to `word`, if it is close enough to be a likely typo.
pub fn closest<'a>(word: &str, options: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    let len = word.chars().count();
    options
        .into_iter()
        // The distance is at least the difference in length: a word too long or too short
        // for an option is not compared at all (a 500-byte line costs no more than a short one).
        .filter(|o| len.abs_diff(o.chars().count()) <= 2.max(o.len() / 4))
        .map(|o| (distance(&word, &o.to_lowercase()), o))
        .filter(|(d, o)| *d <= 2.max(o.len() / 4) && *d < o.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
}

/// Parses one command. A leading prefix (`!fb`) is the adapter's business and must be
/// stripped before.
///
/// # Errors
/// [`ParseError`] with what to type instead.
pub fn parse(text: &str) -> Result<Command, ParseError> {
    // A definition is longer than any other command, and its line breaks matter.
    if let Some((file_name, body)) = variant_add_body(text) {
        if text.len() > MAX_DEFINITION_BYTES {
            return Err(ParseError::TooLong(crate::quote::Oversized::of(text)));
        }
        if body.is_empty() {
            return Err(usage_err(
                "variant",
                "`variant add` needs the definition after it, for example in a code block",
            ));
        }
        return Ok(Command::Variant(VariantCommand::Add {
            file_name,
            text: body,
        }));
    }
    if text.len() > MAX_COMMAND_BYTES {
        return Err(ParseError::TooLong(crate::quote::Oversized::of(text)));
    }
    let mut words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return Err(ParseError::Empty);
    }
    let head = words.remove(0).to_lowercase();
    let head = head.trim_start_matches('/');
    let mut args = words;
    // One family of commands after the other; each knows its own words and aliases.
    challenges(head, &args)
        .or_else(|| in_game(head, &mut args))
        .or_else(|| about_games(head, &mut args))
        .or_else(|| about_variants_and_players(head, &args))
        .unwrap_or_else(|| {
            Err(ParseError::Unknown {
                word: head.to_string(),
                suggestion: closest(head, NAMES.iter().copied()).map(str::to_string),
            })
        })
}

/// Challenges: `challenge`, `play` (against people or the bot), and the answers to one.
fn challenges(head: &str, args: &[&str]) -> Option<Result<Command, ParseError>> {
    Some(Ok(match head {
        "challenge" | "play" => return Some(challenge(args)),
        "accept" => return Some(challenge_number(args, "accept").map(Command::Accept)),
        "decline" => return Some(challenge_number(args, "decline").map(Command::Decline)),
        "cancel" => return Some(challenge_number(args, "cancel").map(Command::Cancel)),
        "remind" => match args.first().map(|a| a.to_lowercase()).as_deref() {
            Some("on") if args.len() == 1 => Command::Remind(true),
            Some("off") if args.len() == 1 => Command::Remind(false),
            _ => return Some(Err(usage_err("remind", "say `remind on` or `remind off`"))),
        },
        _ => return None,
    }))
}

/// `challenge` and `play`: opponents, the variant and the options, in any order.
fn challenge(args: &[&str]) -> Result<Command, ParseError> {
    let mut opponents = Vec::new();
    let mut variant = None;
    let mut colour = ColourChoice::First;
    let mut position = None;
    // Against the bot: `vs bot`, `against bot`, `bot`, or a level.
    let (mut bot, mut level, mut colour_named) = (false, None, false);
    // A four-player seat named by its colour (against the bot only).
    let mut seat = None;
    let mut rated = true;
    let mut clock = TimeControl::None;
    let mut args = args.iter().copied().peekable();
    while let Some(a) = args.next() {
        let lower = a.to_lowercase();
        match lower.as_str() {
            "white" | "first" => (colour, colour_named) = (ColourChoice::First, true),
            "black" | "second" => (colour, colour_named) = (ColourChoice::Second, true),
            "random" => (colour, colour_named) = (ColourChoice::Random, true),
            "red" => seat = Some(0),
            "blue" => seat = Some(1),
            "yellow" => seat = Some(2),
            "green" => seat = Some(3),
            "unrated" | "casual" => rated = false,
            "rated" => rated = true,
            "vs" | "versus" | "against"
                if args.peek().is_some_and(|b| b.eq_ignore_ascii_case("bot")) =>
            {
                args.next();
                bot = true;
            }
            "bot" => bot = true,
            "level" | "lvl" => {
                let n = args.next().ok_or_else(|| {
                    usage_err(
                        "play",
                        "`level` needs a number: 1 (beginner) to 5 (full strength)",
                    )
                })?;
                level = Some(bot_level(n)?);
                bot = true;
            }
            "position" | "pos" => {
                let n = args.next().ok_or_else(|| {
                    usage_err(
                        "challenge",
                        "`position` needs a Chess960 position number from 0 to 959",
                    )
                })?;
                position = Some(chess960_position(n)?);
            }
            "clock" | "time" => {
                let t = args.next().ok_or_else(|| {
                    usage_err(
                        "challenge",
                        &format!(
                            "`clock` needs a time control. {}",
                            crate::time_control::ACCEPTED
                        ),
                    )
                })?;
                clock = TimeControl::parse(t).map_err(|e| ParseError::Usage(e.to_string()))?;
            }
            _ if a.starts_with('@') || a.starts_with("<@") => opponents.push(a.to_string()),
            _ if variant.is_none() => variant = Some(lower),
            _ => return Err(usage_err("challenge", &format!("unexpected {}", quote(a)))),
        }
    }
    let variant = variant.ok_or_else(|| usage_err("challenge", "which variant?"))?;
    if bot {
        if !opponents.is_empty() {
            return Err(usage_err(
                "play",
                "play either the bot or a person: drop `vs bot`/`level`, or drop the @name",
            ));
        }
        if clock.is_some() {
            return Err(usage_err(
                "play",
                &format!("the bot plays without a clock: drop `clock {clock}`"),
            ));
        }
        return Ok(Command::PlayBot {
            variant,
            level,
            colour: if colour_named {
                colour
            } else {
                ColourChoice::Random
            },
            position,
            seat,
        });
    }
    if seat.is_some() {
        return Err(usage_err(
            "challenge",
            "a seat colour (red, blue, yellow, green) picks your seat against the bot (`play dcb-balanced-4p vs bot blue`); against people the seats go Red, Blue, Yellow, Green in the order named, you first",
        ));
    }
    Ok(Command::Challenge {
        opponents,
        variant,
        colour,
        position,
        rated,
        clock,
    })
}

/// Commands in a game: moves, the board, offers, resigning, the Looking-Glass setup.
fn in_game(head: &str, args: &mut Vec<&str>) -> Option<Result<Command, ParseError>> {
    let known = matches!(
        head,
        "move"
            | "m"
            | "board"
            | "show"
            | "moves"
            | "legal"
            | "resign"
            | "draw"
            | "takeback"
            | "undo"
            | "abort"
            | "setup"
            | "ask"
    );
    if !known {
        return None;
    }
    let game = take_game(args);
    Some(in_game_with(head, game, args))
}

/// [`in_game`] once the game (`#ID`) is taken off the words.
fn in_game_with(
    head: &str,
    game: Option<GameId>,
    args: &mut Vec<&str>,
) -> Result<Command, ParseError> {
    Ok(match head {
        "move" | "m" => {
            if args.is_empty() {
                return Err(usage_err("move", "which move?"));
            }
            Command::Move {
                game,
                text: args.join(" "),
            }
        }
        "board" | "show" => {
            nothing_more(args, "board")?;
            Command::Board(game)
        }
        "moves" | "legal" => {
            if args.len() > 1 {
                return Err(usage_err("moves", "give at most one cell"));
            }
            Command::Moves {
                game,
                from: args.first().map(|s| s.to_lowercase()),
            }
        }
        "resign" => {
            nothing_more(args, "resign")?;
            Command::Resign(game)
        }
        "draw" => {
            let a = answer(args, "draw")?;
            nothing_more(args, "draw")?;
            Command::Draw(a, game)
        }
        "takeback" | "undo" => {
            let a = answer(args, "takeback")?;
            nothing_more(args, "takeback")?;
            Command::Takeback(a, game)
        }
        "abort" => {
            nothing_more(args, "abort")?;
            Command::Abort(game)
        }
        "setup" => match args.as_slice() {
            [one] => Command::Setup {
                game,
                choice: one.to_string(),
            },
            _ => return Err(usage_err("setup", "give one choice")),
        },
        // "ask"
        _ => {
            nothing_more(args, "ask")?;
            Command::Ask(game)
        }
    })
}

/// Commands about games as a whole: the list, a game's history, export, analysis, replay.
fn about_games(head: &str, args: &mut Vec<&str>) -> Option<Result<Command, ParseError>> {
    let (name, make): (&str, fn(Option<GameId>) -> Command) = match head {
        "games" => return Some(Ok(Command::Games)),
        "history" | "moves-played" => ("history", Command::History),
        "export" | "pgn" => ("export", Command::Export),
        "analyse" | "analyze" | "analysis" => ("analyse", Command::Analyse),
        "replay" | "gif" => ("replay", Command::Replay),
        _ => return None,
    };
    let game = take_game(args);
    Some(nothing_more(args, name).map(|()| make(game)))
}

/// Commands about variants and players: the lists, rules, pieces, help, profiles, the
/// leaderboards and a room's own variants.
fn about_variants_and_players(head: &str, args: &[&str]) -> Option<Result<Command, ParseError>> {
    Some(Ok(match head {
        "variants" => Command::Variants,
        "rules" => match args {
            [v] => Command::Rules(v.to_lowercase()),
            _ => return Some(Err(usage_err("rules", "which variant?"))),
        },
        "piece" => match args {
            [v, p @ ..] if !p.is_empty() => Command::Piece {
                variant: v.to_lowercase(),
                piece: p.join(" "),
            },
            _ => return Some(Err(usage_err("piece", "which variant and piece?"))),
        },
        "help" | "?" => Command::Help(args.first().map(|s| s.to_lowercase())),
        "profile" | "ratings" => match args {
            [] => Command::Profile(None),
            [who] => Command::Profile(Some(who.to_string())),
            _ => return Some(Err(usage_err("profile", "name at most one player"))),
        },
        "leaderboard" | "top" => match args {
            [v] => Command::Leaderboard(v.to_lowercase()),
            [] => return Some(Err(usage_err("leaderboard", "which variant?"))),
            _ => return Some(Err(usage_err("leaderboard", "name one variant"))),
        },
        "variant" => return Some(variant(args)),
        _ => return None,
    }))
}

/// `variant show|list|remove|export` (`variant add` is read before the words are split).
fn variant(args: &[&str]) -> Result<Command, ParseError> {
    let sub = args.first().map(|s| s.to_lowercase()).unwrap_or_default();
    let name = |args: &[&str]| -> Result<String, ParseError> {
        match args {
            [_, n] => Ok(n.to_lowercase()),
            [_] => Err(usage_err(
                "variant",
                &format!("`variant {sub}` needs a name"),
            )),
            _ => Err(usage_err("variant", "name one variant")),
        }
    };
    Ok(Command::Variant(match sub.as_str() {
        "list" => {
            nothing_more(&args[1..], "variant")?;
            VariantCommand::List
        }
        "show" | "rules" => VariantCommand::Show(name(args)?),
        "remove" | "delete" => VariantCommand::Remove(name(args)?),
        "export" => VariantCommand::Export(name(args)?),
        "" => {
            return Err(usage_err(
                "variant",
                "say what to do: add, show, list, remove or export",
            ));
        }
        other => {
            return Err(usage_err(
                "variant",
                &format!("{} is not add, show, list, remove or export", quote(other)),
            ));
        }
    }))
}

/// An optional challenge number (`accept 3`, `accept #3`).
fn challenge_number(args: &[&str], cmd: &str) -> Result<Option<i64>, ParseError> {
    match args {
        [] => Ok(None),
        [one] => one
            .trim_start_matches('#')
            .parse()
            .map(Some)
            .map_err(|_| usage_err(cmd, &format!("{} is not a challenge number", quote(one)))),
        _ => Err(usage_err(cmd, "too many arguments")),
    }
}

/// Nothing may follow.
fn nothing_more(args: &[&str], cmd: &str) -> Result<(), ParseError> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(usage_err(
            cmd,
            &format!("unexpected {}", quote(&args.join(" "))),
        ))
    }
}

/// The answer to an offer (`draw accept`, `takeback no`), taken off the front; none is an
/// offer.
fn answer(args: &mut Vec<&str>, cmd: &str) -> Result<Answer, ParseError> {
    let answer = match args.first().map(|a| a.to_lowercase()).as_deref() {
        None => return Ok(Answer::Offer),
        Some("accept" | "yes") => Answer::Accept,
        Some("decline" | "no") => Answer::Decline,
        Some("offer") => Answer::Offer,
        Some(a) => {
            return Err(usage_err(
                cmd,
                &format!("{} is not accept or decline", quote(a)),
            ));
        }
    };
    args.remove(0);
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looking_glass_commands() {
        assert_eq!(
            parse("setup #4 rnbqkbnr").unwrap(),
            Command::Setup {
                game: Some(GameId(4)),
                choice: "rnbqkbnr".into()
            }
        );
        assert_eq!(parse("ask").unwrap(), Command::Ask(None));
        assert!(parse("setup").unwrap_err().to_string().contains("RNBQKBNR"));
        assert!(parse("ask now").is_err());
    }

    #[test]
    fn profile_and_leaderboard() {
        assert_eq!(parse("profile").unwrap(), Command::Profile(None));
        assert_eq!(
            parse("profile @bob:example.org").unwrap(),
            Command::Profile(Some("@bob:example.org".into()))
        );
        assert!(
            parse("profile @a @b")
                .unwrap_err()
                .to_string()
                .contains("at most one")
        );
        assert_eq!(
            parse("leaderboard Toulousain").unwrap(),
            Command::Leaderboard("toulousain".into())
        );
        assert_eq!(
            parse("top chess").unwrap(),
            Command::Leaderboard("chess".into())
        );
        assert!(
            parse("leaderboard")
                .unwrap_err()
                .to_string()
                .contains("which variant")
        );
        assert!(parse("leaderboard chess grand").is_err());
    }

    #[test]
    fn playing_the_bot() {
        let bot = |variant: &str, level, colour| Command::PlayBot {
            variant: variant.into(),
            level,
            colour,
            position: None,
            seat: None,
        };
        for (text, want) in [
            (
                "play toulousain vs bot",
                bot("toulousain", None, ColourChoice::Random),
            ),
            (
                "play toulousain level 3",
                bot("toulousain", Some(3), ColourChoice::Random),
            ),
            (
                "PLAY chess against bot black level 5",
                bot("chess", Some(5), ColourChoice::Second),
            ),
            (
                "challenge bot chess",
                bot("chess", None, ColourChoice::Random),
            ),
            (
                "play chess lvl 1 white",
                bot("chess", Some(1), ColourChoice::First),
            ),
        ] {
            assert_eq!(parse(text).unwrap(), want, "{text}");
        }
        for (bad, says) in [
            ("play chess level 9", "`9` is not a level: choose 1"),
            ("play chess level 0", "`0` is not a level"),
            ("play chess level x", "`x` is not a level"),
            ("play chess level", "`level` needs a number"),
            ("play @bob chess vs bot", "play either the bot or a person"),
            (
                "challenge @a @b @c dcb-balanced-4p green",
                "picks your seat against the bot",
            ),
            ("play vs bot", "which variant?"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        // Four players: the seat by its colour.
        assert_eq!(
            parse("play dcb-balanced-4p vs bot Yellow level 2").unwrap(),
            Command::PlayBot {
                variant: "dcb-balanced-4p".into(),
                level: Some(2),
                colour: ColourChoice::Random,
                position: None,
                seat: Some(2),
            }
        );
        // `vs` alone is not the bot: it stays what it was (a variant name, refused later).
        assert!(matches!(
            parse("play vs").unwrap(),
            Command::Challenge { .. }
        ));
    }

    #[test]
    fn chess960_positions_by_number() {
        assert!(matches!(
            parse("challenge @bob chess960 position 0").unwrap(),
            Command::Challenge {
                position: Some(0),
                clock: TimeControl::None,
                ..
            }
        ));
        assert!(matches!(
            parse("challenge chess960 black POSITION 959").unwrap(),
            Command::Challenge {
                position: Some(959),
                clock: TimeControl::None,
                colour: ColourChoice::Second,
                ..
            }
        ));
        for bad in ["960", "-1", "x", "518518518518518518"] {
            let e = parse(&format!("challenge @bob chess960 position {bad}"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("from 0 to 959"), "{bad}: {e}");
        }
        let e = parse("challenge @bob chess960 position")
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs a Chess960 position number"), "{e}");
    }

    #[test]
    fn time_controls_with_the_challenge() {
        assert!(matches!(
            parse("challenge @bob chess clock 10+5").unwrap(),
            Command::Challenge {
                clock: TimeControl::RealTime { .. },
                ..
            }
        ));
        assert!(matches!(
            parse("challenge @bob chess black CLOCK 3d+7d").unwrap(),
            Command::Challenge {
                clock: TimeControl::Correspondence { .. },
                colour: ColourChoice::Second,
                ..
            }
        ));
        for (bad, says) in [
            ("10+", "seconds added per move"),
            ("-3d", "cannot be negative"),
            ("999999d", "at most 30 days"),
            ("0+0", "no time"),
            ("soon", "is not a time control"),
        ] {
            let e = parse(&format!("challenge @bob chess clock {bad}"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says) && e.contains("Accepted:"), "{bad}: {e}");
        }
        let e = parse("challenge @bob chess clock").unwrap_err().to_string();
        assert!(e.contains("needs a time control"), "{e}");
    }

    #[test]
    fn remind_on_or_off() {
        assert_eq!(parse("remind off").unwrap(), Command::Remind(false));
        assert_eq!(parse("REMIND On").unwrap(), Command::Remind(true));
        for bad in ["remind", "remind maybe", "remind on off"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("`remind on` or `remind off`"), "{bad}: {e}");
        }
    }

    #[test]
    fn challenge_forms() {
        assert_eq!(
            parse("challenge @alice toulousain").unwrap(),
            Command::Challenge {
                opponents: vec!["@alice".into()],
                variant: "toulousain".into(),
                colour: ColourChoice::First,
                position: None,
                rated: true,
                clock: TimeControl::None,
            }
        );
        assert_eq!(
            parse("challenge Chess black @bob:example.org").unwrap(),
            Command::Challenge {
                opponents: vec!["@bob:example.org".into()],
                variant: "chess".into(),
                colour: ColourChoice::Second,
                position: None,
                rated: true,
                clock: TimeControl::None,
            }
        );
        assert!(matches!(
            parse("challenge @bob chess UNRATED").unwrap(),
            Command::Challenge { rated: false, .. }
        ));
        assert!(matches!(
            parse("challenge @bob chess casual rated").unwrap(),
            Command::Challenge { rated: true, .. }
        ));
        assert!(matches!(
            parse("challenge chess").unwrap(),
            Command::Challenge { opponents, .. } if opponents.is_empty()
        ));
        assert_eq!(
            parse("challenge @a @b:example.org <@3> dcb-balanced-4p random").unwrap(),
            Command::Challenge {
                opponents: vec!["@a".into(), "@b:example.org".into(), "<@3>".into()],
                variant: "dcb-balanced-4p".into(),
                colour: ColourChoice::Random,
                position: None,
                rated: true,
                clock: TimeControl::None,
            }
        );
        assert!(
            parse("challenge @a")
                .unwrap_err()
                .to_string()
                .contains("which variant")
        );
    }

    #[test]
    fn moves_and_game_selectors() {
        assert_eq!(
            parse("move #12 e2 e4").unwrap(),
            Command::Move {
                game: Some(GameId(12)),
                text: "e2 e4".into()
            }
        );
        assert_eq!(parse("board #3").unwrap(), Command::Board(Some(GameId(3))));
        assert_eq!(
            parse("moves e2").unwrap(),
            Command::Moves {
                game: None,
                from: Some("e2".into())
            }
        );
        assert_eq!(
            parse("draw accept").unwrap(),
            Command::Draw(Answer::Accept, None)
        );
        assert_eq!(
            parse("takeback").unwrap(),
            Command::Takeback(Answer::Offer, None)
        );
        assert_eq!(parse("accept 7").unwrap(), Command::Accept(Some(7)));
    }

    #[test]
    fn errors_say_what_to_do() {
        let e = parse("chalenge @a chess").unwrap_err().to_string();
        assert!(e.contains("did you mean `challenge`"), "{e}");
        assert!(parse("").is_err());
        assert!(
            parse("draw maybe")
                .unwrap_err()
                .to_string()
                .contains("Usage: draw")
        );
        assert!(
            parse("accept x")
                .unwrap_err()
                .to_string()
                .contains("not a challenge number")
        );
        for n in names() {
            assert!(usage(n).is_some(), "{n} has a usage line");
        }
    }
}
