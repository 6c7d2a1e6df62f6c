/**
 * The session and update rules of spec §9, as plain functions and constants (the components that
 * show them are in SessionWatch.tsx).
 */
import { storage } from './org.js';

declare const __BUILD_ID__: string;

/** This page's build (compiled in by admin/vite.config.ts, which also writes /version.json). */
export const BUILD_ID: string = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

export const RULES = {
  /** The expiry check fires this many seconds before the token's `exp`. */
  expiryLeadSeconds: 10,
  /** How often a wait for the token looks again. */
  tokenPollMs: 100,
  /** The update snackbar's time on screen. */
  updateSnackbarMs: 60_000,
  /** No pointer, key or scroll for this long: the person is inactive. */
  inactiveMs: 5 * 60_000,
  /** With an update waiting, the page reloads itself after this long inactive... */
  refreshWhenInactiveMs: 15 * 60_000,
  /** ...or after this long hidden (another tab in front). */
  refreshWhenHiddenMs: 30 * 60_000,
  /** A page last visited longer ago than this reloads at once (it may be days old). */
  forcedReloadMs: 24 * 60 * 60_000,
  /** 'Updating to latest version...' stays this long before the reload. */
  updatingNoticeMs: 1_500,
  /** How often an open page asks whether a newer build is served (also on navigation and on return to the tab). */
  versionPollMs: 5 * 60_000,
  /** Default time on screen of a temporary message. */
  temporaryMessageMs: 30_000,
} as const;

export const EXPIRED_MESSAGE = 'Your credentials have expired. Please refresh the page.';
export const UPDATING_MESSAGE = 'Updating to latest version...';

/** Seconds since the epoch at which a JWT expires, or null when it carries no readable `exp`. */
export function tokenExpiry(token: string | null): number | null {
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp : null;
  } catch {
    return null;
  }
}

/** Milliseconds until the expiry check fires for a token (0 when already due), null for none. */
export function msUntilExpiryCheck(token: string | null, now = Date.now()): number | null {
  const exp = tokenExpiry(token);
  if (exp === null) return null;
  return Math.max(0, (exp - RULES.expiryLeadSeconds) * 1000 - now);
}

/** Resolves with the token once one is stored (signing in happens elsewhere), looking every 100 ms; null after `timeoutMs`. */
export function waitForToken(timeoutMs: number, signal?: AbortSignal): Promise<string | null> {
  return new Promise((resolve) => {
    const started = Date.now();
    const look = () => {
      if (signal?.aborted) return resolve(null);
      const token = storage.token;
      if (token) return resolve(token);
      if (Date.now() - started >= timeoutMs) return resolve(null);
      setTimeout(look, RULES.tokenPollMs);
    };
    look();
  });
}

/** The build the server serves now, or null when it cannot be asked (offline, a dev server). */
export async function servedBuild(): Promise<string | null> {
  try {
    const response = await fetch('/version.json', { cache: 'no-store', headers: { accept: 'application/json' } });
    if (!response.ok) return null;
    const body = (await response.json()) as { build?: unknown };
    return typeof body.build === 'string' ? body.build : null;
  } catch {
    return null;
  }
}

/** Local storage keys of spec §9 that this module keeps. */
export const LAST_VISIT_KEY = 'last_visit_time';
export const UNIVERSE_KEY = 'selected_universe';

/** True when the last visit recorded is older than the forced-reload age. */
export function visitIsStale(now = Date.now()): boolean {
  const last = Number(localStorage.getItem(LAST_VISIT_KEY));
  return Number.isFinite(last) && last > 0 && now - last > RULES.forcedReloadMs;
}

export function recordVisit(now = Date.now()) {
  localStorage.setItem(LAST_VISIT_KEY, String(now));
}

/** The selected universe (spec §9: default 'default'), stored on first use. */
export function selectedUniverse(): string {
  const stored = localStorage.getItem(UNIVERSE_KEY);
  if (stored) return stored;
  localStorage.setItem(UNIVERSE_KEY, 'default');
  return 'default';
}

export type TemporaryMessage = { text: string; severity?: 'info' | 'success' | 'warning' | 'error' };

/** A temporary message is a string or `{ text, severity }` (spec §5); anything else is refused. */
export function toTemporaryMessage(message: unknown): TemporaryMessage {
  if (typeof message === 'string') return { text: message };
  if (message && typeof message === 'object' && typeof (message as { text?: unknown }).text === 'string') return message as TemporaryMessage;
  throw new TypeError('Temporary message must be a string or object');
}

type Listener = (message: TemporaryMessage | null, timeoutMs: number) => void;
const listeners = new Set<Listener>();
/** The message on show and until when: a banner mounted after it was raised still shows it. */
let current: { message: TemporaryMessage; until: number } | null = null;

/** Shows the banner for `timeoutMs` (default 30 s). */
export function showTemporaryMessage(message: unknown, timeoutMs: number = RULES.temporaryMessageMs) {
  const value = toTemporaryMessage(message);
  current = { message: value, until: Date.now() + timeoutMs };
  for (const l of listeners) l(value, timeoutMs);
}

export function onTemporaryMessage(listener: Listener) {
  listeners.add(listener);
  if (current && current.until > Date.now()) listener(current.message, current.until - Date.now());
  return () => void listeners.delete(listener);
}

/** Expiry announced by a 401 (authProvider.checkError) to the shell's dialog. */
const expiredListeners = new Set<() => void>();
export function announceExpired() {
  for (const l of expiredListeners) l();
}
export function onExpired(listener: () => void) {
  expiredListeners.add(listener);
  return () => void expiredListeners.delete(listener);
}
