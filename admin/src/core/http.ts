import { HttpError } from 'react-admin';
import { apiUrl, storage } from './org.js';
import { announceExpired } from './session.js';

export interface DetailItem {
  msg: string;
  loc?: (string | number)[];
  type?: string;
}

export const SERVER_ERROR_MESSAGE = 'Something has gone wrong. Please, retry or let your admin know that you received this error.';

type FieldErrors = { [field: string]: string | FieldErrors };

/** Puts `msg` at `path` unless a message is already there or on a field above it (the first one wins). */
function placeError(errors: FieldErrors, path: string[], msg: string) {
  let node = errors;
  for (const step of path.slice(0, -1)) {
    const next = node[step];
    if (typeof next === 'string') return;
    node = node[step] = next ?? {};
  }
  node[path[path.length - 1]!] ??= msg;
}

/**
 * Turns a `{"detail": [...]}` answer into an HttpError: its message is the joined messages (shown as
 * a notification), and `body.errors` holds each body field's message at its path (`configuration:
 * {project_key: ...}` for `loc: ["body", "configuration", "project_key"]`), the shape react-admin's
 * form hands to react-hook-form, so a nested input shows its own message in place.
 */
export function toHttpError(status: number, payload: unknown): HttpError {
  const detail = (payload as { detail?: DetailItem[] } | null)?.detail;
  const items = Array.isArray(detail) ? detail : [];
  const message = items.map((d) => d.msg).join(' ') || (status >= 500 ? SERVER_ERROR_MESSAGE : `Request failed (${status}).`);
  const errors: FieldErrors = {};
  for (const item of items) {
    const [where, ...path] = item.loc ?? [];
    if (where !== 'body' || !path.length) continue;
    placeError(errors, path.map(String), item.msg);
  }
  return new HttpError(message, status, { detail: items, ...(Object.keys(errors).length ? { errors } : {}) });
}

/**
 * JSON over fetch with the bearer token; every failure becomes an HttpError. Globally, a refusal
 * because the session expired opens the 'Refresh Required' dialog, whichever screen asked; a request
 * that deals with it itself passes `globalErrors: false` (spec §8: a request can disable global handling).
 */
export async function api<T = unknown>(path: string, init: RequestInit & { json?: unknown; anonymous?: boolean; globalErrors?: boolean } = {}): Promise<T> {
  const { json, anonymous, globalErrors = true, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set('accept', 'application/json');
  if (json !== undefined) headers.set('content-type', 'application/json');
  const token = storage.token;
  if (token && !anonymous) headers.set('authorization', `Bearer ${token}`);
  let response: Response;
  try {
    response = await fetch(apiUrl(path), { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  } catch {
    throw new HttpError('The server cannot be reached. Check your connection and retry.', 0);
  }
  const text = await response.text();
  let payload: unknown;
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const error = toHttpError(response.status, payload);
    const expired = response.status === 401 && token && !anonymous && (error.body as { detail: DetailItem[] }).detail.some((d) => d.type === 'token_expired');
    if (expired && globalErrors) announceExpired();
    throw error;
  }
  return payload as T;
}
