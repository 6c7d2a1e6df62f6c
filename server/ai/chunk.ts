import type { ChunkPlace } from './tables.js';
import type { Section } from './extract.js';

export interface Chunk {
  text: string;
  place: ChunkPlace;
}

export interface ChunkOptions {
  /** Target words per chunk; a paragraph longer than this is split at sentence ends. */
  maxWords?: number;
  /** Caption cues are merged up to this many words, so a citation points at a moment, not a minute. */
  maxCueWords?: number;
  /** Cues further than this from a chunk's first cue start a new chunk (seconds). */
  maxCueSpan?: number;
}

/** Words of a text (runs of non-space), counted without splitting it: every section and sentence is counted. */
function words(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // ASCII whitespace and the Unicode spaces \s matches (NBSP, the U+2000 block, line separators, ideographic space).
    const space =
      c <= 32
        ? c === 32 || (c >= 9 && c <= 13)
        : c === 0xa0 ||
          c === 0x1680 ||
          (c >= 0x2000 && c <= 0x200a) ||
          c === 0x2028 ||
          c === 0x2029 ||
          c === 0x202f ||
          c === 0x205f ||
          c === 0x3000 ||
          c === 0xfeff;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/**
 * Sentences, keeping their end punctuation (and a closing quote or bracket): a stop ends one only
 * before a space or a line break, so "billing.env", "v1.2" and "www.example.org" stay whole.
 * Abbreviations like "e.g." may split early, which is harmless here.
 */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?]["'\u201d\u2019)\]]*)\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Sections whose place differs only in line/row/cue time may share a chunk; pages and headings never mix. */
const groupKey = (p: ChunkPlace) => JSON.stringify({ page: p.page, heading: p.heading, path: p.path, cue: p.start !== undefined, row: p.row !== undefined });

/**
 * Packs sections into chunks of about `maxWords`, never across a page or heading, keeping the place
 * of the first section (and, for caption cues, the end time of the last).
 */
export function chunkSections(sections: Section[], opts: ChunkOptions = {}): Chunk[] {
  const maxWords = opts.maxWords ?? 160;
  const maxCueWords = opts.maxCueWords ?? 60;
  const maxCueSpan = opts.maxCueSpan ?? 30;
  const out: Chunk[] = [];
  let cur: Chunk | null = null;
  let curWords = 0;
  let curKey = '';
  const flush = () => {
    if (cur && cur.text.trim()) out.push(cur);
    cur = null;
    curWords = 0;
  };
  for (const s of sections) {
    const isCue = s.place.start !== undefined;
    const limit = isCue ? maxCueWords : maxWords;
    const key = groupKey(s.place);
    // Rows stay one per chunk: a citation names the row.
    if (s.place.row !== undefined) {
      flush();
      out.push({ text: s.text, place: s.place });
      continue;
    }
    const n = words(s.text);
    if (n > limit) {
      flush();
      let part = '';
      let partWords = 0;
      for (const sentence of sentences(s.text)) {
        const m = words(sentence);
        if (partWords && partWords + m > limit) {
          out.push({ text: part, place: s.place });
          part = '';
          partWords = 0;
        }
        part = part ? `${part} ${sentence}` : sentence;
        partWords += m;
      }
      if (part) out.push({ text: part, place: s.place });
      continue;
    }
    const tooFar = (c: Chunk | null) => isCue && c !== null && (s.place.start ?? 0) - (c.place.start ?? 0) > maxCueSpan;
    if (cur && (key !== curKey || curWords + n > limit || tooFar(cur))) flush();
    if (!cur) {
      cur = { text: s.text, place: { ...s.place } };
      curKey = key;
      curWords = n;
    } else {
      const c: Chunk = cur;
      c.text += (isCue || c.place.path ? '\n' : '\n\n') + s.text;
      if (isCue && s.place.end !== undefined) c.place.end = s.place.end;
      curWords += n;
    }
  }
  flush();
  return out;
}
