import { readFileSync } from 'node:fs';
export function smaps(pid = 'self') {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const maps = []; let cur;
  for (const line of text.split('\n')) {
    const h = line.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (h) { cur = { range: h[1] + '-' + h[2], size: (parseInt(h[2], 16) - parseInt(h[1], 16)) / 1048576, perm: h[3], name: h[4], rss: 0 }; maps.push(cur); continue; }
    const r = line.match(/^Rss:\s+(\d+)/); if (r && cur) cur.rss = Number(r[1]) / 1024;
  }
  return maps.sort((a, b) => b.rss - a.rss).slice(0, 12).map((m) => `${m.rss.toFixed(1)} MB rss of ${m.size.toFixed(0)} MB ${m.perm} ${m.name}`).join('\n');
}
