/** The demo's runbooks: uploaded to chat (and listed as runbook documents) so questions find answers. */
export const RUNBOOKS = [
  {
    project: 'Platform',
    file: 'postgres-failover.md',
    title: 'Runbook: Postgres primary failover',
    text: `# Postgres primary failover

Use this when the primary database stops answering or replication lag exceeds five minutes.

## Check
Run \`patronictl list\` on any database node. The leader is marked Leader; a replica with lag "unknown" is not healthy.

## Fail over
Run \`patronictl failover --candidate pg-2 --force\`. Writes fail for about 15 seconds while the new leader is promoted.
Applications reconnect on their own through PgBouncer; restart PgBouncer only if connections stay in "waiting" for more than a minute.

## Afterwards
Rebuild the old primary as a replica with \`patronictl reinit postgres pg-1\` and write a timeline event with the times.
`,
  },
  {
    project: 'Platform',
    file: 'redis-failover.md',
    title: 'Runbook: Redis cache failover',
    text: `# Redis cache failover

Redis Sentinel watches cache-eu-1. When the master is down for 10 seconds Sentinel promotes a replica.

## Failing over by hand
Run \`redis-cli -p 26379 SENTINEL FAILOVER cache-eu-1\`. Writes fail for about 20 seconds; the client library retries writes three times with a 2-second back-off.

## Evictions
If \`evicted_keys\` grows quickly, raise maxmemory on the replicas first, then on the master, and tell the owning team.
`,
  },
  {
    project: 'Platform',
    file: 'kafka-consumer-lag.md',
    title: 'Runbook: Kafka consumer lag',
    text: `# Kafka consumer lag

Lag above 100,000 messages on any partition pages the on-call engineer.

## Steps
1. Check the consumer group with \`kafka-consumer-groups --describe --group billing-worker\`.
2. If one partition lags, restart that consumer's pod.
3. If all partitions lag, scale the deployment: \`kubectl scale deploy/billing-worker --replicas=12\`.

Lag under 1,000 for ten minutes means the incident can be marked stable.
`,
  },
  {
    project: 'Payments',
    file: 'card-payments-failing.md',
    title: 'Runbook: card payments failing',
    text: `# Card payments failing

When the checkout success rate drops under 95% for five minutes.

## Find the cause
Compare the error codes on the Payments dashboard. Code 5xx from the acquirer means their outage: switch routing to the secondary acquirer with the flag \`payments.secondary_acquirer=true\`.
Code 402 spikes usually mean a fraud rule misfired: ask the fraud team on #fraud-oncall before disabling a rule.

## Customers
Support posts the prepared status page message "Some card payments are failing" within 15 minutes of a Critical incident.
`,
  },
  {
    project: 'Payments',
    file: 'duplicate-charges.md',
    title: 'Runbook: duplicate charges',
    text: `# Duplicate charges

Duplicates come from retried requests without an idempotency key.

## Contain
Turn on \`checkout.strict_idempotency\`. It rejects a second charge with the same cart id within 24 hours.

## Refund
Export the duplicates with the "duplicate charges" saved query and refund them in one batch from the billing console. Refunds take 5 to 10 business days to reach customers.
`,
  },
  {
    project: 'Security',
    file: 'leaked-credentials.md',
    title: 'Runbook: leaked credentials',
    text: `# Leaked credentials

Any secret found in a public place is treated as compromised, whoever found it.

## Within the hour
1. Revoke the key in its provider's console; rotate it in the vault with \`vault kv put secret/<service> key=<new>\`.
2. Search the audit logs for use of the old key since it was committed.
3. Open a Security incident (it is restricted: only participants see it).

## Afterwards
Add the pattern to the secret scanner and note in the postmortem how the key got out.
`,
  },
  {
    project: 'Security',
    file: 'phishing-response.md',
    title: 'Runbook: phishing response',
    text: `# Phishing response

## Triage a reported e-mail
Open a case of type Security alert. Check the sender domain's age and the link targets in the sandbox.

## If anyone clicked
Reset the person's password, end their sessions in the SSO admin, and check for new OAuth grants in the last 24 hours. Escalate the case to an incident when credentials were entered.

## Block
Add the sender and the link domains to the mail gateway's block list.
`,
  },
  {
    project: 'Default',
    file: 'incident-commander-checklist.md',
    title: 'Incident commander checklist',
    text: `# Incident commander checklist

1. Say you are the commander in the incident's conversation.
2. Set the priority and severity; a Critical incident gets an executive report every four hours.
3. Name a scribe for the timeline and a liaison for customers and support.
4. Send a tactical report: conditions, actions, needs.
5. Mark the incident stable when customers are no longer affected, closed when the follow-up tasks exist.
`,
  },
];
