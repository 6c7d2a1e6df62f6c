/**
 * Slack's rate limits, kept on this side so that a burst (a signal opening many cases, a long list of
 * people to invite) is spread out instead of answered with 429s. Slack counts per method, per
 * workspace and app, per minute, by the method's tier (api.slack.com/docs/rate-limits); posting a
 * message is limited to one per second per channel. The count is this process's: another process
 * calling for the same workspace can still meet a 429, which is then waited out (its Retry-After).
 */

/** Calls per minute of each tier (Slack's published floor: "1+", "20+", "50+", "100+"). */
const TIER_PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;
type Tier = keyof typeof TIER_PER_MINUTE;

/** The tier of each method Firewatch calls, from each method's page on api.slack.com. */
export const METHOD_TIERS: Record<string, Tier> = {
  'apps.connections.open': 1,
  'conversations.create': 2,
  'conversations.rename': 2,
  'conversations.setTopic': 2,
  'conversations.archive': 2,
  'pins.add': 2,
  'bookmarks.add': 2,
  'conversations.invite': 3,
  'conversations.history': 3,
  'chat.update': 3,
  'users.lookupByEmail': 3,
  'users.info': 4,
  'views.open': 4,
  'auth.test': 4,
};

export interface Limit {
  /** At most `calls` within any `windowMs`. */
  calls: number;
  windowMs: number;
  /** What is counted together: the method, and for posting, the channel too. */
  key: string;
}

/**
 * Between two messages in a channel, this much more than Slack's second: two calls spaced exactly a
 * second apart here can reach Slack less than a second apart (one's way there took longer), and Slack
 * answers the second with a 429.
 */
export const POSTING_MARGIN_MS = 100;

/** The limit a call falls under; an unknown method counts as Tier 2 ("most methods"). */
export function limitOf(method: string, args: Record<string, unknown>): Limit {
  if (method === 'chat.postMessage') return { calls: 1, windowMs: 1000 + POSTING_MARGIN_MS, key: `${method}:${String(args.channel ?? '')}` };
  return { calls: TIER_PER_MINUTE[METHOD_TIERS[method] ?? 2], windowMs: 60_000, key: method };
}

/** A call's place in its window: when it may go, and `answered` once Slack answered it. */
export interface Slot {
  /** In ms from now. */
  wait: number;
  /**
   * Counts the call from now, when Slack has answered it (so Slack counted it no later): the next call
   * is spaced from when this one got there, however long its way took, not from when it set out.
   */
  answered(): void;
}

/**
 * A sliding window per key: the times of the last calls, those reserved for later included. A call
 * may go when fewer than `calls` fall in the window before it.
 */
export class RateLimiter {
  private windows = new Map<string, { at: number }[]>();

  constructor(private now: () => number = Date.now) {}

  /**
   * When a call of `limit` may go. The slot is reserved (so concurrent callers queue behind each
   * other) only if the wait is at most `maxWaitMs`: a longer one is left to the job queue.
   */
  reserve(scope: string, limit: Limit, maxWaitMs: number): Slot {
    const now = this.now();
    const key = `${scope}|${limit.key}`;
    const slots = (this.windows.get(key) ?? []).filter((s) => s.at > now - limit.windowMs).sort((a, b) => a.at - b.at);
    const at = slots.length < limit.calls ? now : slots[slots.length - limit.calls]!.at + limit.windowMs;
    const slot = { at };
    const wait = at - now;
    if (wait <= maxWaitMs) slots.push(slot);
    if (slots.length) this.windows.set(key, slots);
    else this.windows.delete(key);
    if (this.windows.size > 10_000) this.prune(now);
    return { wait, answered: () => void (slot.at = Math.max(slot.at, this.now())) };
  }

  private prune(now: number) {
    for (const [key, slots] of this.windows) if (slots.every((s) => s.at <= now - 60_000)) this.windows.delete(key);
  }
}
