import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { oncallApp } from './helpers.js';
import { opsgenieStandIn, throttled, type OpsgenieData } from '../../stand-ins/opsgenie.js';
import { importOpsgenie } from '../../../server/oncall/opsgenie-apply.js';

const data: OpsgenieData = {
  users: [
    { id: 'u1', username: 'ana@example.com', fullName: 'Ana' },
    { id: 'u2', username: 'bo@example.com', fullName: 'Bo' },
    { id: 'u3', username: 'cy@example.com', fullName: 'Cy' },
  ],
  teams: [
    {
      id: 't1',
      name: 'Payments',
      description: 'Money',
      members: [
        { user: { id: 'u1', username: 'ana@example.com' }, role: 'admin' },
        { user: { id: 'u2', username: 'bo@example.com' }, role: 'user' },
      ],
    },
  ],
  schedules: [
    {
      id: 's1',
      name: 'Payments primary',
      timezone: 'Europe/Berlin',
      enabled: true,
      ownerTeam: { id: 't1', name: 'Payments' },
      rotations: [
        {
          id: 'r1',
          name: 'Weekly',
          startDate: '2026-03-02T08:00:00Z',
          type: 'weekly',
          length: 1,
          participants: [
            { type: 'user', id: 'u1', username: 'ana@example.com' },
            { type: 'user', id: 'u2', username: 'bo@example.com' },
          ],
        },
      ],
    },
  ],
  overrides: {
    s1: [{ alias: 'ov1', user: { type: 'user', id: 'u3', username: 'cy@example.com' }, startDate: '2026-03-06T17:00:00Z', endDate: '2026-03-07T08:00:00Z' }],
  },
  escalations: [
    {
      id: 'e1',
      name: 'Payments escalation',
      ownerTeam: { id: 't1', name: 'Payments' },
      rules: [
        {
          condition: 'if-not-acked',
          notifyType: 'default',
          delay: { timeAmount: 0, timeUnit: 'minutes' },
          recipient: { type: 'schedule', id: 's1', name: 'Payments primary' },
        },
        {
          condition: 'if-not-acked',
          notifyType: 'default',
          delay: { timeAmount: 10, timeUnit: 'minutes' },
          recipient: { type: 'team', id: 't1', name: 'Payments' },
        },
      ],
      repeat: { waitInterval: 15, count: 1 },
    },
  ],
  services: [{ id: 'sv1', name: 'checkout', teamId: 't1' }],
};

t.test('Opsgenie import: dry run changes nothing; the import maps everything; a second run updates, not duplicates', async (t) => {
  const o = await oncallApp(t);
  const og = await opsgenieStandIn('genie-key', data);
  t.teardown(() => og.close());
  const counts = async () =>
    (
      await o.exec<any>(sql`select (select count(*)::int from oncall_schedules) s, (select count(*)::int from oncall_overrides) ov,
        (select count(*)::int from oncall_escalation_policies) p, (select count(*)::int from services) sv, (select count(*)::int from oncall_team_members) m`)
    )[0];
  const before = await counts();

  // Dry run through the real command: a report, and nothing written.
  if (o.url) {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'server/oncall/opsgenie-cli.ts', '--key', 'genie-key', '--from-url', og.url, '--dry-run'], {
      env: { ...process.env, DATABASE_URL: o.url, LOG_LEVEL: 'silent' },
    });
    t.match(stdout, /would create 1 schedules:\n {2}Payments primary \(1 layers, Europe\/Berlin\)/);
    t.match(stdout, /would create 1 escalation policies/);
    t.same(await counts(), before, 'a dry run writes nothing');
  }

  const seen = og.requests.length;
  og.fail(/\/v2\/users/, throttled(1));
  const report = await o.tenantOf(o.app)((ctx) => importOpsgenie(ctx, { url: og.url, key: 'genie-key' }, null));
  t.same(Object.keys(report.created).sort(), ['escalation policies', 'overrides', 'schedules', 'services', 'teams', 'users']);
  t.equal(og.requests.slice(seen).filter((r) => r.path === '/v2/users').length, 3, 'the 429 was waited out, then both pages of users read');
  t.match(og.requests[0]!.headers, { authorization: 'GenieKey genie-key' });

  const schedule = (await o.api('GET', '/oncall/schedules')).body.items.find((s: any) => s.name === 'Payments primary');
  t.match(schedule, {
    time_zone: 'Europe/Berlin',
    external_id: 'opsgenie:s1',
    layers: [{ start: '2026-03-02T09:00', rotation: 'weekly', members: ['ana@example.com', 'bo@example.com'] }],
  });
  const at = async (iso: string) => (await o.api('GET', `/oncall/schedules/${schedule.id}/oncall?at=${iso}`)).body.oncall?.email;
  t.same(
    [await at('2026-03-03T12:00:00Z'), await at('2026-03-06T20:00:00Z'), await at('2026-03-10T12:00:00Z')],
    ['ana@example.com', 'cy@example.com', 'bo@example.com'],
    'the rotation and its override',
  );
  const policy = (await o.api('GET', '/oncall/escalation_policies')).body.items[0];
  t.match(policy, {
    name: 'Payments escalation',
    repeat: 1,
    steps: [
      { timeout_minutes: 10, targets: [{ type: 'schedule', id: schedule.id }] },
      { timeout_minutes: 15, targets: [{ type: 'team_all' }] },
    ],
  });
  const service = (await o.api('GET', '/services')).body.items.find((s: any) => s.name === 'checkout');
  t.match(service, { type: 'firewatch-oncall', external_id: String(policy.id) });
  t.same((await o.api('GET', `/oncall/teams/${policy.steps[1].targets[0].id}/members`)).body.emails, ['ana@example.com', 'bo@example.com']);

  const after = await counts();
  const again = await o.tenantOf(o.app)((ctx) => importOpsgenie(ctx, { url: og.url, key: 'genie-key' }, null));
  t.same(again.created, {}, 'a second run creates nothing');
  t.equal(again.updated.schedules?.length, 1);
  t.same(await counts(), after, 'and duplicates nothing');

  const refused = await o
    .tenantOf(o.app)((ctx) => importOpsgenie(ctx, { url: og.url, key: 'wrong' }, null))
    .catch((e: Error) => e.message);
  t.match(refused, /answered 401: .*Could not authenticate/);
});
