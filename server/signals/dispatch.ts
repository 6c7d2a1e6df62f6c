import { and, eq, or, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { systemActor, API_KEY_PREFIX } from '../core/context.js';
import { findApiKey } from '../core/api-keys.js';
import { httpError, unauthorized } from '../core/errors.js';
import { projects } from '../core/db/projects.js';
import { runInTenant } from '../core/tenancy.js';
import { signals } from './tables.js';
import type { Source } from './sources.js';
import type { dispatchEvent } from './wire.js';
import type { Intake } from './intake.js';

/**
 * Dispatch's own way in (`POST /signals/instances` with `{"project": {"name"}, "raw": {...}}` and a
 * user's or API key's bearer): the definition is the project's one whose external_id is
 * raw.externalId, else whose variant is raw.variant.
 */
export async function dispatchSource(req: FastifyRequest, intake: Intake, body: z.infer<typeof dispatchEvent>): Promise<Source> {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  const caller = req.caller as typeof req.caller | null;
  const signedIn = caller && caller.kind === 'user' && caller.orgId === req.org.id;
  if (!signedIn && !(bearer?.startsWith(API_KEY_PREFIX) && (await findApiKey(req.server.db, req.org.id, bearer))))
    throw unauthorized('Dispatch-shaped signals need a user token or an API key of this organization as bearer.', 'not_authenticated');
  const { externalId, variant } = body.raw;
  if (!externalId && !variant) throw httpError(422, 'raw.externalId or raw.variant must name the signal definition.', 'missing', ['body', 'raw', 'externalId']);
  const rows = await runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }, 'Member'), (ctx) =>
    ctx.tx
      .select({ ...intake.sourceColumns, by_external: sql<boolean>`${signals.external_id} is not distinct from ${externalId ?? null}` })
      .from(signals)
      .innerJoin(projects, and(eq(projects.organization_id, signals.organization_id), eq(projects.id, signals.project_id)))
      .where(
        and(
          eq(signals.organization_id, req.org.id),
          eq(projects.name, body.project.name),
          or(externalId ? eq(signals.external_id, externalId) : undefined, variant ? eq(signals.variant, variant) : undefined),
        ),
      ),
  );
  const found = rows.find((r) => r.by_external) ?? rows[0];
  if (!found)
    throw httpError(
      404,
      `No signal definition in project '${body.project.name}' has external_id '${externalId ?? ''}' or variant '${variant ?? ''}'.`,
      'not_found',
      ['body', 'raw'],
    );
  const { by_external: _by, ...source } = found;
  return source;
}
