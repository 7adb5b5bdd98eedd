// The demo's local alert receiver (cli/demo-alerts-receiver.ts) takes what the real Slack and Teams
// senders post (alerts/slack.ts, alerts/teams.ts) and prints each alert as one readable line.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { alertMessage } from '../../alerts/message.ts';
import { sendSlack } from '../../alerts/slack.ts';
import { sendTeams } from '../../alerts/teams.ts';
import { startDemoAlertsReceiver, type DemoAlertsReceiver } from '../../cli/demo-alerts-receiver.ts';
import type { NotificationEvent } from '../../commerce/models.ts';

const printed: string[] = [];
let receiver: DemoAlertsReceiver;
beforeAll(async () => {
  receiver = await startDemoAlertsReceiver((line) => printed.push(line));
});
afterAll(() => receiver.stop());

const accepted = {
  eventID: 'evt-1',
  entityType: 'OFFER',
  action: 'STATUS_CHANGED',
  entityID: 'offer-1',
  entityName: 'Acme <Enterprise> & Co',
  entityStatus: 'ACCEPTED',
  partner: 'Marketplace A',
  title: 'Offer accepted',
  message: 'The buyer accepted the offer.',
  isActionItem: false,
  customFields: { amount: 120000, currency: 'USD' },
} as unknown as NotificationEvent;

it('prints a Slack webhook alert as one line: what happened, to whom, how much, where', async () => {
  printed.length = 0;
  await sendSlack(receiver.urls.slack, alertMessage(accepted, { buyer: 'Acme Corp', crmUrl: 'https://sf.example/006A' }));
  expect(printed).toEqual(['[alert → slack] Offer accepted: Acme <Enterprise> & Co · Buyer: Acme Corp · Amount: 120,000.00 USD · Marketplace: Marketplace A · Open in the CRM: https://sf.example/006A']);
});

it('prints a Teams Workflows alert the same way, action items marked', async () => {
  printed.length = 0;
  const cancelled = { ...accepted, entityType: 'ENTITLEMENT', entityName: 'Acme seats', title: 'Entitlement cancelled', isActionItem: true, customFields: {} } as unknown as NotificationEvent;
  await sendTeams(receiver.urls.teams, alertMessage(cancelled, { offer: 'Acme Enterprise' }));
  expect(printed).toEqual(['[alert → teams] Entitlement cancelled: Acme seats · Offer: Acme Enterprise · Marketplace: Marketplace A · action item']);
});

it('refuses what is no alert, and prints nothing for it', async () => {
  printed.length = 0;
  const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect((await post(receiver.urls.slack, '{"blocks": []}')).status).toBe(400);
  expect((await post(receiver.urls.teams, 'not json')).status).toBe(400);
  expect((await post(receiver.urls.slack.replace('/slack', '/other'), '{"text": "x"}')).status).toBe(404);
  expect(printed).toEqual([]);
});
