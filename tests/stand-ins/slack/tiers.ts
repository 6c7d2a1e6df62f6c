/**
 * Slack's rate limits as Slack applies them: per method, per workspace and app (here: per token), at
 * most a tier's calls in any minute; chat.postMessage one per second per channel. Over the limit,
 * Slack answers 429 with Retry-After (the seconds until a call would be counted again).
 */
const PER_MINUTE: Record<string, number> = {
  // Tier 1, with the burst Slack tolerates: an app may hold up to 10 Socket Mode connections.
  'apps.connections.open': 10,
  'conversations.create': 20,
  'conversations.rename': 20,
  'conversations.setTopic': 20,
  'conversations.archive': 20,
  'pins.add': 20,
  'bookmarks.add': 20,
  'conversations.invite': 50,
  'conversations.history': 50,
  'chat.update': 50,
  'users.lookupByEmail': 50,
  'users.info': 100,
  'views.open': 100,
  'auth.test': 100,
  'oauth.v2.access': 100,
};

export class SlackTiers {
  /** Each counted call's time, by token, method (and channel, for posting). */
  private calls = new Map<string, number[]>();

  private window(token: string, method: string, args: Record<string, any>) {
    const posting = method === 'chat.postMessage';
    return {
      key: `${token}|${method}${posting ? `|${String(args.channel)}` : ''}`,
      limit: posting ? 1 : (PER_MINUTE[method] ?? 20),
      ms: posting ? 1000 : 60_000,
    };
  }

  /** Spends waiting for the next call of their method (so a test's timing does not depend on the machine's speed). */
  private pending = new Map<string, { calls: number; agoMs: number }>();

  /** Counts a call; over the limit, the seconds to wait instead (the call is not counted). */
  take(token: string, method: string, args: Record<string, any>, now = Date.now()): number | null {
    const w = this.window(token, method, args);
    const spent = this.pending.get(method);
    if (spent) {
      this.pending.delete(method);
      this.calls.set(w.key, [...(this.calls.get(w.key) ?? []), ...Array.from({ length: spent.calls }, () => now - spent.agoMs)]);
    }
    const times = (this.calls.get(w.key) ?? []).filter((t) => t > now - w.ms);
    this.calls.set(w.key, times);
    if (times.length >= w.limit) return Math.max(1, Math.ceil((times[times.length - w.limit]! + w.ms - now) / 1000));
    times.push(now);
    return null;
  }

  /** Just before the next call of `method`, someone else (another process of the app) made `calls` of them, `agoMs` before it. */
  spendBeforeNext(method: string, o: { calls: number; agoMs: number }) {
    this.pending.set(method, o);
  }
}
