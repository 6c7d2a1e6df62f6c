import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/**
 * A local OpenID Connect provider with a sign-in page people use, for the browser walk: `oidc-provider`
 * (a certified OpenID Provider) serves discovery, JWKS, /auth, /token with PKCE, and signs ID tokens
 * carrying the nonce; its interaction pages (what Google's account chooser and consent screen are) are
 * the ones below. The sign-in form checks the e-mail and password against `accounts`; a wrong password
 * is refused at the provider and nothing reaches Firewatch. Then a consent page names the client and
 * the scopes, with Allow and Cancel.
 */
export interface Account {
  password: string;
  email_verified: boolean;
  name: string;
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} - Local Identity</title></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return new URLSearchParams(body);
}

export async function startSignInProvider(options: { clientId: string; clientSecret: string; redirectUri: string; accounts: Record<string, Account> }) {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), kid: 'e2e-1', alg: 'RS256', use: 'sig' };
  const signIns: string[] = [];

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    jwks: { keys: [signing] },
    cookies: { keys: ['e2e-provider-cookie-key-0123456789'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The scopes' claims go into the ID token itself, as Google's do (Firewatch reads the ID token only).
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    async findAccount(_ctx, id) {
      const account = options.accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: id, email_verified: account.email_verified, name: account.name }) };
    },
  });
  const callback = provider.callback();

  const send = (res: ServerResponse, status: number, html: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  };
  const signInPage = (uid: string, error = '', email = '') =>
    page(
      'Sign in',
      `<p>to continue to Firewatch</p>${error ? `<p role="alert">${escape(error)}</p>` : ''}
      <form method="post" action="/interaction/${uid}/login">
        <label>Email <input type="email" name="email" autocomplete="username" value="${escape(email)}" required></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit">Next</button>
      </form>`,
    );

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return send(res, 400, page('Error', '<p>This sign-in has expired.</p>'));
    if (req.method === 'GET' && !action) {
      if (details.prompt.name === 'login') return send(res, 200, signInPage(uid));
      const client = await provider.Client.find(String(details.params.client_id));
      const scopes = String(details.params.scope).split(' ');
      return send(
        res,
        200,
        page(
          'Allow access',
          `<p>${escape(client?.clientId ?? '')} wants to see your ${scopes.filter((s) => s !== 'openid').join(' and ')} (as ${escape(String(details.session?.accountId))}).</p>
          <form method="post" action="/interaction/${uid}/confirm"><button type="submit">Allow</button></form>
          <form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancel</button></form>`,
        ),
      );
    }
    if (req.method !== 'POST') return send(res, 405, page('Error', '<p>Method not allowed.</p>'));
    if (action === '/login') {
      const body = await form(req);
      const email = (body.get('email') ?? '').trim().toLowerCase();
      const account = options.accounts[email];
      if (!account || account.password !== body.get('password')) return send(res, 401, signInPage(uid, 'Wrong email or password. Try again.', email));
      signIns.push(email);
      return provider.interactionFinished(req, res, { login: { accountId: email } }, { mergeWithLastSubmission: false });
    }
    if (action === '/confirm') {
      const { session, params, prompt, grantId } = details;
      const grant = grantId ? (await provider.Grant.find(grantId))! : new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) });
      const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    }
    if (action === '/abort')
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person cancelled' }, { mergeWithLastSubmission: false });
    return send(res, 404, page('Error', '<p>Not found.</p>'));
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([\w-]+)(\/login|\/confirm|\/abort)?$/.exec(new URL(req.url!, issuer).pathname);
    if (!m) return void callback(req, res);
    interaction(req, res, m[1]!, m[2]).catch((err: Error) => send(res, 400, page('Error', `<p>${escape(err.message)}</p>`)));
  });

  return {
    issuer,
    /** The e-mail addresses that signed in at the provider's form, in order. */
    signIns,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
