import type { ChunkPlace } from '../../../server/ai/tables.js';

/** A cited passage's place in its upload (the server's own shape), and a citation as the chat socket sends it. */
export type Place = ChunkPlace;

export interface Source {
  n: number;
  object_type: string;
  object_id: number | string;
  /** The upload the passage comes from, when it comes from one. */
  submission_id?: number | null;
  title: string;
  snippet: string;
  place: Place;
  url?: string | null;
}
