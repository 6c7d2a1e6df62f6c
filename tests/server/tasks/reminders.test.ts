import { sql } from 'drizzle-orm';
import t from 'tap';
import { taskRemindersJob } from '../../../server/tasks/jobs.js';

const TASK_REMINDERS_JOB = taskRemindersJob.name;
import { organizations, tasks } from '../../../server/schema.js';
import { rowsOf, testApp } from '../../helpers.js';
import { smtpMailbox } from '../core/smtp-mailbox.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
const recipient = (raw: string) => /^To: (.+)$/m.exec(raw)?.[1]?.trim();

t.test("the scheduled sweep e-mails a due task's owner in every organization, not twice in a day", async (t) => {
  const mailbox = await smtpMailbox(t);
  // Every minute, and a quick clock (JOB_POLL_SECONDS), so the schedule fires within seconds.
  const { app, database, organization } = await testApp(t, { SMTP_URL: mailbox.url, TASK_REMINDER_CRON: '* * * * *', JOB_POLL_SECONDS: '0.5' });
  const acme = await organization('acme');
  const [main] = await database.db.select().from(organizations).orderBy(organizations.id).limit(1);
  // Written before the app is ready, so the first scheduled run already finds them.
  await database.db.insert(tasks).values([
    { organization_id: main!.id, description: 'Rotate the leaked key', owner_email: 'owner@example.com', resolve_by: new Date('2020-01-01T00:00:00Z') },
    { organization_id: main!.id, description: 'Not due yet', owner_email: 'later@example.com', resolve_by: new Date('2999-01-01T00:00:00Z') },
    {
      organization_id: main!.id,
      description: 'Reminders off',
      owner_email: 'quiet@example.com',
      resolve_by: new Date('2020-01-01T00:00:00Z'),
      reminders: false,
    },
    { organization_id: acme.id, description: 'Renew the certificate', owner_email: 'acme-owner@example.com', resolve_by: new Date('2020-01-01T00:00:00Z') },
  ]);
  await app.ready();

  const schedules = rowsOf<{ name: string; cron: string; timezone: string }>(
    await database.db.execute(sql`select name, cron, timezone from pgboss.schedule where name = ${TASK_REMINDERS_JOB}`),
  );
  t.same(
    schedules.map((s) => ({ ...s })),
    [{ name: TASK_REMINDERS_JOB, cron: '* * * * *', timezone: 'UTC' }],
    'the sweep is scheduled with the configured cron',
  );

  await until('two reminder e-mails', () => mailbox.received.length >= 2);
  t.same(mailbox.received.map(recipient).sort(), ['acme-owner@example.com', 'owner@example.com'], 'the owners of the due tasks, one per organization');
  t.match(
    mailbox.received.find((m) => recipient(m) === 'owner@example.com'),
    /Subject: Task overdue: Rotate the leaked key/,
  );

  // The next run the same day (what the schedule sends at its next tick) reminds nobody again.
  const done = (await app.queue.countJobs(TASK_REMINDERS_JOB)).completed;
  await app.queue.enqueue(TASK_REMINDERS_JOB, {});
  await until('the second sweep', async () => {
    const counts = await app.queue.countJobs(TASK_REMINDERS_JOB);
    return counts.completed > done && !counts.created && !counts.active && !counts.retry;
  });
  t.equal(mailbox.received.length, 2, 'no second e-mail the same day');
});
