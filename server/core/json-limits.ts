import { pipeline, Transform } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body is a file's bytes, whatever its content type: not read as JSON, so not scanned. */
    fileBody?: boolean;
  }
}

/**
 * How deep a JSON request body or socket frame may nest (arrays and objects). Real payloads, alert
 * webhooks included, stay well under it; much deeper text only costs time in every walk of the tree
 * (the NUL check, JSON.stringify into the database), so it is refused before it is parsed.
 */
export const MAX_JSON_DEPTH = 64;
export const DEPTH_MESSAGE = `The JSON is nested deeper than ${MAX_JSON_DEPTH} levels.`;
export const DEPTH_TYPE = 'json_too_deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;
const ZERO = 0x30;

/**
 * One pass over JSON text, a chunk at a time (bytes: every character it looks for is ASCII, and no
 * byte of a multi-byte UTF-8 character is). It tracks strings and escapes, so brackets inside strings
 * do not count, and notes whether the text can hold a NUL: JSON carries one only as the escape
 * `\u0000` (a raw 0x00 byte is not JSON, but is noted too).
 */
export class JsonScan {
  depth = 0;
  tooDeep = false;
  nul = false;
  private inString = false;
  private escaped = false;
  /** Hex digits still to come after `\u`, and whether those seen so far were all 0. */
  private hex = 0;
  private zeros = true;

  /** Reads the next chunk; false once the text nests deeper than MAX_JSON_DEPTH. */
  push(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (c === 0) this.nul = true;
      if (this.inString) {
        if (this.hex > 0) {
          if (c !== ZERO) this.zeros = false;
          if (--this.hex === 0 && this.zeros) this.nul = true;
        } else if (this.escaped) {
          this.escaped = false;
          if (c === U) [this.hex, this.zeros] = [4, true];
        } else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++this.depth > MAX_JSON_DEPTH) {
          this.tooDeep = true;
          return false;
        }
      } else if (c === 0x5d || c === 0x7d) this.depth--;
    }
    return true;
  }
}

/** Scans a whole text (a socket frame, a body already read). */
export function scanJson(text: Uint8Array | string): JsonScan {
  const scan = new JsonScan();
  scan.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
  return scan;
}

export const tooDeep = (loc: (string | number)[] = ['body']) => httpError(400, DEPTH_MESSAGE, DEPTH_TYPE, loc);

const scans = new WeakMap<FastifyRequest, JsonScan>();

/** What the body's scan found, when the body was JSON text (undefined for other bodies). */
export const jsonScanOf = (req: FastifyRequest) => scans.get(req);

const isJson = (contentType: string | undefined) => /json/i.test((contentType ?? '').split(';')[0]!);

/**
 * Every JSON request body is scanned as it arrives, before any parser (Fastify's, or a route's own:
 * Grafana, Stripe, the workflow callback) sees it: one nested deeper than MAX_JSON_DEPTH is refused
 * with a 400 at the first byte past the limit, without reading on or building a tree.
 */
export function registerJsonLimits(app: FastifyInstance) {
  app.addHook('preParsing', (req, _reply, payload, done) => {
    if (req.routeOptions.config?.fileBody || !isJson(req.headers['content-type'])) return done(null, payload);
    const scan = new JsonScan();
    scans.set(req, scan);
    const checked = new Transform({
      transform(chunk: Buffer, _enc, callback) {
        if (!scan.push(chunk)) return callback(tooDeep());
        callback(null, chunk);
      },
    });
    // Fastify listens while it reads the body; an error after that (the client gone) must not throw.
    checked.on('error', () => {});
    done(
      null,
      pipeline(payload, checked, () => {}),
    );
  });
}
