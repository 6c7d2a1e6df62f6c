import { decodeHTML } from 'entities';
import type { Cue } from './extract.js';
import { SubmitError } from './submit-error.js';

/** The video id of a YouTube link (watch, youtu.be, shorts, embed), or null. */
export function youtubeId(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/^www\.|^m\./, '');
  let id: string | null = null;
  if (host === 'youtu.be') id = url.pathname.slice(1);
  else if (host === 'youtube.com' || host === 'music.youtube.com')
    id = url.searchParams.get('v') ?? /^\/(?:shorts|embed|live)\/([^/?]+)/.exec(url.pathname)?.[1] ?? null;
  return id && /^[A-Za-z0-9_-]{6,20}$/.test(id) ? id : null;
}

/** The title a link-only transcript gets until its watch page names the video. */
export const youtubeTitle = (videoId: string) => `YouTube video ${videoId}`;

/**
 * The JSON value (object or array) that starts at `from`, found by matching brackets outside
 * strings, or null. The watch page embeds the player response in a script, not as a JSON document.
 */
export function jsonValueAt(text: string, from: number): unknown {
  const open = text[from];
  if (open !== '{' && open !== '[') return null;
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth === 0) {
        try {
          return JSON.parse(text.slice(from, i + 1));
        } catch {
          return null;
        }
      }
    }
  }
  return null;
}

export interface CaptionTrack {
  baseUrl: string;
  languageCode: string;
  /** 'asr' for automatic captions. */
  kind?: string;
}

interface PlayerResponse {
  playabilityStatus?: { status?: string; reason?: string };
  videoDetails?: { title?: string };
  captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: CaptionTrack[] } };
}

/** The caption tracks, title and playability the watch page's ytInitialPlayerResponse declares. */
export function readWatchPage(html: string): { tracks: CaptionTrack[]; title: string | null; unplayable: string | null } {
  const marker = /ytInitialPlayerResponse\s*=\s*/.exec(html);
  const player = (marker ? jsonValueAt(html, marker.index + marker[0].length) : null) as PlayerResponse | null;
  let tracks = player?.captions?.playerCaptionsTracklistRenderer?.captionTracks;
  if (!tracks) {
    // Some page variants carry the track list outside a parsable player response.
    const at = html.indexOf('"captionTracks":');
    tracks = at >= 0 ? ((jsonValueAt(html, at + '"captionTracks":'.length) as CaptionTrack[] | null) ?? undefined) : undefined;
  }
  const status = player?.playabilityStatus?.status;
  return {
    tracks: (tracks ?? []).filter((t) => typeof t?.baseUrl === 'string'),
    title:
      player?.videoDetails?.title ??
      /<title>([^<]*)<\/title>/
        .exec(html)?.[1]
        ?.replace(/\s*-\s*YouTube\s*$/, '')
        .trim() ??
      null,
    unplayable: status && status !== 'OK' ? (player?.playabilityStatus?.reason ?? status) : null,
  };
}

/** Cue text of a timedtext XML element: tags dropped, entities decoded (the legacy format escapes them twice). */
const xmlText = (s: string) =>
  decodeHTML(decodeHTML(s.replace(/<[^>]+>/g, '')))
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Cues of a timedtext answer in any of the formats YouTube serves: json3 (events with tStartMs and
 * segs), srv3 XML (<p t="ms" d="ms">) or the legacy XML (<text start="s" dur="s">).
 */
export function parseTimedText(body: string): Cue[] {
  const trimmed = body.trimStart();
  const cues: Cue[] = [];
  if (trimmed.startsWith('{')) {
    let events: { tStartMs?: number; dDurationMs?: number; segs?: { utf8?: string }[] }[] = [];
    try {
      events = (JSON.parse(trimmed) as { events?: typeof events }).events ?? [];
    } catch {
      return [];
    }
    for (const e of events) {
      const text = (e.segs ?? [])
        .map((s) => s.utf8 ?? '')
        .join('')
        .replace(/\s+/g, ' ')
        .trim();
      if (text && typeof e.tStartMs === 'number') cues.push({ start: e.tStartMs / 1000, end: (e.tStartMs + (e.dDurationMs ?? 0)) / 1000, text });
    }
    return cues;
  }
  for (const m of trimmed.matchAll(/<p\b([^>]*)>([\s\S]*?)<\/p>/g)) {
    const t = /\bt="(\d+)"/.exec(m[1]!);
    const d = /\bd="(\d+)"/.exec(m[1]!);
    const text = xmlText(m[2]!);
    if (t && text) cues.push({ start: Number(t[1]) / 1000, end: (Number(t[1]) + Number(d?.[1] ?? 0)) / 1000, text });
  }
  if (cues.length) return cues;
  for (const m of trimmed.matchAll(/<text\b([^>]*)>([\s\S]*?)<\/text>/g)) {
    const start = /\bstart="([\d.]+)"/.exec(m[1]!);
    const dur = /\bdur="([\d.]+)"/.exec(m[1]!);
    const text = xmlText(m[2]!);
    if (start && text) cues.push({ start: Number(start[1]), end: Number(start[1]) + Number(dur?.[1] ?? 0), text });
  }
  return cues;
}

const vttTime = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const hh = String(Math.floor(ms / 3_600_000)).padStart(2, '0');
  const mm = String(Math.floor((ms % 3_600_000) / 60_000)).padStart(2, '0');
  const ss = String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0');
  return `${hh}:${mm}:${ss}.${String(ms % 1000).padStart(3, '0')}`;
};

/** Cues as a WebVTT file, the form a transcript submission is stored and indexed in. */
export function toVtt(cues: Cue[]): string {
  return `WEBVTT\n\n${cues.map((c) => `${vttTime(c.start)} --> ${vttTime(Math.max(c.end, c.start))}\n${c.text.replace(/\n+/g, ' ').replace(/-->/g, '->')}`).join('\n\n')}\n`;
}

/** Transcripts larger than this are refused (an hour of speech is about 60 KB). */
const MAX_TRANSCRIPT_BYTES = 10 * 1024 * 1024;

/** Manual English captions first, then automatic English ones, then whatever comes first. */
const pickTrack = (tracks: CaptionTrack[]) =>
  tracks.find((t) => t.languageCode.startsWith('en') && t.kind !== 'asr') ?? tracks.find((t) => t.languageCode.startsWith('en')) ?? tracks[0];

/**
 * Fetches a video's captions the way a browser gets them: the watch page (under `baseUrl`, by
 * default https://www.youtube.com) names its caption tracks in ytInitialPlayerResponse; the chosen
 * track's timedtext URL is fetched as json3. The cues come back as WebVTT with their start times.
 * Any failure is a SubmitError naming the reason and telling the user to upload the caption file instead.
 */
export async function fetchYoutubeTranscript(
  baseUrl: string,
  link: string,
  timeoutMs: number,
): Promise<{ id: string; vtt: string; title: string; cues: number }> {
  const id = youtubeId(link);
  if (!id) throw new SubmitError(`'${link}' is not a YouTube video link.`, ['url']);
  const fail = (why: string) =>
    new SubmitError(`Could not fetch the YouTube transcript (${why}). Upload the video's caption file (WebVTT or SRT) instead.`, ['url']);
  const get = async (url: string) => {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { 'accept-language': 'en' } });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw fail((err as Error).name === 'TimeoutError' ? 'the network did not answer in time' : `network unreachable${cause ? `: ${cause}` : ''}`);
    }
    if (!res.ok) throw fail(`YouTube answered ${res.status}`);
    if (Number(res.headers.get('content-length') ?? 0) > MAX_TRANSCRIPT_BYTES) throw fail('the answer was too large');
    return res.text();
  };
  const page = readWatchPage(await get(new URL(`/watch?v=${encodeURIComponent(id)}`, baseUrl).toString()));
  if (page.unplayable) throw fail(`the video is not available: ${page.unplayable}`);
  const track = pickTrack(page.tracks);
  if (!track) throw fail('the video has no captions');
  const trackUrl = new URL(track.baseUrl, baseUrl);
  trackUrl.searchParams.set('fmt', 'json3');
  const cues = parseTimedText(await get(trackUrl.toString()));
  if (!cues.length) throw fail('the captions were empty or not in a readable format');
  return { id, vtt: toVtt(cues), title: page.title || youtubeTitle(id), cues: cues.length };
}
