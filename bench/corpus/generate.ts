/**
 * The retrieval evaluation corpus: 260 operations documents (runbooks in Markdown, postmortems in
 * HTML, incident-review transcripts in WebVTT, on-call notes in plain text) about 260 services whose
 * names share words ("aurora-gateway", "aurora-ledger", "basalt-gateway"), written from templates
 * with shared boilerplate so that most words appear everywhere, and questions whose answer sentence
 * is known. Deterministic: the same seed gives the same corpus.
 */

export interface CorpusDoc {
  id: number;
  service: string;
  fileName: string;
  content: string;
}

export interface CorpusQuestion {
  question: string;
  doc: number;
  /** The sentence that answers it; a retrieved passage containing it is a hit. */
  answer: string;
}

const PREFIXES = ['aurora', 'basalt', 'cobalt', 'delta', 'ember', 'falcon', 'garnet', 'harbor', 'indigo', 'juniper', 'krypton', 'lumen', 'marlin', 'nimbus', 'onyx', 'pylon', 'quartz', 'raven', 'sierra', 'tundra', 'umber', 'vortex', 'willow', 'xenon', 'yarrow', 'zephyr'];
const SUFFIXES = ['gateway', 'ledger', 'scheduler', 'indexer', 'mailer', 'billing', 'auth', 'cache', 'search', 'sync'];
const TEAMS = ['platform', 'payments', 'identity', 'data', 'edge', 'messaging', 'storage', 'observability', 'mobile', 'growth'];
const PEOPLE = ['Amara Okafor', 'Bruno Silva', 'Chen Wei', 'Dana Kowalski', 'Elif Yilmaz', 'Farid Haddad', 'Greta Lindqvist', 'Hiro Tanaka', 'Ines Moreau', 'Jonas Becker', 'Kavya Rao', 'Liam Walsh', 'Maya Cohen', 'Nikolai Petrov', 'Olga Ivanova', 'Priya Nair', 'Quentin Blanc', 'Rosa Alvarez', 'Sven Holm', 'Tariq Aziz'];
const LBS = ['north', 'south', 'east', 'west', 'internal', 'public', 'partner'];
const RESOURCES = ['connection', 'worker', 'thread', 'file handle', 'session', 'lease', 'socket'];
const PURPOSES = ['rate limiting', 'feature flags', 'session storage', 'message delivery', 'currency rates', 'search ranking', 'fraud scoring', 'email templates', 'geolocation', 'token signing'];
const CAUSES = [
  'an expired TLS certificate on the internal load balancer',
  'a schema migration that locked the orders table',
  'a runaway cron job that filled the disk',
  'a DNS change that pointed clients at the staging cluster',
  'connection pool exhaustion after a config push',
  'a memory leak in the JSON serializer',
  'a retry storm from mobile clients',
  'clock skew between the primary and its replicas',
  'a missing index on the audit log query',
  'a bad feature flag that disabled caching',
];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Shared boilerplate: the words every operations document uses, so they carry little signal. */
const BOILERPLATE = [
  'Before any change, announce it in the incident channel and check the dashboards for latency, errors and saturation.',
  'If the service does not recover after a restart, escalate to the on-call engineer and open an incident.',
  'Keep the status page updated every thirty minutes while customers are affected.',
  'Backups, restarts and failovers must be recorded in the timeline so the postmortem can rebuild what happened.',
  'Alerts fire on error rate, latency and saturation; a page goes to the primary on-call first.',
  'Capacity is reviewed every quarter and load tests run before large launches.',
];

/** A small seeded generator (mulberry32): the same seed gives the same corpus on every run. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Fact {
  topic: string;
  sentence: string;
  questions: string[];
}

export function generateCorpus(seed = 42): { docs: CorpusDoc[]; questions: CorpusQuestion[] } {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const services = PREFIXES.flatMap((p) => SUFFIXES.map((s) => `${p}-${s}`));
  const docs: CorpusDoc[] = [];
  const questions: CorpusQuestion[] = [];
  const usedCodes = new Set<string>();

  services.forEach((svc, i) => {
    const port = 8000 + ((i * 37) % 1900);
    const host = `bastion-${String(1 + (i % 9)).padStart(2, '0')}.${pick(['prod', 'ops', 'infra'])}.internal`;
    let code: string;
    do code = `E${pick(['DB', 'NET', 'AUTH', 'Q', 'IO'])}-${1000 + Math.floor(rand() * 9000)}`;
    while (usedCodes.has(code));
    usedCodes.add(code);
    const person = pick(PEOPLE);
    const team = pick(TEAMS);
    const dep = services[(i * 7 + 3) % services.length]!;
    const purpose = pick(PURPOSES);
    const ms = 200 + Math.floor(rand() * 16) * 50;
    const minutes = pick([5, 10, 15, 20]);
    const date = `${pick(MONTHS)} ${1 + Math.floor(rand() * 28)}`;
    const cause = pick(CAUSES);
    const days = pick([7, 14, 30, 45, 90, 180]);
    const bucket = `s3://${svc}-backups-${pick(['eu', 'us', 'ap'])}`;
    const facts: Fact[] = [
      {
        topic: 'Network',
        sentence: `The ${svc} service listens on port ${port} behind the ${pick(LBS)} load balancer.`,
        questions: [`Which port does ${svc} listen on?`, `What port is ${svc} served from?`],
      },
      {
        topic: 'Ownership',
        sentence: `Escalate ${svc} problems to the ${team} team; the primary on-call is ${person}.`,
        questions: [`Who is the primary on-call for ${svc}?`, `Which team owns ${svc}?`],
      },
      {
        topic: 'Restart',
        sentence: `To restart ${svc}, run svcctl restart ${svc} --drain from the ${host} bastion host.`,
        questions: [`How do I restart ${svc}?`, `What is the command to restart ${svc} safely?`],
      },
      {
        topic: 'Errors',
        sentence: `Error ${code} from ${svc} means the ${pick(RESOURCES)} pool is exhausted.`,
        questions: [`What does error ${code} mean?`, `We are seeing ${code}, what does it indicate?`],
      },
      {
        topic: 'Alerting',
        sentence: `Page someone when ${svc} p99 latency stays above ${ms} ms for ${minutes} minutes.`,
        questions: [`When should we page for ${svc} latency?`, `What is the latency alert threshold for ${svc}?`],
      },
      {
        topic: 'Dependencies',
        sentence: `${svc} depends on ${dep} for ${purpose}.`,
        questions: [`What does ${svc} use for ${purpose}?`, `Which service provides ${purpose} to ${svc}?`],
      },
      {
        topic: 'History',
        sentence: `The root cause of the ${date} ${svc} outage was ${cause}.`,
        questions: [`What caused the ${svc} outage on ${date}?`, `Why did ${svc} go down on ${date}?`],
      },
      {
        topic: 'Backups',
        sentence: `Backups of ${svc} are stored in the ${bucket} bucket and kept for ${days} days.`,
        questions: [`Where are ${svc} backups stored?`, `How long are ${svc} backups retained?`],
      },
    ];
    // Each document also mentions other services in passing, as real ones do.
    const other = services[(i * 13 + 5) % services.length]!;
    const filler = (k: number) => `${BOILERPLATE[(i + k) % BOILERPLATE.length]} ${BOILERPLATE[(i + k + 2) % BOILERPLATE.length]} Coordinate with ${other} owners when both are affected.`;
    const kind = i % 4;
    let fileName: string;
    let content: string;
    if (kind === 0) {
      fileName = `runbook-${svc}.md`;
      content = `# ${svc} runbook\n\n${filler(0)}\n\n${facts.map((f, k) => `## ${f.topic}\n\n${f.sentence} ${filler(k + 1)}\n`).join('\n')}`;
    } else if (kind === 1) {
      fileName = `postmortem-${svc}.html`;
      content = `<html><body><h1>Postmortem: ${svc}</h1><p>${filler(0)}</p>${facts.map((f, k) => `<h2>${f.topic}</h2><p>${f.sentence}</p><p>${filler(k + 1)}</p>`).join('')}</body></html>`;
    } else if (kind === 2) {
      fileName = `review-${svc}.vtt`;
      let t = 0;
      const cue = (text: string) => {
        const start = t;
        t += 4 + Math.floor(rand() * 8);
        const ts = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000`;
        return `${ts(start)} --> ${ts(t)}\n${text}\n`;
      };
      const lines = [`Welcome to the ${svc} incident review.`, ...facts.flatMap((f, k) => [`Next topic, ${f.topic.toLowerCase()}.`, f.sentence, filler(k)])];
      content = `WEBVTT\n\n${lines.map(cue).join('\n')}`;
    } else {
      fileName = `oncall-notes-${svc}.txt`;
      content = `On-call notes for ${svc}\n\n${facts.map((f, k) => `${f.topic}: ${f.sentence}\n${filler(k)}`).join('\n\n')}\n`;
    }
    docs.push({ id: i, service: svc, fileName, content });
    // Two questions per document, on different facts.
    const a = Math.floor(rand() * facts.length);
    const b = (a + 1 + Math.floor(rand() * (facts.length - 1))) % facts.length;
    for (const k of [a, b]) {
      const f = facts[k]!;
      questions.push({ question: pick(f.questions), doc: i, answer: f.sentence });
    }
  });
  return { docs, questions };
}
