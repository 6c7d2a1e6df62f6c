import { readFileSync } from 'node:fs';
import t from 'tap';
import { renderManifest } from '../../../server/slack/manifest.js';
import { slackApp } from './helpers.js';

t.test('Add to Slack: OAuth v2 install, one per workspace, token sealed; app_uninstalled switches it off', async (t) => {
  const s = await slackApp(t, { install: false });
  const id = await s.addInstance();

  const link = await s.api('POST', '/slack/install-link', { plugin_instance_id: id });
  const url = new URL(link.body.url);
  t.equal(`${url.origin}${url.pathname}`, s.slack.authorizeUrl, 'the browser goes to Slack’s authorize page');
  t.equal(url.searchParams.get('client_id'), s.slack.client.id);
  t.match(url.searchParams.get('scope'), /channels:manage.*users:read\.email/);
  t.equal(url.searchParams.get('redirect_uri'), 'http://firewatch.test/api/v1/default/slack/oauth/callback');

  const member = await s.login('member@example.com', { role: 'Member' });
  const refused = await s.api('POST', '/slack/install-link', { plugin_instance_id: id }, member);
  t.equal(refused.status, 403, 'a Member may not connect Slack');

  const forged = await s.request({
    method: 'GET',
    url: `/api/v1/default/slack/oauth/callback?code=${s.slack.issueCode()}&state=${url.searchParams.get('state')}x`,
  });
  t.equal(forged.status, 400, 'a tampered state is refused');
  t.equal(forged.body.detail[0].loc[1], 'state');

  const done = await s.install(id);
  t.equal(done.status, 302);
  t.equal(done.headers.location, `http://firewatch.test/default/admin/slack?installed=${encodeURIComponent(s.slack.team.name)}`);
  const exchange = s.callsOf('oauth.v2.access')[0]!;
  t.match(exchange.args, { client_id: s.slack.client.id, client_secret: s.slack.client.secret, redirect_uri: /slack\/oauth\/callback$/ });

  const instance = (await s.api('GET', `/plugins/instances/${id}`)).body;
  t.equal(instance.configuration.bot_token, '********', 'the bot token is never answered');
  t.equal(instance.configuration.team_id, s.slack.team.id);
  const [row] = await s.database.db
    .execute(`select secrets->>'bot_token' as sealed from plugin_instances where id = ${id}` as never)
    .then((r: any) => r.rows ?? r);
  t.match(row.sealed, /^v1:/, 'sealed at rest');
  t.notMatch(row.sealed, /xoxb/);

  // Installing the same workspace again replaces the token: still one installation.
  await s.install(id);
  let installs = (await s.api('GET', '/slack/installations')).body.items;
  t.equal(installs.length, 1, 'one installation per organization and workspace');
  t.match(installs[0], { team_id: s.slack.team.id, team_name: s.slack.team.name, health: 'ok', bot_user_id: 'UBOT' });

  const gone = await s.event({ type: 'app_uninstalled' });
  t.equal(gone.status, 200);
  await s.settle();
  installs = (await s.api('GET', '/slack/installations')).body.items;
  t.equal(installs[0].health, 'uninstalled');
  const after = (await s.api('GET', `/plugins/instances/${id}`)).body;
  t.equal(after.enabled, false, 'the instance is switched off');
  t.notOk(after.configuration.bot_token, 'and its token dropped');
});

t.test('Events API: v0 signature (good, bad, 5 minutes old) and url_verification', async (t) => {
  const s = await slackApp(t);
  const challenge = JSON.stringify({ type: 'url_verification', token: 'x', challenge: 'c-123' });
  const ok = await s.signed('events', challenge, 'application/json');
  t.equal(ok.status, 200);
  t.same(ok.body, { challenge: 'c-123' }, 'the challenge is echoed');

  const bad = await s.signed('events', challenge, 'application/json', undefined, 'another-secret');
  t.equal(bad.status, 401);
  t.equal(bad.body.detail[0].type, 'invalid_signature');
  t.match(bad.body.detail[0].msg, /Signing Secret/, 'the fix is named');

  const old = await s.signed('events', challenge, 'application/json', Math.floor(Date.now() / 1000) - 301);
  t.equal(old.status, 401);
  t.equal(old.body.detail[0].type, 'stale_request', 'a delivery 301 s old is a replay');

  const unsigned = await s.request({
    method: 'POST',
    url: '/api/v1/default/slack/events',
    payload: challenge,
    headers: { 'content-type': 'application/json' },
  });
  t.equal(unsigned.status, 401);
});

t.test('the manifest: one paste, with this server’s URLs; the repository’s copy is the same with placeholders', async (t) => {
  const s = await slackApp(t, { install: false });
  const res = await s.api('GET', '/slack/manifest');
  t.match(res.body.manifest, /request_url: http:\/\/firewatch\.test\/api\/v1\/default\/slack\/events/);
  t.match(res.body.manifest, /- http:\/\/firewatch\.test\/api\/v1\/default\/slack\/oauth\/callback/);
  t.ok(
    res.body.scopes.every((x: any) => x.why.length > 10),
    'each scope says why',
  );
  const socket = await s.api('GET', '/slack/manifest?mode=socket');
  t.notMatch(socket.body.manifest, /request_url/, 'Socket Mode needs no public URL');
  t.match(socket.body.manifest, /socket_mode_enabled: true/);
  const file = readFileSync(new URL('../../../slack-app-manifest.yml', import.meta.url), 'utf8');
  t.equal(file, renderManifest({ publicUrl: 'https://firewatch.example.com', org: 'your-organization', socket: false }));
});
