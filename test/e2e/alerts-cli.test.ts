// `crm-sync alerts` as processes against a real PostgreSQL: add a Slack, Teams and email route, list them
// (table and --json) with masked hints, send a sample through one to a local receiver, remove one; each
// add and remove is in the audit trail; no output, log line or audit row holds a webhook secret or the
// SMTP password; a usage mistake exits 2 with one line naming the flag.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectionStore } from '../../store/connections.ts';
import { SecretBox } from '../../store/secret-box.ts';
import { cliEnv, cliOutcome } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const SLACK_SECRET = 'B0SLACKSECRETPATHxyz';
const TEAMS_SECRET = 'sig=TEAMSSECRETSIGNATURE';
const SMTP_PASSWORD = 'smtp-pw-NEVER-SHOWN';

describe('crm-sync alerts (real PostgreSQL)', () => {
  const key = randomBytes(32);
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let env: NodeJS.ProcessEnv;
  const printed: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startWebhookReceiver();
    await createConnectionStore(database.pool, new SecretBox(key)).create({ name: 'acme', crmKind: 'salesforce', settings: {}, secrets: {} });
    env = cliEnv({ databaseUrl: database.url, secretKey: key.toString('base64'), taskQueue: `alerts-cli-${Date.now()}`, commerceClientSecret: 'x', salesforceClientSecret: 'y', logLevel: 'debug' });
  });
  afterAll(async () => {
    await receiver?.stop();
    await database?.drop();
  });

  const cli = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
    const outcome = await cliOutcome(env, args, extraEnv);
    printed.push(outcome.stdout, outcome.stderr);
    return outcome;
  };

  it('adds, lists masked, tests, removes and audits routes, never showing a secret', async () => {
    const slackUrl = `${receiver.url}/services/T0/${SLACK_SECRET}`;
    const slack = await cli(['alerts', 'acme', '--add', '--events', 'OFFER.ACCEPTED,entitlement.*', '--slack', slackUrl, '--json']);
    expect(slack.code, slack.stderr).toBe(0);
    const slackRoute = JSON.parse(slack.stdout);
    expect(slackRoute).toMatchObject({ events: ['OFFER.ACCEPTED', 'ENTITLEMENT.*'], destination: 'slack', hint: `127.0.0.1:${new URL(receiver.url).port}/…Hxyz` });
    const teams = await cli(['alerts', 'acme', '--add', '--events', '*', '--marketplaces', 'cloudA', '--teams', `${receiver.url}/workflows/run?${TEAMS_SECRET}`, '--json']);
    expect(teams.code, teams.stderr).toBe(0);
    const email = await cli(['alerts', 'acme', '--add', '--events', 'REFERRAL.REJECTED', '--email', 'ops@example.com', '--smtp-host', 'smtp.example.com', '--smtp-user', 'alerts', '--smtp-from', 'crm-sync@example.com', '--json'], { CRM_SYNC_SMTP_PASSWORD: SMTP_PASSWORD });
    expect(email.code, email.stderr).toBe(0);
    expect(JSON.parse(email.stdout).hint).toBe('ops@example.com via smtp.example.com:587');

    const listed = await cli(['alerts', 'acme', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).routes.map((route: { destination: string }) => route.destination)).toEqual(['slack', 'teams', 'email']);
    const human = await cli(['alerts', 'acme'], { CRM_SYNC_OUTPUT: 'human' });
    expect(human.stdout).toContain('ops@example.com via smtp.example.com:587');

    const tested = await cli(['alerts', 'acme', '--test', slackRoute.id]);
    expect(tested.code, tested.stderr).toBe(0);
    expect(receiver.to(`/services/T0/${SLACK_SECRET}`)).toHaveLength(1);
    expect(receiver.to(`/services/T0/${SLACK_SECRET}`)[0]!.body.text).toBe('Offer accepted: Sample offer (a test from crm-sync alerts --test)');

    const removed = await cli(['alerts', 'acme', '--remove', slackRoute.id]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse((await cli(['alerts', 'acme', '--json'])).stdout).routes).toHaveLength(2);

    const { rows } = await database.pool.query(`SELECT action, target, detail FROM audit_events WHERE action LIKE 'alerts.%' ORDER BY id`);
    expect(rows.map((row) => [row.action, row.target])).toEqual([
      ['alerts.add', slackRoute.id],
      ['alerts.add', JSON.parse(teams.stdout).id],
      ['alerts.add', JSON.parse(email.stdout).id],
      ['alerts.remove', slackRoute.id],
    ]);
    const stored = JSON.stringify((await database.pool.query('SELECT * FROM audit_events')).rows) + JSON.stringify((await database.pool.query('SELECT id, hint, event_types FROM alert_routes')).rows);
    for (const secret of [SLACK_SECRET, 'TEAMSSECRETSIGNATURE', SMTP_PASSWORD]) {
      expect(stored).not.toContain(secret);
      for (const text of printed) expect(text).not.toContain(secret);
    }
  });

  it('usage mistakes exit 2 with one line naming what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['alerts', 'acme', '--add', '--events', 'OFFER.ACCEPTED'], /^--add: give exactly one destination/],
      [['alerts', 'acme', '--add', '--events', 'offer accepted', '--slack', 'https://hooks.slack.com/x'], /^--events: "OFFER ACCEPTED" is not an event type/],
      [['alerts', 'acme', '--add', '--events', '*', '--email', 'ops@example.com'], /^--email: needs --smtp-host/],
      [['alerts', 'acme', '--add', '--events', '*', '--slack', 'not a url'], /^--slack: "not a url" is not a URL/],
      [['alerts', 'acme', '--remove', 'r-nope'], /^--remove: acme has no alert route "r-nope"/],
    ];
    for (const [args, message] of cases) {
      const outcome = await cli(args, { CRM_SYNC_OUTPUT: 'human', LOG_LEVEL: 'silent' }); // the usage line alone
      expect(outcome.code, outcome.stderr).toBe(2);
      expect(outcome.stderr.trim().split('\n'), outcome.stderr).toHaveLength(1);
      expect(outcome.stderr.trim().replace(/^error: /i, '')).toMatch(message);
    }
  });
});
