import { Column, noopDecoder } from 'drizzle-orm';
import type { CompiledSelect } from './compiled-select.js';

/** A value as JSON text, as JSON.stringify writes it inside an object (undefined: the key is left out). */
function jsonValue(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return JSON.stringify(value);
  }
}

/** One key of a written record: a column's decoded value, or a nested reference made of two of them. */
type Slot = { key: string; column: number; nest?: undefined } | { key: string; column: -1; nest: { id: number; name: number; nameKey: string } };

/**
 * The JSON text of a list page's records, written straight from the rows a compiled statement
 * returned (arrays in select-list order): each column through its decoder, each nested reference
 * `{id, <name>}` beside its id. The text is exactly JSON.stringify of the records decodeRow makes
 * (same keys in the same order, same values: tests/server/engine/serialize.test.ts); no record object
 * is made. Making a record per row and then serializing it was most of a list request's own Node time.
 */
export function itemsWriter({ keys, decoders, nested }: CompiledSelect): (rows: unknown[][], count: number) => string {
  // The keys in the order decodeRow's record has them: the selection's, a nested reference in place
  // of the column it replaces (its name read into the key itself) or after them all, in order.
  const slots: Slot[] = keys.map((key, column) => ({ key: JSON.stringify(key), column }));
  for (const n of nested) {
    const id = keys.indexOf(n.field);
    if (id < 0) continue; // nestRecord leaves a record without the id field alone
    const slot: Slot = { key: JSON.stringify(n.key), column: -1, nest: { id, name: keys.indexOf(n.from), nameKey: JSON.stringify(n.nameKey) } };
    const at = keys.indexOf(n.key);
    if (at >= 0) slots[at] = slot;
    else slots.push(slot);
  }
  const width = keys.length;
  const values: unknown[] = new Array<unknown>(width);
  // The general path, key by key: rows where a value would leave its key out (JSON.stringify of undefined).
  const writeAnyRow = (row: unknown[]) => {
    for (let i = 0; i < width; i++) values[i] = row[i] === null ? null : decoders[i]!.mapFromDriverValue(row[i]);
    let out = '';
    let sep = '{';
    for (const slot of slots) {
      let text: string | undefined;
      if (slot.nest === undefined) text = jsonValue(values[slot.column]);
      else {
        const id = values[slot.nest.id];
        const name = slot.nest.name < 0 ? undefined : values[slot.nest.name];
        if (id === null || id === undefined) text = 'null';
        else if (name === null || name === undefined) text = `{"id":${jsonValue(id)}}`;
        else text = `{"id":${jsonValue(id)},${slot.nest.nameKey}:${jsonValue(name)}}`;
      }
      if (text === undefined) continue;
      out += `${sep}${slot.key}:${text}`;
      sep = ',';
    }
    return sep === '{' ? '{}' : `${out}}`;
  };
  const writeRow = unrolledRow(slots, decoders, writeAnyRow);
  return (rows, count) => {
    let out = '[';
    const n = Math.min(rows.length, count);
    for (let i = 0; i < n; i++) out += (i ? ',' : '') + writeRow(rows[i]!);
    return `${out}]`;
  };
}

const identityDecoders = new Set<unknown>([Column.prototype.mapFromDriverValue, noopDecoder.mapFromDriverValue]);

/**
 * The same row writer as straight-line code made for the statement's columns (one expression per
 * key, no loop over slots, decoders that return their value as it is left out): a few times faster
 * than the general path, which it falls back to for a row where a value would be left out.
 */
function unrolledRow(slots: Slot[], decoders: CompiledSelect['decoders'], anyRow: (row: unknown[]) => string): (row: unknown[]) => string {
  const lines: string[] = [];
  decoders.forEach((decoder, i) => {
    lines.push(
      identityDecoders.has(decoder.mapFromDriverValue)
        ? `const v${i} = row[${i}];`
        : `const v${i} = row[${i}] === null ? null : decoders[${i}].mapFromDriverValue(row[${i}]);`,
    );
  });
  const texts: string[] = [];
  slots.forEach((slot, k) => {
    if (slot.nest === undefined) lines.push(`const t${k} = json(v${slot.column});`);
    else {
      const id = `v${slot.nest.id}`;
      const name = slot.nest.name < 0 ? 'undefined' : `v${slot.nest.name}`;
      lines.push(
        `const t${k} = ${id} === null || ${id} === undefined ? 'null' : ${name} === null || ${name} === undefined ? '{"id":' + json(${id}) + '}' : '{"id":' + json(${id}) + ${JSON.stringify(`,${slot.nest.nameKey}:`)} + json(${name}) + '}';`,
      );
    }
    texts.push(`t${k}`);
  });
  if (!slots.length) return anyRow;
  lines.push(`if (${texts.map((t) => `${t} === undefined`).join(' || ')}) return anyRow(row);`);
  lines.push(`return ${slots.map((slot, k) => `${JSON.stringify(`${k ? ',' : '{'}${slot.key}:`)} + t${k}`).join(' + ')} + '}';`);
  // Code made from the statement's own keys, each written through JSON.stringify.
  const make = new Function('decoders', 'json', 'anyRow', `return function writeRow(row) {\n${lines.join('\n')}\n};`) as (
    d: CompiledSelect['decoders'],
    j: typeof jsonValue,
    a: typeof anyRow,
  ) => (row: unknown[]) => string;
  return make(decoders, jsonValue, anyRow);
}
