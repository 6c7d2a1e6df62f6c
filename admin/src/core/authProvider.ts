import type { AuthProvider } from 'react-admin';
import { organization, storage } from './org.js';
import { api, type DetailItem } from './http.js';
import { announceExpired, msUntilExpiryCheck, tokenExpiry } from './session.js';

export interface Me {
  id: number | null;
  email: string | null;
  display_name?: string | null;
  role: 'Owner' | 'Manager' | 'Admin' | 'Member';
  organization_slug: string;
  projects: { id: number; name: string }[];
  is_pro?: boolean;
  is_pro_team?: boolean;
  subscription_status?: string;
}

/** The sign-in route inside the app, and the full address react-admin redirects to (it does not add the basename). */
export const LOGIN_PATH = '/auth/login';
const LOGIN_URL = `/${organization}${LOGIN_PATH}`;

/** Where a signed-out visit to a protected page goes (spec): the public landing page, keeping a chat_id. */
function landingUrl() {
  const chatId = new URLSearchParams(window.location.search).get('chat_id');
  return `/${organization}/landing${chatId ? `?chat_id=${encodeURIComponent(chatId)}` : ''}`;
}

let me: Promise<Me> | null = null;
export function currentUser(): Promise<Me> {
  if (me) return me;
  const loading = api<Me>('/auth/me');
  loading.catch(() => (me = null));
  me = loading;
  return loading;
}

/** Forgets the cached /auth/me, so the next identity read sees a changed plan (after an upgrade or a cancellation). */
export function forgetCurrentUser() {
  me = null;
}

/** What a successful /auth/login (password) or /auth/verify (code) returns. */
export interface Session {
  token: string;
  organization: { slug: string };
  projects: { id: number; name: string }[];
}

export function startSession(session: Session) {
  storage.token = session.token;
  localStorage.setItem('organization', session.organization.slug);
  me = null;
}

/** Asks the server to e-mail a sign-in code; resolves to the server's message. */
export async function sendCode(email: string): Promise<string> {
  const answer = await api<{ message?: string }>('/auth/login', { method: 'POST', json: { email }, anonymous: true });
  return answer.message ?? 'Verification code sent to your email.';
}

/** Accepts an invitation with the token of its e-mail's link (the server signs the person in). */
export async function acceptInvitation(token: string) {
  startSession(await api<Session>('/auth/invitations/accept', { method: 'POST', json: { token }, anonymous: true }));
}

/** A sign-in provider the server offers (Google, or an OpenID Connect one); `url` starts it in the browser. */
export interface SignInProvider {
  id: string;
  name: string;
  url: string;
}

export async function signInProviders(): Promise<SignInProvider[]> {
  return (await api<{ providers: SignInProvider[] }>('/auth/providers', { anonymous: true })).providers;
}

/** Exchanges the post-oauth-login page's ticket for a session; resolves to the organization's slug. */
export async function signInWithProviderTicket(token: string): Promise<string> {
  const session = await api<Session>('/auth/postoauthlogin', { method: 'POST', json: { token }, anonymous: true });
  startSession(session);
  return session.organization.slug;
}

export const authProvider: AuthProvider = {
  /** Sign-in with a password, or with the code e-mailed by `sendCode`. */
  async login({ email, password, code }: { email: string; password?: string; code?: string }) {
    const session =
      code !== undefined
        ? await api<Session>('/auth/verify', { method: 'POST', json: { email, code }, anonymous: true })
        : await api<Session>('/auth/login', { method: 'POST', json: { email, password }, anonymous: true });
    startSession(session);
  },
  async logout() {
    // react-admin also "logs out" a signed-out visit to a protected page: that one goes to the landing page.
    const signedIn = !!storage.token;
    // The server ends the session, so the token stops working wherever a copy of it is; signing out
    // here goes on even if the server cannot be reached.
    if (signedIn) await api('/auth/logout', { method: 'POST', globalErrors: false }).catch(() => undefined);
    storage.token = null;
    me = null;
    return signedIn ? LOGIN_URL : landingUrl();
  },
  async checkAuth() {
    if (!storage.token) throw { redirectTo: landingUrl(), message: false };
    // Refreshed after 'Refresh Required': the expired token goes, and the person signs in again.
    const exp = tokenExpiry(storage.token);
    // react-admin then calls logout, which clears it and sends a signed-in person to sign in again.
    if (exp !== null && exp * 1000 <= Date.now()) throw { redirectTo: LOGIN_URL, message: false };
  },
  async checkError(error) {
    const status = (error as { status?: number })?.status;
    if (status === 401) {
      // An expired session keeps the page as it is under the 'Refresh Required' dialog (spec §2, §8):
      // the person reads what was on screen, then refreshes into the sign-in page.
      const detail = (error as { body?: { detail?: DetailItem[] } }).body?.detail ?? [];
      if (detail.some((d) => d.type === 'token_expired') || msUntilExpiryCheck(storage.token) === 0) {
        announceExpired();
        throw { logoutUser: false, message: false };
      }
      storage.token = null;
      me = null;
      throw { redirectTo: LOGIN_URL, message: 'Your session has ended. Please sign in again.' };
    }
  },
  async getIdentity() {
    const user = await currentUser();
    return {
      id: user.id ?? 'api-key',
      fullName: user.display_name || user.email || 'API key',
      email: user.email,
      role: user.role,
      is_pro_team: !!user.is_pro_team,
    };
  },
  async getPermissions() {
    if (!storage.token) return null;
    return (await currentUser()).role;
  },
};
