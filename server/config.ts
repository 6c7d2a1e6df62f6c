import { z } from 'zod';

/** Every environment variable Firewatch reads, with its default. Parsed once at start. */
const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_EXPIRES_IN: z.string().regex(/^\d+[smhd]$/, 'must look like 30m, 12h or 7d').default('7d'),
  TRIAL_DAYS: z.coerce.number().int().min(0).max(3650).default(14),
  FIREWATCH_ADMIN_EMAIL: z.string().email().optional(),
  FIREWATCH_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Firewatch <no-reply@firewatch.local>'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT: z.coerce.number().int().min(1024).default(1024 * 1024),
  LOGIN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  LOGIN_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  ADMIN_DIST: z.string().default('dist/admin'),
  // AI workspace (issue 5): an OpenAI-compatible endpoint is optional; without it answers are extractive.
  AI_BASE_URL: z.string().url().optional(),
  AI_API_KEY: z.string().optional(),
  AI_MODEL: z.string().optional(),
  AI_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** JSON overriding per-plan limits, e.g. {"free":{"max_file_bytes":1048576,"files_per_project":5,"messages_per_day":20}}. */
  AI_LIMITS: z.string().optional(),
  ANONYMOUS_SESSION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  YOUTUBE_BASE_URL: z.string().url().default('https://www.youtube.com'),
  JOB_POLL_SECONDS: z.coerce.number().min(0.5).default(2),
  /** When overdue-task reminders go out (cron, UTC; `off` for never): every 15 minutes by default. */
  TASK_REMINDER_CRON: z
    .string()
    .regex(/^(off|\S+( \S+){4,5})$/, 'must be a cron expression such as */15 * * * *, or off')
    .default('*/15 * * * *'),
  /** Conference link each incident gets; {organization} and {name} are filled in. */
  CONFERENCE_URL_TEMPLATE: z.string().default('https://meet.jit.si/firewatch-{organization}-{name}'),
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
  return parsed.data;
}

/** Variable names and descriptions, used by the README table and `--help`. */
export const configKeys = Object.keys(schema.shape) as (keyof Config)[];
