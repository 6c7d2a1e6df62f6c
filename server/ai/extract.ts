import { Parser } from 'htmlparser2';
import type { ChunkPlace } from './tables.js';

/** A run of text with one place in its source (a page, a heading's section, a cue, a row). */
export interface Section {
  text: string;
  place: ChunkPlace;
}

export type FileKind = 'text' | 'markdown' | 'html' | 'pdf' | 'docx' | 'csv' | 'json' | 'vtt' | 'srt';

/** Thrown for content that cannot be read; its message is shown to the user. */
export class ExtractError extends Error {}

const byExtension: Record<string, FileKind> = {
  txt: 'text',
  text: 'text',
  log: 'text',
  md: 'markdown',
  markdown: 'markdown',
  htm: 'html',
  html: 'html',
  pdf: 'pdf',
  docx: 'docx',
  csv: 'csv',
  json: 'json',
  vtt: 'vtt',
  srt: 'srt',
};
const byMime: Record<string, FileKind> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/csv': 'csv',
  'application/json': 'json',
  'text/vtt': 'vtt',
  'application/x-subrip': 'srt',
};

/** The file kind from its name (preferred) or MIME type; null for kinds Firewatch cannot read. */
export function fileKind(fileName: string, fileType?: string | null): FileKind | null {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return (ext && byExtension[ext]) || (fileType ? byMime[fileType.split(';')[0]!.trim().toLowerCase()] : undefined) || null;
}

export const SUPPORTED_FILES = 'plain text, Markdown, HTML, PDF, DOCX, CSV, JSON, WebVTT or SRT';

function utf8(buf: Buffer): string {
  return checkText(new TextDecoder('utf-8', { fatal: false }).decode(buf).replace(/^\uFEFF/, ''));
}

/** Throws when the start of a decoded file shows it is not text; answers the text. */
function checkText(text: string): string {
  // A binary file read as text is mostly replacement and control characters.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what marks a binary file
  const bad = (text.slice(0, 4000).match(/[\uFFFD\u0000-\u0008\u000E-\u001F]/g) ?? []).length;
  if (text.length > 0 && bad / Math.min(text.length, 4000) > 0.1) throw new ExtractError('The file does not look like text.');
  return text;
}

/** Splits any supported file into sections with their place. */
export async function extract(kind: FileKind, buf: Buffer): Promise<Section[]> {
  switch (kind) {
    case 'text':
      return plainSections(utf8(buf));
    case 'markdown':
      return markdownSections(utf8(buf));
    case 'html':
      return htmlSections(utf8(buf));
    case 'pdf':
      return pdfSections(buf);
    case 'docx':
      return docxSections(buf);
    case 'csv':
      return csvSections(utf8(buf));
    case 'json':
      return jsonSections(utf8(buf));
    case 'vtt':
    case 'srt':
      return cueSections(parseCues(utf8(buf)));
  }
}

/**
 * A parser fed a file piece by piece: `push` answers the sections completed so far, `end` the rest.
 * Large files are read and indexed a window at a time (ingest.ts), so a file is never held whole as
 * text, sections and chunks at once.
 */
export interface SectionStream {
  push(text: string): Section[];
  end(): Section[];
}

/** Feeds whole lines to `line` (the last, unfinished one waits for the next piece). */
function lineStream(line: (text: string) => void, done: () => void, out: Section[]): SectionStream {
  let carry = '';
  return {
    push(text) {
      const lines = (carry + text).split(/\r?\n/);
      carry = lines.pop()!;
      for (const l of lines) line(l);
      return out.splice(0);
    },
    end() {
      line(carry);
      carry = '';
      done();
      return out.splice(0);
    },
  };
}

const whole = (stream: SectionStream, text: string) => [...stream.push(text), ...stream.end()];

/** Paragraphs (blank-line separated), each with the line it starts on. */
export function plainStream(): SectionStream {
  const out: Section[] = [];
  let lineNo = 0;
  let start = 0;
  let buf: string[] = [];
  const flush = () => {
    const t = buf.join(' ').replace(/\s+/g, ' ').trim();
    if (t) out.push({ text: t, place: { line: start + 1 } });
    buf = [];
  };
  return lineStream(
    (line) => {
      if (!line.trim()) flush();
      else {
        if (!buf.length) start = lineNo;
        buf.push(line);
      }
      lineNo++;
    },
    flush,
    out,
  );
}

export const plainSections = (text: string): Section[] => whole(plainStream(), text);

/** Paragraphs under their heading path ("Runbook › Restart"). */
export function markdownStream(): SectionStream {
  const out: Section[] = [];
  const path: string[] = [];
  let buf: string[] = [];
  let inFence = false;
  const flush = () => {
    const t = buf.join(' ').replace(/\s+/g, ' ').trim();
    if (t) out.push({ text: t, place: path.length ? { heading: path.filter(Boolean).join(' › ') } : {} });
    buf = [];
  };
  const heading = (level: number, text: string) => {
    path.length = level - 1;
    path[level - 1] = stripInline(text);
  };
  return lineStream(
    (raw) => {
      if (/^\s*(```|~~~)/.test(raw)) {
        inFence = !inFence;
        return;
      }
      const h = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(raw);
      if (h) {
        flush();
        heading(h[1]!.length, h[2]!);
        return;
      }
      // A line of = or - under a paragraph makes it a heading ("Where to send\n-------------"); on
      // its own, like *** or ___, it is a rule. Neither is text.
      const underline = inFence ? null : /^ {0,3}(=+|-+)\s*$/.exec(raw);
      if (underline && buf.length) {
        const text = buf.join(' ');
        buf = [];
        heading(underline[1]!.startsWith('=') ? 1 : 2, text);
        return;
      }
      if (!inFence && (underline || /^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(raw))) return flush();
      if (!raw.trim()) return flush();
      buf.push(inFence ? raw : stripInline(raw.replace(/^\s*([-*+]|\d+\.)\s+/, '').replace(/^\s*>\s?/, '')));
    },
    flush,
    out,
  );
}

export const markdownSections = (text: string): Section[] => whole(markdownStream(), text);

const stripInline = (s: string) =>
  s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]{1,3}([^*_`]+)[*_`]{1,3}/g, '$1');

const BLOCK = new Set([
  'p',
  'div',
  'li',
  'tr',
  'br',
  'section',
  'article',
  'blockquote',
  'pre',
  'table',
  'ul',
  'ol',
  'dd',
  'dt',
  'td',
  'th',
  'header',
  'footer',
  'main',
]);
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);

/**
 * Navigation (a site's menu, DocBook's "Prev Up Next / Home" bars): the same links on every page,
 * which would otherwise be each page's first passage.
 */
const isNavigation = (name: string, attribs: Record<string, string>) =>
  name === 'nav' ||
  attribs.role?.toLowerCase() === 'navigation' ||
  /(^|\s)(navheader|navfooter)(\s|$)/.test(attribs.class ?? '') ||
  /^navigation (header|footer)$/i.test(attribs.summary ?? '');

/** Visible text of an HTML document, in blocks under their h1–h6 heading path. */
export function htmlStream(): SectionStream {
  const out: Section[] = [];
  const path: string[] = [];
  let skip = 0;
  // The navigation element being left out, and how many elements of its name are open inside it.
  let nav: { name: string; depth: number } | null = null;
  let heading: { level: number; text: string } | null = null;
  let buf = '';
  const flush = () => {
    const t = buf.replace(/\s+/g, ' ').trim();
    if (t) out.push({ text: t, place: path.length ? { heading: path.filter(Boolean).join(' › ') } : {} });
    buf = '';
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (nav) {
          if (name === nav.name) nav.depth++;
        } else if (isNavigation(name, attribs)) {
          nav = { name, depth: 1 };
          skip++;
        } else if (SKIP.has(name)) skip++;
        else if (/^h[1-6]$/.test(name)) {
          flush();
          heading = { level: Number(name[1]), text: '' };
        } else if (BLOCK.has(name)) buf += '\n';
      },
      ontext(text) {
        if (skip) return;
        if (heading) heading.text += text;
        else buf += text;
      },
      onclosetag(name) {
        if (nav) {
          if (name === nav.name && --nav.depth === 0) {
            nav = null;
            skip = Math.max(0, skip - 1);
          }
        } else if (SKIP.has(name)) skip = Math.max(0, skip - 1);
        else if (heading && /^h[1-6]$/.test(name)) {
          path.length = heading.level - 1;
          path[heading.level - 1] = heading.text.replace(/\s+/g, ' ').trim();
          heading = null;
        } else if (name === 'p' || name === 'li' || name === 'tr' || name === 'pre' || name === 'blockquote') flush();
      },
    },
    { decodeEntities: true },
  );
  return {
    push(text) {
      parser.write(text);
      return out.splice(0);
    },
    end() {
      parser.end();
      flush();
      return out.splice(0);
    },
  };
}

export const htmlSections = (html: string): Section[] => whole(htmlStream(), html);

/** Kinds read a window at a time; the others (PDF, DOCX, CSV, JSON, captions) need the whole file. */
export function sectionStream(kind: FileKind): SectionStream | null {
  if (kind === 'text') return plainStream();
  if (kind === 'markdown') return markdownStream();
  if (kind === 'html') return htmlStream();
  return null;
}

/**
 * Decodes a file's bytes window by window (UTF-8 split across windows is kept whole) and parses
 * them with `stream`; yields each window's sections. The first window is checked to be text.
 */
export async function* streamSections(
  stream: SectionStream,
  windows: AsyncIterable<Uint8Array>,
  opts: { checkText?: boolean } = {},
): AsyncGenerator<Section[]> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let first = true;
  for await (const bytes of windows) {
    let text = decoder.decode(bytes, { stream: true });
    if (first) {
      text = text.replace(/^\uFEFF/, '');
      if (opts.checkText !== false) checkText(text);
      first = false;
    }
    yield stream.push(text);
  }
  yield [...stream.push(decoder.decode()), ...stream.end()];
}

/**
 * Text of each PDF page (pdf.js), with its page number. A running header (the same first line on
 * most pages) and a page's bare number are left out, so passages end with their text, not "… 2".
 */
export async function pdfSections(buf: Buffer): Promise<Section[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc;
  try {
    doc = await pdfjs.getDocument({ data: new Uint8Array(buf), isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  } catch (err) {
    throw new ExtractError(`The PDF could not be read (${(err as Error).message}).`);
  }
  const pages: string[][] = [];
  try {
    for (let page = 1; page <= doc.numPages; page++) {
      const content = await (await doc.getPage(page)).getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.split('\n'));
    }
  } finally {
    await doc.destroy();
  }
  const firstLines = new Map<string, number>();
  for (const lines of pages) {
    const first = lines.find((l) => l.trim())?.trim();
    if (first) firstLines.set(first, (firstLines.get(first) ?? 0) + 1);
  }
  const running = (line: string) => pages.length > 2 && (firstLines.get(line.trim()) ?? 0) > pages.length / 2;
  const out: Section[] = [];
  pages.forEach((lines, i) => {
    const first = lines.findIndex((l) => l.trim());
    if (first >= 0 && running(lines[first]!)) lines.splice(first, 1);
    const last = lines.findLastIndex((l) => l.trim());
    if (last >= 0 && lines[last]!.trim() === String(i + 1)) lines.splice(last, 1);
    // Paragraphs on a page stay apart so long pages split at their breaks.
    for (const para of lines.join('\n').split(/\n\s*\n/)) {
      const t = para.replace(/\s+/g, ' ').trim();
      if (t) out.push({ text: t, place: { page: i + 1 } });
    }
  });
  return out;
}

/** DOCX through mammoth's HTML, so Word headings become heading places. */
export async function docxSections(buf: Buffer): Promise<Section[]> {
  const mammoth = (await import('mammoth')).default;
  try {
    const { value } = await mammoth.convertToHtml({ buffer: buf });
    return htmlSections(value);
  } catch (err) {
    throw new ExtractError(`The DOCX file could not be read (${(err as Error).message}).`);
  }
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

/** Each data row as "header: value; …", placed by its row number (1 = first data row). */
export function csvSections(text: string): Section[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((r, i) => ({
    text: r
      .map((v, j) => (header[j] ? `${header[j]}: ${v}` : v))
      .filter((s) => s.trim())
      .join('; '),
    place: { row: i + 1 },
  }));
}

/** Leaf values as "path: value" lines, grouped by their top-level key or array item. */
export function jsonSections(text: string): Section[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ExtractError(`The JSON file is not valid JSON (${(err as Error).message}).`);
  }
  const groups = new Map<string, string[]>();
  const walk = (v: unknown, path: string, group: string) => {
    if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const p = Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
        walk(child, p, group || p);
      }
    } else if (v !== null && v !== undefined && String(v).trim()) {
      const g = group || '$';
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g)!.push(`${path || '$'}: ${String(v)}`);
    }
  };
  walk(value, '', '');
  return [...groups].map(([path, lines]) => ({ text: lines.join('\n'), place: { path } }));
}

export interface Cue {
  start: number;
  end: number;
  text: string;
}

const time = (s: string) => {
  const m = /(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/.exec(s);
  if (!m) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]!.padEnd(3, '0')) / 1000;
};

/** Cues of a WebVTT or SRT file (both use "start --> end" lines). */
export function parseCues(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n{2,}/)) {
    const lines = block.split('\n');
    const at = lines.findIndex((l) => l.includes('-->'));
    if (at < 0) continue;
    const [a, b] = lines[at]!.split('-->');
    const start = time(a!);
    const end = time(b!);
    if (start === null || end === null) continue;
    const body = lines
      .slice(at + 1)
      .join(' ')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (body) cues.push({ start, end, text: body });
  }
  if (!cues.length && text.trim()) throw new ExtractError('No caption cues were found (expected WebVTT or SRT "00:00:01.000 --> 00:00:04.000" lines).');
  return cues;
}

export const cueSections = (cues: Cue[]): Section[] => cues.map((c) => ({ text: c.text, place: { start: c.start, end: c.end } }));
