import { useSyncExternalStore } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { organization } from '../core/org.js';
import type { Place, Source } from './sources.js';

/**
 * The active object of spec §3's "other state": the passage or upload a person is reading (a
 * citation, a search result, an upload in the sources panel), with its content cached by type and
 * id. Setting it from another screen opens the chat page, which shows it; resetting clears the
 * object, its id and its content. Kept in memory only: spec §9 does not list it among the values
 * kept in local storage.
 */
export type ActiveObject = Pick<Source, 'object_type' | 'object_id' | 'title'> & Partial<Pick<Source, 'n' | 'place' | 'url'>>;

/** What fetch_object_content answers: a passage with its neighbours, or a whole upload's passages. */
export interface ObjectContent {
  text?: string;
  chunks?: { id: number; text: string }[];
  before?: string | null;
  after?: string | null;
  place?: Place;
  submission?: { title: string; source_url?: string | null };
}

/** Replaced on every change, so a component reading it re-renders when the object or a content changes. */
interface State {
  active: ActiveObject | null;
  contents: ReadonlyMap<string, ObjectContent>;
}
let state: State = { active: null, contents: new Map() };
const listeners = new Set<() => void>();
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
function update(next: State) {
  state = next;
  listeners.forEach((l) => l());
}

export const contentKey = (o: Pick<ActiveObject, 'object_type' | 'object_id'>) => `${o.object_type}:${o.object_id}`;

export function cacheContent(o: ActiveObject, content: ObjectContent) {
  update({ ...state, contents: new Map(state.contents).set(contentKey(o), content) });
}

export function setActiveObject(o: ActiveObject) {
  update({ ...state, active: o });
}

/** Clears the active object, its id and its content. */
export function resetActiveObject() {
  const contents = new Map(state.contents);
  if (state.active) contents.delete(contentKey(state.active));
  update({ active: null, contents });
}

/** The active object and the content cache (by type and id). */
export function useActiveObjectState(): State {
  return useSyncExternalStore(subscribe, () => state);
}

/** Sets the active object and, unless the chat page is already open, goes there (spec §2). */
export function useOpenInChat() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  return (o: ActiveObject) => {
    setActiveObject(o);
    if (!/\/chat\/?$/.test(pathname)) navigate(`/${organization}/chat`);
  };
}
