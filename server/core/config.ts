import { isIP } from 'node:net';
import { z } from 'zod';

/** An address or a CIDR. */
function isRange(p: string) {
  const [address, bits, extra] = p.split('/');
  const family = isIP(address ?? '');
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** An address, a CIDR, or one of proxy-addr's names. */
const isProxy = (p: string) => ['loopback', 'linklocal', 'uniquelocal'].includes(p) || isRange(p);

/** Every environment variable Firewatch reads, with its default. Parsed once at start. */
const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_EXPIRES_IN: z
    .string()
    .regex(/^\d+[smhd]$/, 'must look like 30m, 12h or 7d')
    .default('7d'),
  TRIAL_DAYS: z.coerce.number().int().min(0).max(3650).default(14),
  FIREWATCH_ADMIN_EMAIL: z.string().email().optional(),
  FIREWATCH_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Firewatch <no-reply@firewatch.local>'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  LOGIN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  LOGIN_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /**
   * Proxies whose X-Forwarded-For is believed, comma-separated addresses or CIDRs (or `loopback`,
   * `linklocal`, `uniquelocal`). Unset: none, so sign-in limits count the connecting address.
   */
  TRUST_PROXY: z
    .string()
    .refine((v) => v.split(',').every((p) => isProxy(p.trim())), 'must be addresses or CIDRs separated by commas, e.g. 10.0.0.1,10.1.0.0/16')
    .optional(),
  /**
   * Ranges the server may call on users' behalf although the outbound policy refuses them (loopback,
   * private, link-local, unique-local), comma-separated CIDRs, e.g. 10.20.0.0/16 for an internal Slack
   * relay. Unset: none.
   */
  OUTBOUND_ALLOW: z
    .string()
    .refine((v) => v.split(',').every((p) => isRange(p.trim())), 'must be addresses or CIDRs separated by commas, e.g. 10.20.0.0/16,fd00:1::/64')
    .optional(),
  ADMIN_DIST: z.string().default('dist/admin'),
  // AI workspace: an OpenAI-compatible endpoint is optional; without it answers are extractive.
  AI_BASE_URL: z.string().url().optional(),
  AI_API_KEY: z.string().optional(),
  AI_MODEL: z.string().optional(),
  AI_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  // Optional hybrid retrieval: an OpenAI-compatible /v1/embeddings endpoint (Ollama, vLLM, llama.cpp, OpenAI).
  EMBEDDINGS_BASE_URL: z.string().url().optional(),
  EMBEDDINGS_API_KEY: z.string().optional(),
  EMBEDDINGS_MODEL: z.string().optional(),
  /** JSON overriding per-plan limits, e.g. {"free":{"max_file_bytes":1048576,"files_per_project":5,"messages_per_day":20}}. */
  AI_LIMITS: z.string().optional(),
  ANONYMOUS_SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** New anonymous sessions, and anonymous writes (projects, uploads, chat messages), per address per window; an organization gets ten times this. */
  ANONYMOUS_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
  ANONYMOUS_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** When what expired anonymous sessions created is removed (cron, UTC; `off` for never). */
  ANONYMOUS_CLEANUP_CRON: z
    .string()
    .regex(/^(off|\S+( \S+){4,5})$/, 'must be a cron expression such as 0 * * * *, or off')
    .default('23 * * * *'),
  YOUTUBE_BASE_URL: z.string().url().default('https://www.youtube.com'),
  JOB_POLL_SECONDS: z.coerce.number().min(0.5).default(2),
  /** A running job's expiry, renewed by its worker's heartbeat: a job whose process died runs again this long after (plus the retry delay). */
  JOB_LEASE_SECONDS: z.coerce.number().int().min(2).max(3600).default(10),
  /** When overdue-task reminders go out (cron, UTC; `off` for never): every 15 minutes by default. */
  TASK_REMINDER_CRON: z
    .string()
    .regex(/^(off|\S+( \S+){4,5})$/, 'must be a cron expression such as */15 * * * *, or off')
    .default('*/15 * * * *'),
  /** Conference link each incident gets; {organization} and {name} are filled in. */
  /** Slack's Web API and its OAuth v2 authorize page; only tests point them elsewhere (a local stand-in speaking Slack's protocol). */
  SLACK_API_URL: z.string().url().default('https://slack.com/api/'),
  SLACK_AUTHORIZE_URL: z.string().url().default('https://slack.com/oauth/v2/authorize'),
  CONFERENCE_URL_TEMPLATE: z.string().default('https://meet.jit.si/firewatch-{organization}-{name}'),
  /** Bearer token a Prometheus scraper sends to GET /metrics; without it /metrics answers 404. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** After SIGTERM, how long idle keep-alive connections stay open (answered 503) before the server closes. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(60).default(2),
  /** Encrypts plugin and webhook secrets at rest; generated and kept in the database when unset. */
  SECRETS_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** The key before the last rotation: secrets it sealed still open, and are re-sealed on their next write. */
  SECRETS_KEY_PREVIOUS: z.string().optional(),
  /** Where outside services reach this server (workflow engine callbacks). */
  PUBLIC_URL: z.string().url().default('http://localhost:8000'),
  /** Sign-in with Google: an OAuth client of the Google Cloud console (redirect URI: PUBLIC_URL/implicit/callback). */
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  /** Google's issuer; only tests point it elsewhere (a local provider speaking the same protocol). */
  GOOGLE_ISSUER: z.string().url().default('https://accounts.google.com'),
  /** Sign-in with any other OpenID Connect provider (Okta, Entra ID, Keycloak), found by discovery from its issuer. */
  OIDC_ISSUER: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** The provider's name on the sign-in button ("Sign in with …"). */
  OIDC_NAME: z.string().min(1).max(60).default('single sign-on'),
  /** First retry delay of an outgoing webhook delivery (seconds, doubling; 0 in tests). */
  WEBHOOK_RETRY_SECONDS: z.coerce.number().int().min(0).default(10),
  /** How often a running HTTP engine workflow's status URL is polled. */
  WORKFLOW_POLL_SECONDS: z.coerce.number().min(0.5).default(30),
  /** Stripe secret key (sk_live_… or sk_test_…); billing is on only when it, the webhook secret and both prices are set. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** Signing secret (whsec_…) of the Stripe webhook endpoint that posts to /api/v1/stripe/webhook. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Stripe price id (price_…) of the monthly Pro subscription. */
  STRIPE_PRICE_PRO: z.string().min(1).optional(),
  /** Stripe price id of the Team Pro subscription. */
  STRIPE_PRICE_TEAM_PRO: z.string().min(1).optional(),
  /** Where the Stripe SDK sends its calls instead of https://api.stripe.com (a local stand-in). */
  STRIPE_API_BASE: z.string().url().optional(),
  /** Shown with a failed cancellation; defaults to the address of MAIL_FROM. */
  SUPPORT_EMAIL: z.string().email().optional(),
});

export type Config = z.infer<typeof schema>;

/** Parses the given environment; a bad value stops the process with one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    console.error(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
    process.exit(1);
  }
  const stripe = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_PRO', 'STRIPE_PRICE_TEAM_PRO'] as const;
  const missing = stripe.filter((k) => !parsed.data[k]);
  if (missing.length && missing.length < stripe.length) {
    console.error(`Invalid configuration: ${missing[0]}: billing needs ${stripe.join(', ')} together`);
    process.exit(1);
  }
  return parsed.data;
}

/** Variable names and descriptions, used by the README table and `--help`. */
export const configKeys = Object.keys(schema.shape) as (keyof Config)[];
