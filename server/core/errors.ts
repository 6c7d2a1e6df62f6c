import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

export interface DetailItem {
  msg: string;
  loc: (string | number)[];
  type: string;
}

/** Every 4xx/5xx leaves the server as `{"detail": [...]}`; throw this to choose the status and items. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: DetailItem[],
  ) {
    super(detail.map((d) => d.msg).join('; '));
  }
}

export const httpError = (status: number, msg: string, type: string, loc: (string | number)[] = []) => new HttpError(status, [{ msg, loc, type }]);

export const notFound = (label: string, id: unknown) => httpError(404, `${label} '${String(id)}' could not be found.`, 'not_found', ['path', 'id']);

export const invalid = (msg: string, loc: (string | number)[], type = 'value_error') => httpError(422, msg, type, loc);

export const forbidden = (msg = 'You do not have permission to do this.') => httpError(403, msg, 'forbidden');

export const unauthorized = (msg = 'Could not validate credentials.', type = 'unauthorized') => httpError(401, msg, type);

export const SERVER_ERROR_MESSAGE = 'Something has gone wrong. Please, retry or let your admin know that you received this error.';

/** PostgreSQL error codes the API turns into client errors instead of 500s. */
function fromDatabaseError(err: {
  code?: string;
  constraint_name?: string;
  constraint?: string;
  table_name?: string;
  table?: string;
  cause?: unknown;
}): HttpError | null {
  const pg = (err.code ? err : (err.cause as typeof err | undefined)) ?? err;
  const constraint = pg.constraint_name ?? pg.constraint ?? '';
  const table = pg.table_name ?? pg.table ?? '';
  switch (pg.code) {
    case '23505':
      return httpError(409, `A record with the same ${uniqueFields(constraint, table)} already exists.`, 'conflict');
    case '23503':
      return httpError(409, 'This record is still referenced by other records, or refers to one that does not exist.', 'foreign_key');
    case '23514':
    case '23502':
    case '22P02':
    case '22003':
    case '22007':
    case '22008':
    case '22009':
      return httpError(422, 'A value has the wrong type or is out of range.', 'value_error');
    // Input PostgreSQL cannot take, should a check before it miss a case: NUL in text (22021) or in
    // JSON (22P05), a LIKE pattern ending in its escape (22025), an operator the value's type lacks (42883).
    case '22021':
    case '22P05':
      return httpError(422, 'Text may not contain the NUL character (\\u0000).', 'string_nul');
    case '22025':
      return httpError(422, 'A search pattern may not end in an unescaped backslash.', 'value_error');
    case '42883':
      return httpError(422, 'An operator was used on a field of a type it does not apply to.', 'value_error');
    default:
      return null;
  }
}

/** `tags_org_type_name_unique` → "type and name": the words between the table and `unique`. */
function uniqueFields(constraint: string, table = ''): string {
  const bare = constraint.replace(/_(unique|key|pkey)$/, '');
  // The table name may have several words (incident_severities_org_project_name_unique).
  const rest = table && bare.startsWith(`${table}_`) ? bare.slice(table.length + 1).split('_') : bare.split('_').slice(1);
  const words = rest.filter((w) => w !== 'org' && w !== 'id');
  return words.length ? words.join(' and ') : 'values';
}

const fastifyCodes: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'The request body is not valid JSON.', 'json_invalid'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'The request body is empty but declared as JSON.', 'json_invalid'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'The request body is too large.', 'body_too_large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Unsupported content type; send application/json.', 'media_type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'The Content-Length header does not match the body.', 'content_length'],
};

/** FST_ERR_* errors of the router (frameworkErrors): their status, message and where. */
const routerCodes: Record<string, [number, string, string, string]> = {
  FST_ERR_BAD_URL: [400, 'The URL is not valid (a bad percent-encoding).', 'bad_url', 'path'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'A path parameter is too long.', 'param_too_long', 'path'],
};

/** Fastify's frameworkErrors option: router errors in the `{"detail": [...]}` shape. */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  const [status, msg, type, loc] = routerCodes[err.code] ?? [
    err.statusCode && err.statusCode < 500 ? err.statusCode : 400,
    err.message,
    err.code ?? 'client_error',
    'path',
  ];
  return reply.status(status).send({ detail: [{ msg, loc: [loc], type }] });
}

/**
 * Node's clientError event (Fastify's clientErrorHandler option): requests the HTTP parser refuses
 * before Fastify sees them (headers or URL too large, a bad Content-Length) still get a JSON answer
 * in the API's shape; the connection is then closed, as the parser cannot read on.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, msg, type] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers (the URL included) are too large.', 'headers_too_large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive.', 'request_timeout']
        : [400, 'The request could not be read as HTTP.', 'bad_request'];
  const body = JSON.stringify({ detail: [{ msg, loc: [], type }] });
  if (!socket.writable) return void socket.destroy();
  // end() lets the answer reach the client before the close; a client that never reads it is cut off.
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError & { detail?: unknown }, request, reply) => {
    if (err instanceof HttpError) return reply.status(err.statusCode).send({ detail: err.detail });
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'body';
      const detail = err.validation.map((v) => {
        const path = v.instancePath.split('/').filter(Boolean);
        const keys = (v.params as { keys?: string[] }).keys;
        if (v.keyword === 'unrecognized_keys' && keys) {
          return { msg: `Unknown field '${keys.join("', '")}'.`, loc: [where, ...path, ...keys], type: 'extra_forbidden' };
        }
        return { msg: v.message ?? 'Invalid value.', loc: [where, ...path], type: v.keyword ?? 'value_error' };
      });
      return reply.status(422).send({ detail });
    }
    const known = err.code ? fastifyCodes[err.code] : undefined;
    if (known) return reply.status(known[0]).send({ detail: [{ msg: known[1], loc: ['body'], type: known[2] }] });
    const fromDb = fromDatabaseError(err as never);
    if (fromDb) return reply.status(fromDb.statusCode).send({ detail: fromDb.detail });
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(err.statusCode).send({ detail: [{ msg: err.message, loc: [], type: err.code ?? 'client_error' }] });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ detail: [{ msg: SERVER_ERROR_MESSAGE, loc: [], type: 'server_error' }] });
  });
}
