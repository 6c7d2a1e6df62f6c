import { createDecipheriv, createHash } from 'node:crypto';
import { pluginInstances } from '../../plugins/tables.js';
import { decryptSecret, encryptSecret, SECRET_MASK } from '../../plugins/secrets.js';
import { workflows } from '../../workflows/tables.js';
import { importKinds, unmapped, type Ctx, type KindSpec } from './engine.js';

type Row = Record<string, unknown> & { id: number };

/**
 * Dispatch keeps a plugin instance's configuration in StringEncryptedType(key=DISPATCH_ENCRYPTION_KEY,
 * engine=AesEngine, padding="pkcs5") (plugin/models.py): sqlalchemy_utils' AesEngine is AES-256-CBC
 * with the key's SHA-256 as key and its first 16 bytes as IV, PKCS#7 padding, base64 text.
 */
export function decryptDispatch(ciphertext: string, key: string): string {
  const digest = createHash('sha256').update(key, 'utf8').digest();
  const decipher = createDecipheriv('aes-256-cbc', digest, digest.subarray(0, 16));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

/** Which configuration values are secrets (Dispatch's schemas type them SecretStr; the names say so). */
const SECRET_NAME = /secret|password|token|key|credential|private/i;

function configurationOf(r: Row, ctx: Ctx): { configuration: Record<string, unknown>; secrets: Record<string, string> } {
  const sealed = r._configuration as string | null;
  if (!sealed) return { configuration: {}, secrets: {} };
  const key = ctx.options.dispatchKey;
  if (!key) {
    ctx.report.warn(
      ctx.org,
      'plugin_instance',
      String(r.id),
      'configuration not carried: it is encrypted and no --dispatch-key was given; re-enter it in Firewatch',
    );
    return { configuration: {}, secrets: {} };
  }
  let plain: Record<string, unknown>;
  try {
    plain = JSON.parse(decryptDispatch(sealed, key)) as Record<string, unknown>;
  } catch {
    ctx.report.warn(ctx.org, 'plugin_instance', String(r.id), 'configuration not carried: --dispatch-key does not open it');
    return { configuration: {}, secrets: {} };
  }
  const configuration: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(plain)) {
    const secret = SECRET_NAME.test(name) && typeof value === 'string';
    configuration[name] = secret ? SECRET_MASK : value;
    if (secret) secrets[name] = ctx.dryRun ? value : encryptSecret(ctx.db, value);
  }
  return { configuration, secrets };
}

/** Secrets are sealed with a fresh IV each time: compared opened, so a re-run does not rewrite them. */
function sameSecrets(stored: unknown, wanted: unknown, ctx: Ctx) {
  const open = (v: unknown, sealed: boolean) =>
    JSON.stringify(Object.fromEntries(Object.entries((v as Record<string, string>) ?? {}).map(([k, s]) => [k, sealed ? decryptSecret(ctx.db, s) : s])));
  try {
    return open(stored, true) === open(wanted, !ctx.dryRun);
  } catch {
    return false;
  }
}

const instanceSpec: KindSpec<Row> = {
  kind: 'plugin_instance',
  table: pluginInstances,
  rows: (ctx) => ctx.rows<Row>(`select i.*, p.slug, p.title from {s}plugin_instance i join dispatch_core.plugin p on p.id = i.plugin_id order by i.id`),
  same: { secrets: sameSecrets },
  // Imported disabled: Firewatch runs none of Dispatch's plugins; the instance keeps its settings for reference.
  map: (r, ctx) => ({
    project_id: ctx.ref('project', r.project_id),
    plugin_slug: r.slug,
    title: r.title ?? r.slug,
    enabled: false,
    ...configurationOf(r, ctx),
  }),
};

const workflowSpec: KindSpec<Row> = {
  kind: 'workflow',
  table: workflows,
  rows: (ctx) =>
    ctx.rows<Row>(`select w.*, array(select t.incident_type_id from {s}workflow_incident_type t where t.workflow_id = w.id order by 1) as type_ids,
      array(select p.incident_priority_id from {s}workflow_incident_priority p where p.workflow_id = w.id order by 1) as priority_ids
      from {s}workflow w order by w.id`),
  map: (r, ctx) => {
    const instance = ctx.ref('plugin_instance', r.plugin_instance_id);
    if (instance === null) return unmapped(`its plugin instance ${String(r.plugin_instance_id)} was not imported`);
    const refs = (kind: string, list: unknown) => ((list as number[]) ?? []).map((id) => ctx.ref(kind, id)).filter((id) => id !== null);
    return {
      project_id: ctx.ref('project', r.project_id),
      name: r.name,
      description: r.description ?? null,
      enabled: false,
      resource_id: r.resource_id ?? null,
      parameters: Array.isArray(r.parameters) ? r.parameters : [],
      plugin_instance_id: instance,
      incident_type_ids: refs('incident_type', r.type_ids),
      incident_priority_ids: refs('incident_priority', r.priority_ids),
    };
  },
};

export async function importPlugins(ctx: Ctx) {
  await importKinds(ctx, [instanceSpec, workflowSpec]);
}
