/**
 * Summarizes a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile` file): where the main thread's time
 * went, by function and by file (packages folded into their name), self time, biggest first.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/run.ts incidents
 *   npx tsx bench/lib/cpu-profile.ts /tmp/prof/CPU.*.cpuprofile [top]
 *
 * The profile covers the whole run (seed check, warm-up, floor and app alike): compare the app's
 * entries with each other, not with the table's per-request figures.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A file's group: the package under node_modules, else the path inside the repository. */
function groupOf(url: string): string {
  if (!url) return '(native / V8)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const repo = url.indexOf('/server/') >= 0 ? url.slice(url.indexOf('/server/') + 1) : url.replace(/^file:\/\//, '');
  return repo.startsWith('node:') ? 'node (built-in)' : repo;
}

export function summarize(profile: Profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byGroup = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const group = groupOf(url);
    const name = `${functionName || '(anonymous)'}  ${group}${url && !url.includes('node_modules') ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byGroup.set(group, (byGroup.get(group) ?? 0) + us);
  }
  const print = (title: string, entries: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  };
  console.log(`${(total / 1e6).toFixed(1)} s of samples`);
  print('self time by file or package', byGroup);
  print('self time by function', byFunction);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/lib/cpu-profile.ts FILE.cpuprofile [top]');
  summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 25));
}
