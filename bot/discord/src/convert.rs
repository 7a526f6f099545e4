//! Conversions between Discord's types and the core's: ids, places, mentions and the
//! `custom_id`s of buttons and select menus. Pure functions, unit-tested below.

use bot_core::{
    command::{Answer, Command},
    model::{GameId, Place, Platform, PlayerId},
    reply::{Action, Reply},
};
use serenity::all::{ChannelType, PartialChannel};

/// A Discord user as a core player id.
pub fn player(user_id: u64) -> PlayerId {
    PlayerId::new(Platform::Discord, user_id.to_string())
}

/// The Discord user id of a core player, if it is a Discord player.
pub fn user_id(player: &PlayerId) -> Option<u64> {
    if player.platform != Platform::Discord {
        return None;
    }
    player.user.parse().ok().filter(|id| *id != 0)
}

/// A Discord mention of a player (`<@id>`), or the plain id for players elsewhere.
pub fn mention(player: &PlayerId) -> String {
    match user_id(player) {
        Some(id) => format!("<@{id}>"),
        None => player.user.clone(),
    }
}

/// The text of a reply with its `{0}`, `{1}`... placeholders turned into Discord mentions,
/// and Discord's markdown characters outside code spans escaped: the core's texts use code
/// spans only (user text is always inside one, `bot_core::quote`), so a `*`, `_`, `~` or `|`
/// elsewhere (a hole in a state text, a player's name) is shown as it is, never as markup.
pub fn text(reply: &Reply) -> String {
    let escaped = Reply {
        text: escape_markdown(&reply.text),
        // A table goes into an embed ([`table_embed`]), where its columns can line up.
        table: None,
        ..reply.clone()
    };
    escaped.render_text(mention)
}

/// The most characters an embed's description may hold (Discord's limit).
const MAX_EMBED_DESCRIPTION: usize = 4_096;

/// A reply's table as an embed: its aligned lines in a code block, where Discord uses a
/// monospace font and shows every character as it is (a backtick in a name, which could
/// close the block, is shown as a modifier letter grave). Cut to Discord's limit.
pub fn table_embed(reply: &Reply) -> Option<serenity::all::CreateEmbed> {
    let table = reply.table.as_ref()?;
    let lines = table.aligned().replace('`', "\u{2CB}");
    let budget = MAX_EMBED_DESCRIPTION - "```\n\n```".len();
    let lines: String = lines.chars().take(budget).collect();
    Some(serenity::all::CreateEmbed::new().description(format!("```\n{lines}\n```")))
}

/// Only the players a reply mentions may be notified by it: no `@everyone`, no role, no user
/// whose id happens to be in the text.
pub fn allowed_mentions(reply: &Reply) -> serenity::all::CreateAllowedMentions {
    users_allowed(reply.mentions.iter().filter_map(user_id))
}

/// Allowed mentions for exactly these users.
pub fn users_allowed(ids: impl IntoIterator<Item = u64>) -> serenity::all::CreateAllowedMentions {
    serenity::all::CreateAllowedMentions::new()
        .everyone(false)
        .all_roles(false)
        .users(ids.into_iter().map(serenity::all::UserId::new))
}

/// Escapes Discord's inline markdown (`\ * _ ~ |`) outside code spans; code spans (a run of
/// N backticks to the next run of exactly N) are kept as they are, since nothing inside
/// them is markup. An unclosed run of backticks is escaped too.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let (before, from) = rest.split_at(start);
        escape_plain(before, &mut out);
        let run = from.chars().take_while(|c| *c == '`').count();
        let fence = &from[..run];
        let body = &from[run..];
        // The closing run must be exactly as long as the opening one.
        let mut close = None;
        let mut i = 0;
        while let Some(k) = body[i..].find(fence) {
            let at = i + k;
            let len = body[at..].chars().take_while(|c| *c == '`').count();
            if len == run {
                close = Some(at);
                break;
            }
            i = at + len;
        }
        match close {
            Some(at) => {
                out.push_str(fence);
                out.push_str(&body[..at]);
                out.push_str(fence);
                rest = &body[at + run..];
            }
            None => {
                for _ in 0..run {
                    out.push_str("\\`");
                }
                rest = body;
            }
        }
    }
    escape_plain(rest, &mut out);
    out
}

fn escape_plain(text: &str, out: &mut String) {
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '_' | '~' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
}

/// What a typed opponent becomes in a `Command::Challenge` (the core reads `<@id>`).
pub fn opponent_text(user_id: u64) -> String {
    format!("<@{user_id}>")
}

/// Where an interaction happened: its channel, or its parent channel narrowed to the thread
/// when the channel is a thread; a DM channel is marked private.
pub fn place(channel_id: u64, channel: Option<&PartialChannel>) -> Place {
    if let Some(c) = channel
        && matches!(
            c.kind,
            ChannelType::PublicThread | ChannelType::PrivateThread | ChannelType::NewsThread
        )
        && let Some(parent) = c.parent_id
    {
        return Place::room(Platform::Discord, parent.get().to_string())
            .in_thread(channel_id.to_string());
    }
    if channel.is_some_and(|c| c.kind == ChannelType::Private) {
        return Place::direct(Platform::Discord, channel_id.to_string());
    }
    Place::room(Platform::Discord, channel_id.to_string())
}

/// Every `custom_id` the bot puts on components. They carry all they need (the challenge or
/// game id), so one global handler answers them, also after a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComponentId {
    /// Accept (`true`) or decline a challenge: `fb:ch:accept:12`, `fb:ch:decline:12`.
    Challenge(bool, i64),
    /// Accept or decline a draw offer: `fb:draw:accept:7`, `fb:draw:decline:7`.
    Draw(bool, GameId),
    /// Accept or decline a takeback request: `fb:tb:accept:7`, `fb:tb:decline:7`.
    Takeback(bool, GameId),
    /// Confirm (`true`) or cancel a resignation: `fb:resign:confirm:7`, `fb:resign:cancel:7`.
    Resign(bool, GameId),
    /// A select menu whose values are moves of a game (a promotion, an ambiguous move):
    /// `fb:move:7`.
    ChooseMove(GameId),
}

fn answer(yes: bool) -> &'static str {
    if yes { "accept" } else { "decline" }
}

impl ComponentId {
    /// The `custom_id` text.
    pub fn encode(&self) -> String {
        match self {
            ComponentId::Challenge(y, id) => format!("fb:ch:{}:{id}", answer(*y)),
            ComponentId::Draw(y, g) => format!("fb:draw:{}:{g}", answer(*y)),
            ComponentId::Takeback(y, g) => format!("fb:tb:{}:{g}", answer(*y)),
            ComponentId::Resign(y, g) => {
                format!("fb:resign:{}:{g}", if *y { "confirm" } else { "cancel" })
            }
            ComponentId::ChooseMove(g) => format!("fb:move:{g}"),
        }
    }

    /// Reads a `custom_id`; `None` for anything not made by [`ComponentId::encode`].
    pub fn decode(text: &str) -> Option<ComponentId> {
        let parts: Vec<&str> = text.split(':').collect();
        let id = |s: &str| s.parse::<i64>().ok();
        let yes = |s: &str, y: &str, n: &str| match s {
            _ if s == y => Some(true),
            _ if s == n => Some(false),
            _ => None,
        };
        Some(match parts.as_slice() {
            ["fb", "ch", a, n] => ComponentId::Challenge(yes(a, "accept", "decline")?, id(n)?),
            ["fb", "draw", a, n] => ComponentId::Draw(yes(a, "accept", "decline")?, GameId(id(n)?)),
            ["fb", "tb", a, n] => {
                ComponentId::Takeback(yes(a, "accept", "decline")?, GameId(id(n)?))
            }
            ["fb", "resign", a, n] => {
                ComponentId::Resign(yes(a, "confirm", "cancel")?, GameId(id(n)?))
            }
            ["fb", "move", n] => ComponentId::ChooseMove(GameId(id(n)?)),
            _ => return None,
        })
    }

    /// The core command a click means (`None` for cancelling a resignation, which changes
    /// nothing, and for a select menu, whose command needs the chosen value).
    pub fn command(&self) -> Option<Command> {
        let ans = |y: bool| if y { Answer::Accept } else { Answer::Decline };
        Some(match self {
            ComponentId::Challenge(true, id) => Command::Accept(Some(*id)),
            ComponentId::Challenge(false, id) => Command::Decline(Some(*id)),
            ComponentId::Draw(y, g) => Command::Draw(ans(*y), Some(*g)),
            ComponentId::Takeback(y, g) => Command::Takeback(ans(*y), Some(*g)),
            ComponentId::Resign(true, g) => Command::Resign(Some(*g)),
            ComponentId::Resign(false, _) | ComponentId::ChooseMove(_) => return None,
        })
    }

    /// The Accept and Decline buttons' ids for an action of a reply.
    pub fn for_action(action: &Action) -> [ComponentId; 2] {
        match action {
            Action::AnswerChallenge(id) => [
                ComponentId::Challenge(true, *id),
                ComponentId::Challenge(false, *id),
            ],
            Action::AnswerDraw(g) => [ComponentId::Draw(true, *g), ComponentId::Draw(false, *g)],
            Action::AnswerTakeback(g) => [
                ComponentId::Takeback(true, *g),
                ComponentId::Takeback(false, *g),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serenity::all::ChannelId;

    #[test]
    fn markdown_outside_code_spans_is_escaped() {
        assert_eq!(
            escape_markdown("a *b* _c_ ~~d~~ ||e||"),
            r"a \*b\* \_c\_ \~\~d\~\~ \|\|e\|\|"
        );
        // Code spans are kept whole, including markup characters inside them.
        assert_eq!(escape_markdown("type `*x*` now"), "type `*x*` now");
        assert_eq!(escape_markdown("`` Nf3` `` is not"), "`` Nf3` `` is not");
        // An unclosed backtick cannot open a span that swallows the rest; spans pair from
        // the left, as CommonMark pairs them.
        assert_eq!(escape_markdown("Nf3` and *b*"), r"Nf3\` and \*b\*");
        assert_eq!(escape_markdown("Nf3` and `b`"), r"Nf3` and `b\`");
        // The core's quote of any text survives: its span is intact and nothing leaks out.
        for typed in ["Nf3`", "*bold*", "a``b", "`", "x|y"] {
            let q = bot_core::quote::quote(typed);
            let line = format!("{q} is not a legal move here. Did you mean `Nf3`?");
            assert_eq!(escape_markdown(&line), line, "{typed:?}");
        }
    }

    #[test]
    fn replies_notify_only_their_mentions() {
        let reply = Reply::room("Game 1: {0} resigns. @everyone").mention(player(7));
        let json = serde_json::to_value(allowed_mentions(&reply)).unwrap();
        assert_eq!(json["users"], serde_json::json!(["7"]), "{json}");
        assert_eq!(json["parse"], serde_json::json!([]), "{json}");
    }

    #[test]
    fn players_and_mentions() {
        let p = player(42);
        assert_eq!(p, PlayerId::new(Platform::Discord, "42"));
        assert_eq!(user_id(&p), Some(42));
        assert_eq!(mention(&p), "<@42>");
        let m = PlayerId::new(Platform::Matrix, "@a:x.org");
        assert_eq!(user_id(&m), None);
        assert_eq!(mention(&m), "@a:x.org");
        assert_eq!(user_id(&PlayerId::new(Platform::Discord, "bob")), None);
        let r = Reply::room("{0} challenges {1}")
            .mention(player(1))
            .mention(player(2));
        assert_eq!(text(&r), "<@1> challenges <@2>");
        // The core reads the opponent text back as the same player.
        let place = Place::room(Platform::Discord, "5");
        assert_eq!(
            bot_core::service::parse_mention(&place, &opponent_text(9)),
            player(9)
        );
    }

    fn channel(kind: ChannelType, parent: Option<u64>) -> PartialChannel {
        serde_json::from_value(serde_json::json!({
            "id": "77", "type": u8::from(kind), "parent_id": parent.map(|p| p.to_string()),
        }))
        .unwrap()
    }

    #[test]
    fn places_of_channels_and_threads() {
        assert_eq!(place(5, None), Place::room(Platform::Discord, "5"));
        let text = channel(ChannelType::Text, None);
        assert_eq!(place(77, Some(&text)), Place::room(Platform::Discord, "77"));
        let thread = channel(ChannelType::PublicThread, Some(5));
        assert_eq!(
            place(77, Some(&thread)),
            Place::room(Platform::Discord, "5").in_thread("77")
        );
        assert_eq!(thread.parent_id, Some(ChannelId::new(5)));
        let dm = channel(ChannelType::Private, None);
        assert_eq!(place(77, Some(&dm)), Place::direct(Platform::Discord, "77"));
        assert!(place(77, Some(&dm)).private);
    }

    #[test]
    fn custom_ids_round_trip() {
        let all = [
            ComponentId::Challenge(true, 12),
            ComponentId::Challenge(false, 12),
            ComponentId::Draw(true, GameId(7)),
            ComponentId::Draw(false, GameId(7)),
            ComponentId::Takeback(true, GameId(3)),
            ComponentId::Takeback(false, GameId(3)),
            ComponentId::Resign(true, GameId(9)),
            ComponentId::Resign(false, GameId(9)),
            ComponentId::ChooseMove(GameId(4)),
        ];
        for c in &all {
            assert_eq!(ComponentId::decode(&c.encode()).as_ref(), Some(c));
            assert!(c.encode().len() <= 100);
        }
        assert_eq!(all[0].encode(), "fb:ch:accept:12");
        assert_eq!(all[2].encode(), "fb:draw:accept:7");
        for bad in [
            "",
            "fb",
            "fb:ch:maybe:1",
            "fb:ch:accept:x",
            "xx:ch:accept:1",
            "fb:move",
        ] {
            assert_eq!(ComponentId::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn clicks_become_commands() {
        assert_eq!(
            ComponentId::Challenge(true, 12).command(),
            Some(Command::Accept(Some(12)))
        );
        assert_eq!(
            ComponentId::Challenge(false, 12).command(),
            Some(Command::Decline(Some(12)))
        );
        assert_eq!(
            ComponentId::Draw(true, GameId(7)).command(),
            Some(Command::Draw(Answer::Accept, Some(GameId(7))))
        );
        assert_eq!(
            ComponentId::Takeback(false, GameId(7)).command(),
            Some(Command::Takeback(Answer::Decline, Some(GameId(7))))
        );
        assert_eq!(
            ComponentId::Resign(true, GameId(7)).command(),
            Some(Command::Resign(Some(GameId(7))))
        );
        assert_eq!(ComponentId::Resign(false, GameId(7)).command(), None);
        assert_eq!(
            ComponentId::for_action(&Action::AnswerDraw(GameId(2))),
            [
                ComponentId::Draw(true, GameId(2)),
                ComponentId::Draw(false, GameId(2))
            ]
        );
    }
}
