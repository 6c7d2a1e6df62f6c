import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../core/db/client.js';

/** Words added to a question, and how much a match on them counts beside a word of the question (1). */
export interface Expansion {
  text: string;
  weight: number;
  /** The weight is shared among the text's words (a definition says the term in many words). */
  shared?: boolean;
}

/** The organization's terms that share a definition with a term of the question count like the term itself. */
export const ORG_SYNONYM_WEIGHT = 1;
/**
 * The definition of a term the question names, shared among its words: a passage in the words of
 * the whole definition counts nearly as much as one naming the term, never more.
 */
export const DEFINITION_WEIGHT = 0.8;

/**
 * The organization's own vocabulary for a question: for each term it names (whole words, this
 * project's or the organization's), the other terms its definitions explain and the definitions' words.
 */
export async function orgVocabulary(
  tx: Executor,
  orgId: number,
  projectId: number | null,
  question: string,
): Promise<{ synonyms: string[]; definitions: string[] }> {
  const rows = rowsOf<{ term: string; others: string[] | string | null; definition: string }>(
    await tx.execute(sql`
      select t.text as term, d.text as definition,
        (select json_agg(o.text) from terms o
          where o.organization_id = d.organization_id and d.terms @> to_jsonb(o.id) and o.id <> t.id) as others
      from terms t
      join definitions d on d.organization_id = t.organization_id and d.terms @> to_jsonb(t.id)
      where t.organization_id = ${orgId} and strpos(lower(${question}), lower(t.text)) > 0
        and (t.project_id is null ${projectId ? sql`or t.project_id = ${projectId}` : sql``})
        and (d.project_id is null ${projectId ? sql`or d.project_id = ${projectId}` : sql``})
      limit 20`),
  );
  // Whole words only ("DB" is not in "dbms").
  const wordsOf = (s: string) =>
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  const asked = ` ${wordsOf(question).join(' ')} `;
  const named = rows.filter((r) => asked.includes(` ${wordsOf(r.term).join(' ')} `));
  const others = named.flatMap((r) => (typeof r.others === 'string' ? (JSON.parse(r.others) as string[]) : (r.others ?? [])));
  return { synonyms: [...new Set(others)], definitions: [...new Set(named.map((r) => r.definition))] };
}

/** Everything a question is expanded with, weighted (the question's own words weigh 1). */
export async function expansions(tx: Executor, orgId: number, projectId: number | null, question: string): Promise<Expansion[]> {
  const vocabulary = await orgVocabulary(tx, orgId, projectId, question);
  return [
    ...vocabulary.synonyms.map((text) => ({ text, weight: ORG_SYNONYM_WEIGHT })),
    ...vocabulary.definitions.map((text) => ({ text, weight: DEFINITION_WEIGHT, shared: true })),
  ];
}
