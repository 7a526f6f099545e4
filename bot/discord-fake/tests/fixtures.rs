//! Every fixture deserializes into the serenity 0.12.5 type the bot will parse it as. A field
//! serenity needs and the fixture lacks would make serenity drop the event silently; here it
//! fails loudly, with serde's message.

use discord_fake::fixtures::{self, InteractionPlace, MessageParts};
use discord_fake::ids;
use serde_json::{Value, json};
use serenity::model::prelude::*;

fn de<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> T {
    match serde_json::from_value::<T>(v.clone()) {
        Ok(t) => t,
        Err(e) => panic!("{what} does not deserialize: {e}\n{v:#}"),
    }
}

/// A whole gateway frame, parsed the way serenity's shard parses it.
fn frame(what: &str, v: Value) -> serenity::model::event::GatewayEvent {
    de(what, v)
}

fn alice() -> Value {
    fixtures::user(ids::ALICE, "alice", false)
}

fn guild_place() -> InteractionPlace {
    InteractionPlace::Guild {
        guild_id: ids::GUILD,
        channel: fixtures::text_channel(ids::GENERAL, ids::GUILD, "general", 0),
        member: fixtures::member(alice(), Some(fixtures::PERMISSIONS)),
    }
}

fn dm_place() -> InteractionPlace {
    InteractionPlace::Dm {
        channel: fixtures::dm_channel(42, alice()),
        user: alice(),
    }
}

fn bot_message() -> Value {
    fixtures::message(
        77,
        ids::GENERAL,
        fixtures::user(ids::BOT, "fairybot", true),
        "board",
        MessageParts {
            guild_id: Some(ids::GUILD),
            components: vec![json!({"type": 1, "components": [
                {"type": 2, "custom_id": "resign", "label": "Resign", "style": 4},
            ]})],
            attachments: vec![fixtures::attachment(
                78,
                "board.png",
                100,
                Some("image/png"),
                None,
                "http://127.0.0.1:1/attachments/1/78/board.png",
            )],
            webhook_id: Some(ids::APPLICATION),
            interaction: Some((79, 2, alice())),
            reactions: vec![fixtures::reaction("♟", 1, true)],
            ..MessageParts::default()
        },
    )
}

#[test]
fn users_members_channels() {
    let u: User = de("user", alice());
    assert_eq!(u.name, "alice");
    assert_eq!(u.discriminator, None);
    let _: CurrentUser = de("current user", fixtures::current_user(ids::BOT, "fairybot"));
    let m: Member = de("member", fixtures::member(alice(), None));
    assert_eq!(m.user.id.get(), ids::ALICE);
    let _: PartialMember = de(
        "resolved member",
        fixtures::resolved_member(fixtures::PERMISSIONS),
    );
    let c: Channel = de(
        "text channel",
        fixtures::text_channel(ids::GENERAL, ids::GUILD, "general", 0),
    );
    assert!(c.guild().is_some());
    let c: Channel = de("dm channel", fixtures::dm_channel(42, alice()));
    assert_eq!(c.private().expect("dm").recipient.id.get(), ids::ALICE);
    let t: GuildChannel = de(
        "thread",
        fixtures::thread_channel(5, ids::GUILD, ids::GENERAL, ids::BOT, "game 1", 11, 1440),
    );
    assert_eq!(t.kind, ChannelType::PublicThread);
    assert_eq!(t.parent_id.map(|p| p.get()), Some(ids::GENERAL));
    let _: Role = de("role", fixtures::everyone_role(ids::GUILD));
}

#[test]
fn guild_create_and_ready() {
    let g = fixtures::guild_create(
        ids::GUILD,
        "Fairy Chess Club",
        ids::ALICE,
        vec![fixtures::text_channel(
            ids::GENERAL,
            ids::GUILD,
            "general",
            0,
        )],
        vec![fixtures::member(alice(), None)],
    );
    let guild: Guild = de("guild", g.clone());
    assert_eq!(guild.channels.len(), 1);
    assert_eq!(guild.members.len(), 1);
    let ready = fixtures::ready(
        fixtures::current_user(ids::BOT, "fairybot"),
        &[ids::GUILD],
        "sess",
        "ws://127.0.0.1:1",
        ids::APPLICATION,
    );
    let r: Ready = de("ready", ready.clone());
    assert_eq!(r.application.id.get(), ids::APPLICATION);
    for (name, d) in [("READY", ready), ("GUILD_CREATE", g)] {
        match frame(name, fixtures::dispatch(1, name, d)) {
            serenity::model::event::GatewayEvent::Dispatch(1, _) => {}
            other => panic!("{name}: {other:?}"),
        }
    }
    assert!(matches!(
        frame("hello", fixtures::hello(41250)),
        serenity::model::event::GatewayEvent::Hello(41250)
    ));
    assert!(matches!(
        frame("ack", fixtures::heartbeat_ack()),
        serenity::model::event::GatewayEvent::HeartbeatAck
    ));
    assert!(matches!(
        frame("reconnect", fixtures::reconnect()),
        serenity::model::event::GatewayEvent::Reconnect
    ));
    assert!(matches!(
        frame("invalid", fixtures::invalid_session(false)),
        serenity::model::event::GatewayEvent::InvalidateSession(false)
    ));
    assert!(matches!(
        frame(
            "resumed",
            fixtures::dispatch(9, "RESUMED", json!({"_trace": []}))
        ),
        serenity::model::event::GatewayEvent::Dispatch(9, Event::Resumed(_))
    ));
}

#[test]
fn messages() {
    let m: Message = de("message", bot_message());
    assert_eq!(m.attachments[0].filename, "board.png");
    assert_eq!(m.components.len(), 1);
    assert!(m.interaction_metadata.is_some());
    let plain = fixtures::message(1, 42, alice(), "hi", MessageParts::default());
    let _: Message = de("plain message", plain);
}

#[test]
fn application_and_commands() {
    let info: CurrentApplicationInfo = de(
        "application info",
        fixtures::application_info(
            ids::APPLICATION,
            "fairybot",
            fixtures::user(ids::BOT, "fairybot", true),
            alice(),
        ),
    );
    assert_eq!(info.owner.map(|o| o.id.get()), Some(ids::ALICE));
    let sent = json!({"name": "play", "description": "Start a game", "options": [
        {"type": 3, "name": "variant", "description": "variant", "required": true, "autocomplete": true},
    ]});
    let _: Command = de(
        "global command",
        fixtures::registered_command(&sent, 5, ids::APPLICATION, None),
    );
    let c: Command = de(
        "guild command",
        fixtures::registered_command(&sent, 5, ids::APPLICATION, Some(ids::GUILD)),
    );
    assert_eq!(c.guild_id.map(|g| g.get()), Some(ids::GUILD));
    let _: serenity::model::gateway::BotGateway =
        de("gateway/bot", fixtures::gateway_bot("ws://127.0.0.1:1"));
    let _: serenity::http::DiscordJsonError = de(
        "error",
        fixtures::error_body(50007, "Cannot send messages to this user"),
    );
}

#[test]
fn interactions_of_every_kind() {
    let command = json!({"id": "9", "name": "play", "type": 1, "options": [
        {"name": "variant", "type": 3, "value": "capablanca"},
        {"name": "opponent", "type": 6, "value": ids::BOB.to_string()},
    ], "resolved": {
        "users": {ids::BOB.to_string(): fixtures::user(ids::BOB, "bob", false)},
        "members": {ids::BOB.to_string(): fixtures::resolved_member(fixtures::PERMISSIONS)},
    }});
    for place in [guild_place(), dm_place()] {
        let i: Interaction = de(
            "command",
            fixtures::interaction(1, ids::APPLICATION, 2, "t", command.clone(), &place, None),
        );
        let c = i.command().expect("command");
        assert_eq!(c.user.id.get(), ids::ALICE);
        assert_eq!(c.data.resolved.users.len(), 1);

        let auto = json!({"id": "9", "name": "play", "type": 1, "options": [
            {"name": "variant", "type": 3, "value": "cap", "focused": true},
        ]});
        let i: Interaction = de(
            "autocomplete",
            fixtures::interaction(2, ids::APPLICATION, 4, "t", auto, &place, None),
        );
        assert!(i.autocomplete().is_some());

        let button = json!({"custom_id": "resign", "component_type": 2});
        let i: Interaction = de(
            "button",
            fixtures::interaction(
                3,
                ids::APPLICATION,
                3,
                "t",
                button,
                &place,
                Some(bot_message()),
            ),
        );
        assert_eq!(
            i.message_component().expect("component").data.custom_id,
            "resign"
        );

        let select = json!({"custom_id": "promo", "component_type": 3, "values": ["q"]});
        let i: Interaction = de(
            "select",
            fixtures::interaction(
                4,
                ids::APPLICATION,
                3,
                "t",
                select,
                &place,
                Some(bot_message()),
            ),
        );
        match i.message_component().expect("component").data.kind {
            ComponentInteractionDataKind::StringSelect { values } => assert_eq!(values, ["q"]),
            other => panic!("{other:?}"),
        }

        let modal = json!({"custom_id": "m", "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "uci", "value": "e2e4"}]},
        ]});
        let i: Interaction = de(
            "modal",
            fixtures::interaction(5, ids::APPLICATION, 5, "t", modal, &place, None),
        );
        assert_eq!(i.modal_submit().expect("modal").data.custom_id, "m");

        let whole = fixtures::dispatch(
            7,
            "INTERACTION_CREATE",
            fixtures::interaction(6, ids::APPLICATION, 2, "t", command.clone(), &place, None),
        );
        assert!(matches!(
            frame("INTERACTION_CREATE", whole),
            serenity::model::event::GatewayEvent::Dispatch(7, Event::InteractionCreate(_))
        ));
    }
}
