import { HttpError } from 'react-admin';
import { api } from './http.js';

/**
 * The project last chosen, kept under localStorage `project` (spec §4) as `{"id", "organization"}` so
 * that each screen that picks a project (chat, the create forms) starts from it, and a project of
 * another organization is never offered.
 */
const KEY = 'project';

export function storedProject(): number | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { id?: unknown; organization?: unknown } | null;
    return value && value.organization === localStorage.getItem('organization') && typeof value.id === 'number' ? value.id : undefined;
  } catch {
    return undefined;
  }
}

export function rememberProject(id: unknown) {
  if (typeof id === 'number') localStorage.setItem(KEY, JSON.stringify({ id, organization: localStorage.getItem('organization') }));
}

/** A deleted project is no longer offered as the one to start from. */
export function forgetProject(id: unknown) {
  if (storedProject() === Number(id)) localStorage.removeItem(KEY);
}

export const NO_ORGANIZATION = 'Organization not found in localStorage';
export const NO_RESPONSE = 'No response received';

/** Creates a project (spec §8's messages: without an organization, or without an answer). */
export async function createProject<T extends { id: number }>(body: Record<string, unknown>): Promise<T> {
  if (!localStorage.getItem('organization')) throw new HttpError(NO_ORGANIZATION, 0);
  let made: T | null;
  try {
    made = await api<T | null>('/projects', { method: 'POST', json: body });
  } catch (err) {
    throw err instanceof HttpError && err.status === 0 ? new HttpError(NO_RESPONSE, 0) : err;
  }
  if (!made?.id) throw new HttpError(NO_RESPONSE, 0);
  rememberProject(made.id);
  return made;
}
