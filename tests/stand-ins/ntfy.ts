import { send, startStandIn } from './base.js';

/**
 * ntfy (https://docs.ntfy.sh/publish/): `POST /{topic}` with the message as the body and its
 * options as headers (Title, Priority 1–5, Tags, Actions); answers the message as JSON. A protected
 * server wants `Authorization: Bearer tk_…` (403 otherwise, as ntfy's `{"code":40301,…}`).
 */
export async function ntfyStandIn(opts: { token?: string } = {}) {
  let n = 0;
  return startStandIn((req, res) => {
    const topic = /^\/([A-Za-z0-9_-]{1,64})$/.exec(req.path)?.[1];
    if (req.method !== 'POST' || !topic) return send(res, 404, { code: 40401, http: 404, error: 'page not found' });
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`)
      return send(res, 403, { code: 40301, http: 403, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#authentication' });
    const priority = Number(req.headers.priority ?? 3);
    if (!(priority >= 1 && priority <= 5)) return send(res, 400, { code: 40007, http: 400, error: 'invalid priority' });
    send(res, 200, { id: `m${++n}`, time: Math.floor(Date.now() / 1000), event: 'message', topic, title: req.headers.title, message: req.body, priority });
  });
}
