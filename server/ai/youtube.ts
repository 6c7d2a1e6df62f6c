import { SubmitError } from './ingest.js';

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
  else if (host === 'youtube.com' || host === 'music.youtube.com') id = url.searchParams.get('v') ?? /^\/(?:shorts|embed|live)\/([^/?]+)/.exec(url.pathname)?.[1] ?? null;
  return id && /^[A-Za-z0-9_-]{6,20}$/.test(id) ? id : null;
}

const unescapeJson = (s: string) => JSON.parse(`"${s}"`) as string;

/**
 * Fetches a video's captions as WebVTT: the watch page names its caption tracks; the first English
 * (or else first) track is fetched in VTT form. Any failure is a SubmitError telling the user to
 * upload the caption file instead, so an offline server answers at once and clearly.
 */
export async function fetchYoutubeTranscript(baseUrl: string, link: string, timeoutMs: number): Promise<{ id: string; vtt: string; title: string }> {
  const id = youtubeId(link);
  if (!id) throw new SubmitError(`'${link}' is not a YouTube video link.`, ['url']);
  const fail = (why: string) => new SubmitError(`Could not fetch the YouTube transcript (${why}). Upload the video's caption file (WebVTT or SRT) instead.`, ['url']);
  const get = async (url: string) => {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { 'accept-language': 'en' } });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw fail((err as Error).name === 'TimeoutError' ? 'the network did not answer in time' : `network unreachable${cause ? `: ${cause}` : ''}`);
    }
    if (!res.ok) throw fail(`YouTube answered ${res.status}`);
    return res.text();
  };
  const page = await get(`${baseUrl}/watch?v=${encodeURIComponent(id)}`);
  const tracks = [...page.matchAll(/"baseUrl":"([^"]+)"[^}]*?"languageCode":"([^"]+)"/g)].map((m) => ({ url: unescapeJson(m[1]!), lang: m[2]! }));
  const track = tracks.find((t) => t.lang.startsWith('en')) ?? tracks[0];
  if (!track) throw fail('the video has no captions');
  const title = /<title>([^<]*)<\/title>/.exec(page)?.[1]?.replace(/\s*-\s*YouTube\s*$/, '').trim() || `YouTube video ${id}`;
  const trackUrl = new URL(track.url, baseUrl);
  trackUrl.searchParams.set('fmt', 'vtt');
  const vtt = await get(trackUrl.toString());
  if (!vtt.includes('-->')) throw fail('the captions were not in a readable format');
  return { id, vtt, title };
}
