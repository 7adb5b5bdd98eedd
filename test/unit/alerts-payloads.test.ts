// The shapes Slack and Teams take (api.slack.com/messaging/webhooks; Teams Workflows webhooks take an
// Adaptive Card in a message envelope), written out by hand, and a storm as one digest.
import { describe, expect, it } from 'vitest';
import { digestMessage } from '../../alerts/digest.ts';
import { alertMessage, typeMatches } from '../../alerts/message.ts';
import { destinationHint } from '../../alerts/routes-store.ts';
import { slackPayload } from '../../alerts/slack.ts';
import { teamsPayload } from '../../alerts/teams.ts';

const event = { eventID: 'e-1', entityType: 'OFFER', action: 'ACCEPTED', entityID: 'o-1', entityName: 'Acme <renewal>', entityStatus: 'ACCEPTED', partner: 'cloudA', title: 'Offer accepted', message: 'The buyer accepted the offer.', customFields: { amount: 12000, currency: 'USD' } };
const context = { buyer: 'Acme Corp', crmUrl: 'https://crm.example/006A', consoleUrl: 'https://sync.example/connections/c1' };

describe('alert payloads', () => {
  it('Slack: fallback text and Block Kit sections with escaped mrkdwn and link buttons', () => {
    expect(slackPayload(alertMessage(event, context))).toEqual({
      text: 'Offer accepted: Acme <renewal>',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*Offer accepted: Acme &lt;renewal&gt;*\nThe buyer accepted the offer.' } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Offer*\nAcme &lt;renewal&gt;' },
            { type: 'mrkdwn', text: '*Buyer*\nAcme Corp' },
            { type: 'mrkdwn', text: '*Amount*\n12,000.00 USD' },
            { type: 'mrkdwn', text: '*Status*\nACCEPTED' },
            { type: 'mrkdwn', text: '*Marketplace*\ncloudA' },
            { type: 'mrkdwn', text: '*Event*\nOFFER.ACCEPTED' },
          ],
        },
        {
          type: 'actions',
          elements: [
            { type: 'button', text: { type: 'plain_text', text: 'Open in the CRM' }, url: 'https://crm.example/006A' },
            { type: 'button', text: { type: 'plain_text', text: 'Open in the console' }, url: 'https://sync.example/connections/c1' },
          ],
        },
      ],
    });
  });

  it('Teams: an Adaptive Card in a message envelope', () => {
    expect(teamsPayload(alertMessage({ ...event, entityName: 'Acme', customFields: undefined, isActionItem: true }, { crmUrl: 'https://crm.example/006A' }))).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              { type: 'TextBlock', text: 'Offer accepted: Acme', weight: 'Bolder', size: 'Medium', wrap: true },
              { type: 'TextBlock', text: 'The buyer accepted the offer.', wrap: true },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Offer', value: 'Acme' },
                  { title: 'Status', value: 'ACCEPTED' },
                  { title: 'Marketplace', value: 'cloudA' },
                  { title: 'Event', value: 'OFFER.ACCEPTED' },
                  { title: 'Action item', value: 'yes' },
                ],
              },
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open in the CRM', url: 'https://crm.example/006A' }],
          },
        },
      ],
    });
  });

  it('a digest counts the events by type and names the first ten', () => {
    const events = Array.from({ length: 12 }, (_, i) => ({ eventID: `e-${i}`, entityType: i < 8 ? 'OFFER' : 'ENTITLEMENT', action: 'UPDATED', entityName: `R${i}` }));
    const digest = digestMessage(events);
    expect(digest.title).toBe('12 marketplace events at once (a digest instead of one message each)');
    expect(digest.facts).toEqual([{ name: 'OFFER.UPDATED', value: '8' }, { name: 'ENTITLEMENT.UPDATED', value: '4' }]);
    expect(digest.body!.split('\n')).toHaveLength(11);
    expect(digest.body).toContain('… and 2 more');
  });

  it('event type patterns and hints that never show a secret', () => {
    expect(typeMatches(['OFFER.*'], 'OFFER.ACCEPTED')).toBe(true);
    expect(typeMatches(['OFFER.ACCEPTED'], 'OFFER.PENDING_CANCEL')).toBe(false);
    expect(typeMatches(['*'], 'REFERRAL.REJECTED')).toBe(true);
    expect(destinationHint({ kind: 'slack', url: 'https://hooks.slack.com/services/T000/B000/SECRETXYZ' })).toBe('hooks.slack.com/…TXYZ');
    expect(destinationHint({ kind: 'email', to: ['ops@example.com'], smtp: { host: 'smtp.example.com', port: 587, secure: false, user: 'u', password: 'pw-secret', from: 'a@example.com' } })).toBe('ops@example.com via smtp.example.com:587');
  });
});

describe('alert titles', () => {
  // The demo showed "Usage reported: Harbor Containers for Acme Bank 186: Harbor Containers for Acme Bank 186".
  it('name the record once when the event title already names it, and add it otherwise', () => {
    const base = { eventID: 'e-9', entityType: 'ENTITLEMENT', entityID: 'ent-9', entityName: 'Harbor Containers for Acme Bank 186' };
    expect(alertMessage({ ...base, title: 'Usage reported: Harbor Containers for Acme Bank 186' } as never).title).toBe('Usage reported: Harbor Containers for Acme Bank 186');
    expect(alertMessage({ ...base, title: 'Entitlement cancelled' } as never).title).toBe('Entitlement cancelled: Harbor Containers for Acme Bank 186');
  });
});
