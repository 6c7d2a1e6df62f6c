import { eq } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import type { Executor } from '../core/db/client.js';
import { organizations } from '../core/db/tables.js';

/** What a plan allows in the AI workspace; AI_LIMITS overrides it per plan. */
export interface Limits {
  plan: string;
  max_file_bytes: number;
  files_per_project: number;
  messages_per_day: number;
}

const MB = 1024 * 1024;
/** Per plan; anonymous visitors get the 'anonymous' row whatever the organization's plan. */
const DEFAULTS: Record<string, Omit<Limits, 'plan'>> = {
  anonymous: { max_file_bytes: 2 * MB, files_per_project: 5, messages_per_day: 20 },
  free: { max_file_bytes: 10 * MB, files_per_project: 50, messages_per_day: 100 },
  pro: { max_file_bytes: 50 * MB, files_per_project: 500, messages_per_day: 2000 },
  team_pro: { max_file_bytes: 100 * MB, files_per_project: 5000, messages_per_day: 20000 },
};

let parsedFor: string | undefined;
let overrides: Record<string, Partial<Omit<Limits, 'plan'>>> = {};

/** The limits of a plan, with AI_LIMITS overrides applied. */
export function planLimits(config: Config, plan: string): Limits {
  if (parsedFor !== config.AI_LIMITS) {
    parsedFor = config.AI_LIMITS;
    overrides = config.AI_LIMITS ? (JSON.parse(config.AI_LIMITS) as typeof overrides) : {};
  }
  return { plan, ...(DEFAULTS[plan] ?? DEFAULTS.free!), ...(overrides[plan] ?? {}) };
}

/** What a socket frame may weigh before anyone is authenticated: every message but an upload fits. */
export const UNAUTHENTICATED_FRAME_BYTES = 64 * 1024;

/** The frame that carries the largest file a plan allows: base64 grows it by a third, the JSON a little more. */
export const frameBytesFor = (limits: Limits) => Math.ceil((limits.max_file_bytes * 4) / 3) + UNAUTHENTICATED_FRAME_BYTES;

export async function limitsFor(tx: Executor, config: Config, orgId: number, anonymous: boolean): Promise<Limits> {
  if (anonymous) return planLimits(config, 'anonymous');
  const [org] = await tx.select({ plan: organizations.plan }).from(organizations).where(eq(organizations.id, orgId));
  return planLimits(config, org?.plan ?? 'free');
}

export const formatBytes = (n: number) => (n >= MB ? `${+(n / MB).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);
