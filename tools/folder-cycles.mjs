/* global process, console */
// Import cycles between folders (design.md §2: domains -> engine -> core, and no cycle between folders).
// Each file counts as its root's first folder (server/cases, admin/src/shell); static imports and
// re-exports count, type-only ones too. Usage: node tools/folder-cycles.mjs server admin/src
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Cycles being taken apart, each as the folders it may span; a cycle among other folders, or one that
 * grows past these, fails the check. Empty: no folder imports one that imports it back.
 */
const KNOWN = [];

const roots = process.argv.slice(2);
const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
};
roots.filter((r) => existsSync(r)).forEach(walk);
const known = new Set(files);

const target = (from, spec) => {
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    const rel = relative(process.cwd(), candidate);
    if (known.has(rel)) return rel;
  }
  return null;
};
const folderOf = (file) => {
  const root = roots.find((r) => file.startsWith(r + sep));
  const rest = file.slice(root.length + 1).split(sep);
  return rest.length > 1 ? join(root, rest[0]) : null;
};

const graph = new Map();
for (const file of files) {
  const from = folderOf(file);
  if (!from) continue;
  const edges = graph.get(from) ?? new Set();
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
    const to = target(file, m[1]);
    const folder = to && folderOf(to);
    if (folder && folder !== from) edges.add(folder);
  }
  graph.set(from, edges);
}

// Tarjan's strongly connected components.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
const cycles = [];
const strong = (v) => {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      strong(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  }
};
for (const v of graph.keys()) if (!idx.has(v)) strong(v);

const allowed = (cycle) => KNOWN.some((k) => cycle.every((f) => k.includes(f)));
const bad = cycles.filter((c) => !allowed(c));
for (const c of cycles) console.log(`${allowed(c) ? 'known cycle' : 'NEW CYCLE'}: ${c.join(' <-> ')}`);
if (bad.length) {
  console.error(`${bad.length} folder cycle(s) beyond the known ones: a folder must not import one that imports it back.`);
  process.exit(1);
}
console.log(`${graph.size} folders, ${cycles.length} known cycle(s), no new one.`);
