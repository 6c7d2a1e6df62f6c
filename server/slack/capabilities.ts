import type { LoadedPlugin } from '../plugins/registry.js';

/**
 * What a chat app (Slack today, a Teams bot tomorrow) does for incidents, by capability: generic
 * shapes, so another service is one more implementation. `conversation` is the service's id of a
 * channel; a card is rendered by each implementation in its own format (Block Kit, Adaptive Cards).
 */
export interface Card {
  title: string;
  /** One line under the title (the incident's description, what a notification is about). */
  text?: string;
  fields: { label: string; value: string }[];
  /** Buttons: `url` opens a page; otherwise the service sends `action` and `value` back. */
  actions?: { label: string; action: string; value?: string; url?: string; style?: 'primary' | 'danger' }[];
}

export interface ChatUser {
  id: string;
  email: string | null;
  name: string;
}

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** A new channel; `private` for restricted incidents. A name taken gets a suffix. */
    create_conversation: (plugin: LoadedPlugin, c: { name: string; topic?: string; private: boolean }) => Promise<{ id: string; name: string }>;
    /** Invites people by e-mail; those without an account come back in `missing`. */
    invite: (plugin: LoadedPlugin, c: { conversation: string; emails: string[] }) => Promise<{ invited: string[]; missing: string[] }>;
    /**
     * Posts a card (pinned if asked) and returns the message's id and the id of the conversation it
     * landed in (`conversation` may be a name), both for update_card.
     */
    post_card: (plugin: LoadedPlugin, c: { conversation: string; card: Card; pin?: boolean }) => Promise<{ id: string; conversation: string }>;
    update_card: (plugin: LoadedPlugin, c: { conversation: string; id: string; card: Card }) => Promise<void>;
    add_bookmarks: (plugin: LoadedPlugin, c: { conversation: string; links: { title: string; url: string }[] }) => Promise<void>;
    archive_conversation: (plugin: LoadedPlugin, c: { conversation: string }) => Promise<void>;
    /** Renames a channel (the record's title changed); a name taken gets a suffix. Returns the name it has. */
    rename_conversation: (plugin: LoadedPlugin, c: { conversation: string; name: string }) => Promise<{ name: string }>;
    set_topic: (plugin: LoadedPlugin, c: { conversation: string; topic: string }) => Promise<void>;
    lookup_user: (plugin: LoadedPlugin, who: { id: string }) => Promise<ChatUser | null>;
    /** One message of a channel by its id (Slack: its ts), for a reaction on a message not mirrored. */
    get_message: (plugin: LoadedPlugin, m: { conversation: string; id: string }) => Promise<{ text: string; user: string | null } | null>;
  }
}
