import { eq, sql } from 'drizzle-orm';
import { users } from './db/tables.js';
import { currentUserId } from './db/columns.js';
import type { RequestContext } from './context.js';

/** The signed-in caller's e-mail (null for API keys), read once per request context. */
const emails = new WeakMap<object, string | null>();
export async function callerEmail(ctx: RequestContext): Promise<string | null> {
  if (emails.has(ctx.tx)) return emails.get(ctx.tx)!;
  let email: string | null = null;
  if (ctx.userId !== null) {
    const [row] = await ctx.tx.select({ email: users.email }).from(users).where(eq(users.id, ctx.userId));
    email = row?.email ?? null;
  }
  emails.set(ctx.tx, email);
  return email;
}

/** Who acts for the system within `fn` (a signal definition closing its case), as timeline entries name it. */
const named = new WeakMap<object, string>();
export async function actingAs<T>(ctx: RequestContext, name: string, fn: () => Promise<T>): Promise<T> {
  named.set(ctx.tx, name);
  try {
    return await fn();
  } finally {
    named.delete(ctx.tx);
  }
}

/** Who is acting, as written on timeline entries. */
export const actorOf = async (ctx: RequestContext) => named.get(ctx.tx) ?? (await callerEmail(ctx)) ?? 'API key';

/** The caller's e-mail inside a statement (from the transaction's user setting), for visibility conditions. */
export const callerEmailSql = sql`(select ${users.email} from ${users} where ${users.id} = ${currentUserId})`;
