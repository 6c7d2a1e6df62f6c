/** Prints rows as an aligned plain-text table (numbers right-aligned). */
export function printTable(headers: string[], rows: (string | number)[][]) {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? format(c) : c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const numeric = headers.map((_, i) => rows.every((r) => typeof r[i] === 'number'));
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(line(cells[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

const format = (n: number) => (Number.isInteger(n) ? String(n) : n >= 100 ? n.toFixed(0) : n.toFixed(n >= 10 ? 1 : 2));
