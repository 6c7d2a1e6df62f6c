/**
 * What the guided source set-up knows of each sender: where it sends, a ready configuration snippet,
 * and a test alert in its own format, sent to its own route with the new source's key.
 */
export type SenderId = 'alertmanager' | 'grafana' | 'pagerduty' | 'opsgenie' | 'native' | 'dispatch';

export interface Sender {
  id: SenderId;
  label: string;
  /** The path under /api/v1/{organization}. */
  path: string;
  snippet: (base: string, key: string) => string;
  /** The test alert's request: headers and body (sent to base + path). */
  test: (key: string) => { headers: Record<string, string>; body: unknown };
}

const stamp = () => new Date().toISOString();
const testSummary = 'Test alert from the Firewatch source set-up';
const amBody = () => ({
  receiver: 'firewatch',
  status: 'firing',
  groupKey: '{}:{alertname="FirewatchTestAlert"}',
  version: '4',
  groupLabels: { alertname: 'FirewatchTestAlert' },
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'FirewatchTestAlert', severity: 'info' },
      annotations: { summary: testSummary },
      startsAt: stamp(),
      fingerprint: `test-${Date.now().toString(16)}`,
    },
  ],
});
const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

export const SENDERS: Sender[] = [
  {
    id: 'alertmanager',
    label: 'Prometheus Alertmanager',
    path: '/signals/alertmanager',
    snippet: (base, key) => `# alertmanager.yml
route:
  receiver: firewatch
receivers:
  - name: firewatch
    webhook_configs:
      - url: ${base}/signals/alertmanager
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: ${key}
`,
    test: (key) => ({ headers: bearer(key), body: amBody() }),
  },
  {
    id: 'grafana',
    label: 'Grafana alerting',
    path: '/signals/grafana',
    snippet: (base, key) => `Grafana → Alerting → Contact points → New contact point
  Integration: Webhook
  URL: ${base}/signals/grafana
  HTTP method: POST (PUT works too)
  Authorization header: scheme Bearer, credentials ${key}
  (Optional HMAC: set the same secret here and as the source's hmac_secret;
   name the signature and timestamp headers in both.)
`,
    test: (key) => ({ headers: bearer(key), body: { ...amBody(), orgId: 1, title: testSummary, state: 'alerting' } }),
  },
  {
    id: 'pagerduty',
    label: 'PagerDuty Events API v2',
    path: '/signals/pagerduty/v2/enqueue',
    snippet: (base, key) => `# Python, package "pagerduty" (HTTPS is required by the client)
from pagerduty import EventsApiV2Client
client = EventsApiV2Client("${key}", base_url="${base}/signals/pagerduty")
client.trigger(summary="Disk full on db-1", source="db-1", dedup_key="db-1/disk")

# curl
curl -X POST ${base}/signals/pagerduty/v2/enqueue -H 'content-type: application/json' \\
  -d '{"routing_key":"${key}","event_action":"trigger","payload":{"summary":"Disk full on db-1","source":"db-1","severity":"error"}}'
`,
    test: (key) => ({
      headers: { 'content-type': 'application/json' },
      body: { routing_key: key, event_action: 'trigger', payload: { summary: testSummary, source: 'firewatch-setup', severity: 'info' } },
    }),
  },
  {
    id: 'opsgenie',
    label: 'Opsgenie Alert API (Alertmanager opsgenie_configs, Grafana, Zabbix, Datadog…)',
    path: '/signals/opsgenie/v2/alerts',
    snippet: (base, key) => `# Anything that speaks Opsgenie's Alert API: change its API URL and key.
# alertmanager.yml
receivers:
  - name: firewatch
    opsgenie_configs:
      - api_url: ${base}/signals/opsgenie/
        api_key: ${key}
        send_resolved: true

# curl (Authorization: GenieKey <key>)
curl -X POST ${base}/signals/opsgenie/v2/alerts -H 'Authorization: GenieKey ${key}' \\
  -H 'content-type: application/json' -d '{"message":"Disk full on db-1","alias":"db-1/disk","priority":"P2"}'
`,
    test: (key) => ({
      headers: { authorization: `GenieKey ${key}`, 'content-type': 'application/json' },
      body: { message: testSummary, alias: `test-${Date.now().toString(16)}`, priority: 'P5' },
    }),
  },
  {
    id: 'native',
    label: 'Firewatch API (any script)',
    path: '/signals/instances',
    snippet: (base, key) => `curl -X POST ${base}/signals/instances -H 'Authorization: Bearer ${key}' \\
  -H 'content-type: application/json' -d '{"raw":{"summary":"Disk full on db-1","host":"db-1"},"dedup_key":"db-1/disk"}'
`,
    test: (key) => ({ headers: bearer(key), body: { raw: { summary: testSummary } } }),
  },
  {
    id: 'dispatch',
    label: 'Netflix Dispatch scripts',
    path: '/signals/instances',
    snippet: (base) => `# Dispatch's own shape, with a user's token or an API key; the definition is found by
# raw.externalId (its external_id) or raw.variant (its variant).
curl -X POST ${base}/signals/instances -H 'Authorization: Bearer <API key>' \\
  -H 'content-type: application/json' \\
  -d '{"project":{"name":"<project>"},"raw":{"externalId":"<external_id>","summary":"Unusual login"}}'
`,
    // The ingest-key form reaches the same definition (Dispatch's needs a user's credentials).
    test: (key) => ({ headers: bearer(key), body: { raw: { summary: testSummary } } }),
  },
];

export const senderOf = (id: unknown) => SENDERS.find((s) => s.id === id) ?? SENDERS[0]!;
