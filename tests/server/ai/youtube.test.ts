import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { parseTimedText, readWatchPage } from '../../../server/ai/youtube.js';
import { testApp } from '../../helpers.js';
import { SocketClient } from './socket-client.js';

interface Cue {
  ms: number;
  dur: number;
  text: string;
}

/** Cues of the stand-in video; the heron sentence starts at 12:34.2. */
const HERON: Cue[] = [
  { ms: 1200, dur: 3000, text: 'Welcome to the storage walkthrough.' },
  { ms: 5200, dur: 2500, text: 'First the agenda.' },
  { ms: 754_200, dur: 4100, text: 'The heron migration moves every bucket to the new cluster.' },
  { ms: 758_300, dur: 3600, text: 'Expect a short read-only window.' },
];

const html = (player: object, title: string) =>
  // The real page embeds the player response in a script, with & escaped as \u0026 inside JSON strings.
  `<!DOCTYPE html><html><head><title>${title} - YouTube</title></head><body><script nonce="n1">var ytInitialPlayerResponse = ${JSON.stringify(player).replace(/&/g, '\\u0026')};var meta = document.createElement('meta');</script></body></html>`;

/**
 * A stand-in for www.youtube.com speaking its caption protocol: /watch?v= serves a page whose
 * ytInitialPlayerResponse lists caption tracks (signed timedtext URLs); /api/timedtext answers json3
 * with fmt=json3 and the legacy XML otherwise, and refuses URLs whose signature is missing.
 */
async function fakeYoutube(t: Test) {
  const state = { requests: [] as string[], failNext: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, base);
    state.requests.push(url.pathname + url.search);
    if (state.failNext > 0) {
      state.failNext--;
      res.writeHead(503);
      return res.end('unavailable');
    }
    const id = url.searchParams.get('v') ?? '';
    if (url.pathname === '/watch') {
      const track = (lang: string, kind?: string) => ({
        baseUrl: `${base}/api/timedtext?v=${id}&ei=xyz&caps=asr&opi=112496729&xoaf=5&hl=en&ip=0.0.0.0&ipbits=0&expire=1900000000&sparams=ip,ipbits,expire,v,ei,caps,opi,xoaf&signature=ABC.123&key=yt8${kind ? `&kind=${kind}` : ''}&lang=${lang}`,
        name: lang === 'en' ? { runs: [{ text: kind ? 'English (auto-generated)' : 'English' }] } : { simpleText: 'Deutsch' },
        vssId: `${kind ? 'a' : ''}.${lang}`,
        languageCode: lang,
        ...(kind ? { kind } : {}),
        isTranslatable: true,
        trackName: '',
      });
      const player: Record<string, unknown> = {
        responseContext: {},
        playabilityStatus: { status: 'OK', playableInEmbed: true },
        videoDetails: { videoId: id, title: 'Heron migration walkthrough', lengthSeconds: '900' },
      };
      if (id === 'heronTalk01')
        player.captions = {
          playerCaptionsTracklistRenderer: {
            captionTracks: [track('de'), track('en', 'asr')],
            audioTracks: [{ captionTrackIndices: [0, 1] }],
            defaultAudioTrackIndex: 0,
          },
        };
      if (id === 'privateVid1') player.playabilityStatus = { status: 'LOGIN_REQUIRED', reason: 'This video is private' };
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(html(player, 'Heron migration walkthrough'));
    }
    if (url.pathname === '/api/timedtext' && url.searchParams.get('signature') === 'ABC.123' && url.searchParams.get('lang') === 'en') {
      if (url.searchParams.get('fmt') === 'json3') {
        const events = [{ tStartMs: 0, dDurationMs: 900_000, id: 1, wpWinPosId: 1, wsWinStyleId: 1 }];
        for (const c of HERON) {
          const [first, ...rest] = c.text.split(' ');
          events.push({
            tStartMs: c.ms,
            dDurationMs: c.dur,
            wWinId: 1,
            segs: [{ utf8: first }, ...rest.map((w, i) => ({ utf8: ` ${w}`, tOffsetMs: 200 * (i + 1) }))],
          } as never);
          events.push({ tStartMs: c.ms + c.dur - 10, dDurationMs: 10, wWinId: 1, aAppend: 1, segs: [{ utf8: '\n' }] } as never);
        }
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        return res.end(JSON.stringify({ wireMagic: 'pb3', pens: [{}], wsWinStyles: [{}], wpWinPositions: [{}], events }));
      }
      res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
      return res.end(
        `<?xml version="1.0" encoding="utf-8" ?><transcript>${HERON.map((c) => `<text start="${c.ms / 1000}" dur="${c.dur / 1000}">${c.text}</text>`).join('')}</transcript>`,
      );
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { state, base };
}

async function workspace(t: Test, youtubeBase: string) {
  const { app, request, login, ticket } = await testApp(t, { YOUTUBE_BASE_URL: youtubeBase, JOB_POLL_SECONDS: '0.5' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const token = await login('owner@example.com');
  const project = (await request({ method: 'POST', url: '/api/v1/default/projects', token, payload: { name: 'Talks' } })).body as { id: number };
  const ws = await SocketClient.open(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/default/ws?ticket=${await ticket(token)}`);
  t.teardown(() => ws.close());
  const submitLink = async (url: string) => {
    const reply = await ws.request('video_transcript_submission', { url, project_id: project.id, sensitivityLevel: 'internal' }, 'submit_video_response');
    if (reply.data.status !== 'success') return { reply, final: null };
    const final = await ws.next(
      (f) => f.type === 'submission_status' && f.data.submission_id === reply.data.submission_id && (f.data.status === 'indexed' || f.data.status === 'failed'),
    );
    return { reply, final };
  };
  const listed = async (id: number) =>
    (await ws.request('fetch_submissions', { project_id: project.id }, 'submissions')).data.items.find((s: { id: number }) => s.id === id);
  return { ws, request, token, project, submitLink, listed };
}

t.test('a YouTube link is fetched through the watch page and timedtext; citations point at the moment', async (t) => {
  const yt = await fakeYoutube(t);
  const { ws, request, token, project, submitLink, listed } = await workspace(t, yt.base);

  const { reply, final } = await submitLink('https://youtu.be/heronTalk01?si=share');
  t.match(reply.data, { status: 'success', submission_id: Number, message: 'Transcript link received; its captions are being fetched.' });
  t.equal(final!.data.status, 'indexed', `indexed ${final!.data.error ?? ''}`);
  t.ok(
    yt.state.requests.some((r) => r.startsWith('/watch?v=heronTalk01')),
    'the watch page was read',
  );
  const timedtext = yt.state.requests.find((r) => r.startsWith('/api/timedtext'))!;
  t.match(timedtext, /lang=en/, 'the English track was chosen over the German one');
  t.match(timedtext, /fmt=json3/, 'as json3');
  t.match(await listed(reply.data.submission_id), {
    status: 'indexed',
    title: 'Heron migration walkthrough',
    fileName: 'heronTalk01.vtt',
    source_url: 'https://youtu.be/heronTalk01?si=share',
    kind: 'video_transcript',
  });

  ws.send('chat', { project_id: project.id, text: 'When does the heron migration move the buckets?' }, 'q1');
  const done = await ws.next((f) => f.id === 'q1' && f.type === 'chat_done');
  t.match(
    done.data.sources[0],
    { n: 1, object_type: 'chunk', title: 'Heron migration walkthrough', place: { start: 754.2 } },
    'the citation keeps the cue start',
  );
  t.equal(done.data.sources[0].url, 'https://youtu.be/heronTalk01?si=share&t=754s', 'and links to that moment of the video');
  t.match(done.data.answer, /12:34/, 'the answer names the moment');
  const opened = await ws.request(
    'fetch_object_content',
    { object_type: 'chunk', object_id: done.data.sources[0].object_id, chat_id: done.data.chat_id },
    'object_content',
  );
  t.match(opened.data, { place: { start: 754.2 }, text: /heron migration moves every bucket/ });

  // A video without captions, a private one, and YouTube failing: each fails with its reason.
  const none = await submitLink('https://www.youtube.com/watch?v=noCaptions1');
  t.match(none.final!.data, {
    status: 'failed',
    error: "Could not fetch the YouTube transcript (the video has no captions). Upload the video's caption file (WebVTT or SRT) instead.",
  });
  const secret = await submitLink('https://www.youtube.com/shorts/privateVid1');
  t.match(secret.final!.data.error, 'the video is not available: This video is private');
  yt.state.failNext = 1;
  const flaky = await submitLink('https://www.youtube.com/watch?v=heronTalk01');
  t.match(flaky.final!.data.error, 'YouTube answered 503');
  t.match(await listed(flaky.reply.data.submission_id), { status: 'failed', error: /YouTube answered 503/ }, 'the submission keeps the reason');
  // Indexing again fetches again.
  const again = await request({ method: 'POST', url: `/api/v1/default/submissions/${flaky.reply.data.submission_id}/index`, token });
  t.equal(again.status, 202);
  const retried = await ws.next(
    (f) => f.type === 'submission_status' && f.data.submission_id === flaky.reply.data.submission_id && f.data.status === 'indexed',
  );
  t.equal(retried.data.chunk_count, 2, 'the retried fetch indexed the transcript');

  const notYoutube = await submitLink('https://vimeo.com/12345');
  t.match(
    notYoutube.reply.data,
    { status: 'error', submission_id: null, message: /^Submission failed\. 'https:\/\/vimeo.com\/12345' is not a YouTube video link/ },
    'other links are refused at once',
  );
});

t.test('an unreachable YouTube fails the submission with the reason, over the socket too', async (t) => {
  // A port nothing listens on.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const { submitLink, listed } = await workspace(t, `http://127.0.0.1:${port}`);

  const { reply, final } = await submitLink('https://www.youtube.com/watch?v=heronTalk01');
  t.equal(reply.data.status, 'success', 'the link is accepted');
  const reason = "Could not fetch the YouTube transcript (network unreachable: ECONNREFUSED). Upload the video's caption file (WebVTT or SRT) instead.";
  t.match(final!.data, { status: 'failed', progress: 0, error: reason }, 'the socket says why it failed');
  t.match(await listed(reply.data.submission_id), { status: 'failed', error: reason, chunk_count: 0 }, 'so does the submission');
});

t.test('timedtext formats: json3, srv3 and the legacy XML keep cue start times', async (t) => {
  t.same(
    parseTimedText(
      '{"events":[{"tStartMs":0,"dDurationMs":5000},{"tStartMs":1500,"dDurationMs":2000,"segs":[{"utf8":"Hello"},{"utf8":" there","tOffsetMs":300}]},{"tStartMs":3490,"aAppend":1,"segs":[{"utf8":"\\n"}]}]}',
    ),
    [{ start: 1.5, end: 3.5, text: 'Hello there' }],
  );
  t.same(
    parseTimedText(
      '<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body><p t="61000" d="2500">Rock &amp; <s>roll</s></p><p t="70000" d="1000"> </p></body></timedtext>',
    ),
    [{ start: 61, end: 63.5, text: 'Rock & roll' }],
  );
  t.same(parseTimedText('<transcript><text start="3723.5" dur="3.5">It&amp;#39;s the heron &amp;amp; the crane</text></transcript>'), [
    { start: 3723.5, end: 3727, text: "It's the heron & the crane" },
  ]);
  t.same(parseTimedText('<html>sign in</html>'), [], 'anything else has no cues');
  const page = readWatchPage(
    `<script>var ytInitialPlayerResponse = {"videoDetails":{"title":"A {braced} \\"title\\""},"captions":{"playerCaptionsTracklistRenderer":{"captionTracks":[{"baseUrl":"https://www.youtube.com/api/timedtext?v=x\\u0026lang=en","name":{"simpleText":"English"},"languageCode":"en"}]}}};</script>`,
  );
  t.same(page, {
    tracks: [{ baseUrl: 'https://www.youtube.com/api/timedtext?v=x&lang=en', name: { simpleText: 'English' }, languageCode: 'en' }],
    title: 'A {braced} "title"',
    unplayable: null,
  });
});
