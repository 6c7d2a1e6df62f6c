import { createLocalJWKSet, exportJWK, exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
import { send, standIn, type Owner } from './standin.js';

/** Google's token endpoint (a service account's JWT bearer assertion, verified) and Calendar's events.insert. */
export async function googleStandIn(t: Owner) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), alg: 'RS256' }] });
  const events: any[] = [];
  const s = await standIn(t, async (req, res) => {
    if (req.path === '/token') {
      const form = new URLSearchParams(String(req.body));
      try {
        const { payload } = await jwtVerify(form.get('assertion') ?? '', jwks, { audience: `${s.url}/token` });
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error('grant');
        return send(res, 200, { access_token: `ya29.${payload.sub}`, expires_in: 3599, token_type: 'Bearer' });
      } catch {
        return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
    }
    const m = /^\/calendar\/v3\/calendars\/([^/]+)\/events\?(.*)$/.exec(req.path);
    if (!m || !req.headers.authorization?.startsWith('Bearer ya29.'))
      return send(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
    const q = new URLSearchParams(m[2]);
    if (q.get('conferenceDataVersion') !== '1') return send(res, 200, { id: `ev${events.length + 1}` });
    // The same requestId answers the same event (Google deduplicates conference creation by it).
    const again = events.find((e) => e.conferenceData.createRequest.requestId === req.body.conferenceData.createRequest.requestId);
    const event = again ?? { ...req.body, id: `ev${events.length + 1}`, hangoutLink: `https://meet.google.com/abc-${events.length + 1}` };
    if (!again) events.push(event);
    return send(res, 200, { ...event, conferenceData: { ...event.conferenceData, entryPoints: [{ entryPointType: 'video', uri: event.hangoutLink }] } });
  });
  return { ...s, events, privateKey: await exportPKCS8(privateKey) };
}

/** Zoom's Server-to-Server OAuth (account_credentials, Basic client auth) and POST /v2/users/me/meetings. */
export async function zoomStandIn(t: Owner, opts: { accountId: string; clientId: string; secret: string }) {
  const meetings: any[] = [];
  const s = await standIn(t, (req, res) => {
    const url = new URL(req.path, 'http://x');
    if (url.pathname === '/oauth/token') {
      const basic = `Basic ${Buffer.from(`${opts.clientId}:${opts.secret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return send(res, 400, { reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
      if (url.searchParams.get('grant_type') !== 'account_credentials' || url.searchParams.get('account_id') !== opts.accountId)
        return send(res, 400, { reason: 'Invalid request : Missing account_id', error: 'invalid_request' });
      return send(res, 200, { access_token: 'zoom-token', token_type: 'bearer', expires_in: 3599, scope: 'meeting:write:meeting:admin' });
    }
    if (req.headers.authorization !== 'Bearer zoom-token') return send(res, 401, { code: 124, message: 'Invalid access token.' });
    if (req.method === 'POST' && url.pathname === '/v2/users/me/meetings') {
      const meeting = { ...req.body, id: 85000000 + meetings.length + 1, join_url: `https://zoom.us/j/${85000000 + meetings.length + 1}`, password: 'x1' };
      meetings.push(meeting);
      return send(res, 201, meeting);
    }
    return send(res, 404, { code: 404, message: 'Not found' });
  });
  return { ...s, meetings };
}
