import { send, startStandIn } from './base.js';

/**
 * Twilio REST 2010-04-01: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` (To, From, Body) and
 * `Calls.json` (To, From, Twiml), form-encoded, HTTP Basic with the account SID and auth token.
 * Errors as Twilio sends them: `{code, message, more_info, status}` (20003 authenticate, 21211 invalid To).
 */
export async function twilioStandIn(sid: string, token: string) {
  let n = 0;
  return startStandIn((req, res) => {
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(req.path);
    if (!m || req.method !== 'POST')
      return send(res, 404, {
        code: 20404,
        message: 'The requested resource was not found',
        more_info: 'https://www.twilio.com/docs/errors/20404',
        status: 404,
      });
    const auth = `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;
    if (m[1] !== sid || req.headers.authorization !== auth)
      return send(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    const form = new URLSearchParams(req.body);
    if (!/^\+[1-9]\d{6,14}$/.test(form.get('To') ?? ''))
      return send(res, 400, {
        code: 21211,
        message: `The 'To' number ${form.get('To')} is not a valid phone number.`,
        more_info: 'https://www.twilio.com/docs/errors/21211',
        status: 400,
      });
    const prefix = m[2] === 'Messages' ? 'SM' : 'CA';
    send(res, 201, {
      sid: `${prefix}${String(++n).padStart(32, '0')}`,
      account_sid: sid,
      to: form.get('To'),
      from: form.get('From'),
      status: 'queued',
      body: form.get('Body') ?? undefined,
    });
  });
}
