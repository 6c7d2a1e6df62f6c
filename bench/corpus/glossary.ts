/**
 * A product's glossary page loaded as the organization's Terms and Definitions (spec §3), as an
 * admin would: through the app's own routes. Parsed generically: each <dt> is a term, the <dd>
 * after it its definition (several <dt> before one <dd> share it, as synonyms).
 */
import { Parser } from 'htmlparser2';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/core/config.js';
import type { Database } from '../../server/core/db/client.js';
import { startSession } from '../../server/core/sessions.js';
import { memberships, users } from '../../server/schema.js';

export interface GlossaryEntry {
  terms: string[];
  definition: string;
}

const squeeze = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The <dt>/<dd> pairs of an HTML page, outermost lists only (a list inside a definition is its text). */
export function parseGlossary(html: string): GlossaryEntry[] {
  const entries: GlossaryEntry[] = [];
  let pendingTerms: string[] = [];
  let term: string | null = null;
  let definition: string | null = null;
  let nested = 0; // elements dt/dd opened inside the definition being read
  const parser = new Parser(
    {
      onopentag(name) {
        if (definition !== null) {
          if (name === 'dd' || name === 'dt') nested++;
          if (name === 'p' || name === 'br' || name === 'li' || name === 'dd' || name === 'dt') definition += ' ';
          return;
        }
        if (name === 'dt') term = '';
        else if (name === 'dd') definition = '';
      },
      ontext(text) {
        if (definition !== null) definition += text;
        else if (term !== null) term += text;
      },
      onclosetag(name) {
        if (definition !== null) {
          if (name !== 'dd' && name !== 'dt') return;
          if (nested > 0) return void nested--;
          if (name === 'dd') {
            const text = squeeze(definition);
            if (pendingTerms.length && text) entries.push({ terms: pendingTerms, definition: text });
            pendingTerms = [];
            definition = null;
          }
          return;
        }
        if (name === 'dt' && term !== null) {
          const text = squeeze(term);
          if (text) pendingTerms.push(text);
          term = null;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return entries;
}

/**
 * Loads a glossary into a project through POST /terms and /definitions as an Admin of the
 * organization. A term defined twice is created once and linked from both definitions.
 */
export async function loadGlossary(database: Database, orgSlug: string, orgId: number, projectId: number, entries: GlossaryEntry[]): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', JWT_SECRET: process.env.JWT_SECRET ?? 'bench-glossary-secret-bench-glossary-secret' });
  const app: FastifyInstance = await buildApp({ config, database, logger: false });
  try {
    const email = 'glossary-admin@retrieval-manuals.bench';
    const [user] = await database.db.insert(users).values({ email }).onConflictDoUpdate({ target: users.email, set: { email } }).returning();
    await database.db
      .insert(memberships)
      .values({ organization_id: orgId, user_id: user!.id, role: 'Admin' })
      .onConflictDoNothing();
    const token = await startSession(app, { id: user!.id, email }, '1h');
    const post = async (path: string, payload: object): Promise<{ id: number }> => {
      const res = await app.inject({ method: 'POST', url: `/api/v1/${orgSlug}${path}`, headers: { authorization: `Bearer ${token}` }, payload });
      if (res.statusCode !== 201) throw new Error(`POST ${path} answered ${res.statusCode}: ${res.body}`);
      return JSON.parse(res.body) as { id: number };
    };
    const termIds = new Map<string, number>();
    for (const entry of entries) {
      const ids: number[] = [];
      for (const text of entry.terms) {
        const key = text.toLowerCase();
        if (!termIds.has(key)) termIds.set(key, (await post('/terms', { text: text.slice(0, 500), project_id: projectId })).id);
        ids.push(termIds.get(key)!);
      }
      await post('/definitions', { text: entry.definition.slice(0, 10_000), project_id: projectId, terms: [...new Set(ids)] });
    }
  } finally {
    await app.close();
  }
}
