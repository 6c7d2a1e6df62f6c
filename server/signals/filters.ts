import { invalid } from '../core/errors.js';

/**
 * A signal filter's expression, in the filter JSON grammar of the list API (server/engine/filters.ts):
 * a list of conditions (all must hold) and `{and|or|not: [...]}` groups. A condition names a model:
 * `Entity` (value, id, entity_type_id) and `EntityType` (name, id) hold when any of the instance's
 * entities satisfies them; `SignalInstance` (source, dedup_key, event_action) reads the instance.
 * An empty expression matches every instance.
 */
export interface FilterSubject {
  source: string;
  dedup_key: string | null;
  event_action: string;
  entities: { id: number; value: string; normalized: string; entity_type_id: number; type_name: string }[];
}

const OPS = ['==', '!=', 'in', 'not_in', 'like', 'ilike'] as const;
const FIELDS: Record<string, string[]> = {
  entity: ['value', 'id', 'entity_type_id'],
  entitytype: ['name', 'id'],
  signalinstance: ['source', 'dedup_key', 'event_action'],
};
const MAX_NODES = 100;

type Leaf = { model: string; field: string; op: (typeof OPS)[number]; value: unknown };

/** Throws a 422 naming the first thing wrong in `expression` (at body.expression...). */
export function checkExpression(expression: unknown) {
  let nodes = 0;
  const walk = (node: unknown, loc: (string | number)[], depth: number): void => {
    if (++nodes > MAX_NODES || depth > 8) throw invalid(`An expression has at most ${MAX_NODES} conditions, 8 levels deep.`, loc);
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, [...loc, i], depth + 1));
    if (!node || typeof node !== 'object') throw invalid('Expected a condition or an and/or/not group.', loc);
    const group = (['and', 'or', 'not'] as const).find((g) => g in node);
    if (group) return walk((node as Record<string, unknown>)[group], [...loc, group], depth + 1);
    const leaf = node as Partial<Leaf>;
    const fields = FIELDS[String(leaf.model ?? '').toLowerCase()];
    if (!fields) throw invalid(`model must be one of Entity, EntityType, SignalInstance.`, [...loc, 'model']);
    if (!fields.includes(String(leaf.field))) throw invalid(`field must be one of ${fields.join(', ')}.`, [...loc, 'field']);
    if (!OPS.includes(leaf.op as never)) throw invalid(`op must be one of ${OPS.join(', ')}.`, [...loc, 'op']);
    const list = leaf.op === 'in' || leaf.op === 'not_in';
    if (list ? !Array.isArray(leaf.value) : typeof leaf.value !== 'string' && typeof leaf.value !== 'number')
      throw invalid(list ? 'value must be a list.' : 'value must be text or a number.', [...loc, 'value']);
  };
  walk(expression ?? [], ['body', 'expression'], 0);
}

const compare = (actual: unknown, op: Leaf['op'], expected: unknown): boolean => {
  const a = actual === null || actual === undefined ? null : String(actual).toLowerCase();
  switch (op) {
    case '==':
      return a === String(expected).toLowerCase();
    case '!=':
      return a !== String(expected).toLowerCase();
    case 'in':
      return (expected as unknown[]).some((e) => a === String(e).toLowerCase());
    case 'not_in':
      return !(expected as unknown[]).some((e) => a === String(e).toLowerCase());
    case 'like':
    case 'ilike':
      return a !== null && a.includes(String(expected).toLowerCase());
  }
};

function leafHolds(leaf: Leaf, s: FilterSubject): boolean {
  const model = leaf.model.toLowerCase();
  if (model === 'signalinstance') return compare(s[leaf.field as 'source'], leaf.op, leaf.value);
  if (model === 'entitytype') return s.entities.some((e) => compare(leaf.field === 'id' ? e.entity_type_id : e.type_name, leaf.op, leaf.value));
  return s.entities.some((e) => compare(leaf.field === 'value' ? e.normalized : e[leaf.field as 'id'], leaf.op, leaf.value));
}

/** Whether the instance satisfies the (checked) expression. */
export function matches(expression: unknown, s: FilterSubject): boolean {
  const holds = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.every(holds);
    const n = node as Record<string, unknown>;
    if ('and' in n) return (n.and as unknown[]).every(holds);
    if ('or' in n) return (n.or as unknown[]).some(holds);
    if ('not' in n) return !holds(n.not);
    return leafHolds(n as unknown as Leaf, s);
  };
  return holds(expression ?? []);
}
