import { isIP } from 'node:net';

/**
 * Which addresses the server may connect to on a user's behalf (design.md §7): none of loopback,
 * private, link-local (cloud metadata), unique-local, unspecified, multicast or reserved ranges,
 * unless the operator's OUTBOUND_ALLOW names a range holding the address.
 */
interface Range {
  bytes: number[];
  bits: number;
}

/** An address's 4 or 16 bytes, or null if it is not an IP address. */
export function addressBytes(address: string): number[] | null {
  const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(a);
  if (family === 4) return a.split('.').map(Number);
  if (family !== 6) return null;
  // A trailing dotted quad (::ffff:127.0.0.1) stands for the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  const hex = quad ? a.slice(0, -quad[1]!.length) + '0:0' : a;
  const [head, tail] = hex.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').filter(Boolean) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const bytes = all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
  if (quad) bytes.splice(12, 4, ...quad[1]!.split('.').map(Number));
  return bytes;
}

/** `10.0.0.0/8`, `fe80::/10` or a bare address (a /32 or /128). */
export function parseRange(text: string): Range | null {
  const [address, bits, extra] = text.trim().split('/');
  const bytes = addressBytes(address ?? '');
  if (!bytes || extra !== undefined) return null;
  const max = bytes.length * 8;
  if (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)) return null;
  return { bytes, bits: bits === undefined ? max : Number(bits) };
}

function inRange(bytes: number[], range: Range) {
  if (bytes.length !== range.bytes.length) return false;
  for (let i = 0, left = range.bits; left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 255 : (0xff << (8 - left)) & 255;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

const rules = (list: [string, string][]) => list.map(([cidr, what]) => ({ range: parseRange(cidr)!, what }));

// The first match names the reason, so narrower ranges come before the ones holding them.
const REFUSED = rules([
  ['0.0.0.0/8', 'an unspecified address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['10.0.0.0/8', 'a private address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.168.0.0/16', 'a private address'],
  ['100.64.0.0/10', 'a private (carrier-grade NAT) address'],
  ['169.254.169.254/32', 'the cloud metadata address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['192.0.0.0/24', 'a reserved address'],
  ['198.18.0.0/15', 'a reserved address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a private (site-local) address'],
  ['ff00::/8', 'a multicast address'],
  ['::/96', 'a reserved address'],
]);

/** IPv6 forms that carry an IPv4 address, which is judged as well: mapped, NAT64 and 6to4. */
const EMBEDDING = [
  { range: parseRange('::ffff:0:0/96')!, at: 12, form: 'IPv4-mapped' },
  { range: parseRange('64:ff9b::/96')!, at: 12, form: 'NAT64' },
  { range: parseRange('2002::/16')!, at: 2, form: '6to4' },
];

export type Allowed = Range[];

/** OUTBOUND_ALLOW's ranges (config.ts has checked their form). */
export const allowedRanges = (text: string | undefined): Allowed =>
  (text ?? '')
    .split(',')
    .filter((p) => p.trim())
    .map((p) => parseRange(p)!)
    .filter(Boolean);

/**
 * Why connecting to `address` is refused ("127.0.0.1 is a loopback address"), or null when it may be
 * reached. An IPv6 form holding an IPv4 address is refused for what that address is.
 */
export function refusal(address: string, allowed: Allowed): string | null {
  const bytes = addressBytes(address);
  if (!bytes) return `${address} is not an IP address`;
  const inner = bytes.length === 16 ? EMBEDDING.find((e) => inRange(bytes, e.range)) : undefined;
  const v4 = inner ? bytes.slice(inner.at, inner.at + 4) : null;
  if (allowed.some((r) => inRange(bytes, r) || (v4 && inRange(v4, r)))) return null;
  const own = REFUSED.find((r) => inRange(bytes, r.range));
  if (own) return `${address} is ${own.what}`;
  const held = v4 && REFUSED.find((r) => inRange(v4, r.range));
  return held ? `${address} is ${held.what} (${inner!.form} ${v4!.join('.')})` : null;
}

export const ALLOW_HINT = 'an operator may allow it with OUTBOUND_ALLOW';
