//! What the service says on its own, not as the answer to a command: the bot's move when its
//! search ends, a flag that fell, a reminder that it is someone's move.
//!
//! A command's replies go back through the adapter that received it, which knows the room and
//! the actor. An announcement has no command behind it, so it names its room itself, and it
//! never speaks to an "actor": every reply in it is for the game's room
//! ([`Audience::Room`](crate::reply::Audience::Room), delivered to [`Announcement::place`]
//! unless the reply names another) or for one player privately
//! ([`Audience::Private`](crate::reply::Audience::Private)).
//!
//! The service holds the sending half ([`Outbox`], cheap to clone); each adapter takes the
//! receiving half ([`Announcements`]) once and runs one task that delivers what arrives with
//! the same code it delivers command replies with. The channel is unbounded because what
//! goes into it is already durable (a stored move, a stored result): refusing it would lose
//! nothing but the message, and waiting for room in it would block the sender on a slow
//! platform.

use tokio::sync::mpsc;

use crate::{
    model::Place,
    reply::{Audience, Reply},
};

/// Replies for one game's room and players, sent without a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// The game's room: where its [`Audience::Room`] replies go.
    pub place: Place,
    /// What to say, in order. No [`Audience::Actor`] replies: there is no actor.
    pub replies: Vec<Reply>,
}

/// The sending half, held by the service.
#[derive(Debug, Clone)]
pub struct Outbox {
    sender: mpsc::UnboundedSender<Announcement>,
}

/// The receiving half, taken by the adapter that delivers announcements.
#[derive(Debug)]
pub struct Announcements {
    receiver: mpsc::UnboundedReceiver<Announcement>,
}

/// A connected outbox and its announcements.
pub fn channel() -> (Outbox, Announcements) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (Outbox { sender }, Announcements { receiver })
}

impl Outbox {
    /// Sends an announcement. Replies meant for an actor become room replies (an
    /// announcement has no actor; the caller's intent was "everyone here"). Returns `false`
    /// when nobody receives announcements any more (the adapter stopped); what was announced
    /// is durable in the store, so this loses a message, never a move.
    pub fn send(&self, place: Place, replies: Vec<Reply>) -> bool {
        if replies.is_empty() {
            return true;
        }
        let replies = replies
            .into_iter()
            .map(|mut r| {
                if r.audience == Audience::Actor {
                    r.audience = Audience::Room;
                }
                r
            })
            .collect();
        self.sender.send(Announcement { place, replies }).is_ok()
    }
}

impl Announcements {
    /// The next announcement; `None` once every [`Outbox`] is gone (the service stopped).
    pub async fn next(&mut self) -> Option<Announcement> {
        self.receiver.recv().await
    }

    /// The next announcement if one is waiting now (tests, and draining at shutdown).
    pub fn try_next(&mut self) -> Option<Announcement> {
        self.receiver.try_recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Platform;

    fn room() -> Place {
        Place::room(Platform::Console, "room")
    }

    #[test]
    fn announcements_arrive_in_order_and_actor_replies_become_room_replies() {
        let (outbox, mut announcements) = channel();
        assert!(outbox.send(room(), vec![Reply::actor("a"), Reply::room("b")]));
        assert!(
            outbox.send(room(), Vec::new()),
            "nothing to say is not a failure"
        );
        let a = announcements.try_next().expect("one announcement");
        assert_eq!(a.place, room());
        assert!(a.replies.iter().all(|r| r.audience == Audience::Room));
        assert_eq!(a.replies[1].text, "b");
        assert!(
            announcements.try_next().is_none(),
            "empty sends are not delivered"
        );
    }

    #[test]
    fn sending_after_the_receiver_is_gone_reports_it() {
        let (outbox, announcements) = channel();
        drop(announcements);
        assert!(!outbox.send(room(), vec![Reply::room("x")]));
    }
}
