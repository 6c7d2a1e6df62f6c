/**
 * `npm run bench [suite ...]`: runs every suite in bench/suites (or the named ones), each printing
 * its own table. Exits 1 when a suite misses a target, so CI can run it on a PostgreSQL box.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Suite } from './lib/suite.js';

const dir = fileURLToPath(new URL('./suites/', import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort();
const suites: Suite[] = [];
for (const file of files) suites.push(((await import(`./suites/${file.replace(/\.ts$/, '.js')}`)) as { default: Suite }).default);

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !suites.some((s) => s.name === w));
if (unknown.length) {
  console.error(`Unknown suite ${unknown.map((u) => `'${u}'`).join(', ')}. Suites: ${suites.map((s) => s.name).join(', ')}.`);
  process.exit(2);
}

let failed = 0;
for (const suite of suites.filter((s) => !wanted.length || wanted.includes(s.name))) {
  console.log(`\n== ${suite.name}: ${suite.description}\n`);
  const { passed } = await suite.run();
  if (!passed) failed++;
}
process.exit(failed ? 1 : 0);
