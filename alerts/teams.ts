// Microsoft Teams "Workflows" webhooks (the Power Automate "When a Teams webhook request is received"
// trigger that replaces Office 365 connectors) take a message envelope holding an Adaptive Card:
// {type: 'message', attachments: [{contentType: 'application/vnd.microsoft.card.adaptive', content: card}]}
// (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook,
// https://adaptivecards.io/explorer/). A Workflows webhook answers 202 Accepted.
import type { AlertMessage } from './message.ts';
import { postJson } from './webhook-post.ts';

export function teamsPayload(message: AlertMessage) {
  const body: unknown[] = [{ type: 'TextBlock', text: message.title, weight: 'Bolder', size: 'Medium', wrap: true }];
  if (message.body) body.push({ type: 'TextBlock', text: message.body, wrap: true });
  body.push({ type: 'FactSet', facts: message.facts.map((fact) => ({ title: fact.name, value: fact.value })) });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(message.links.length && { actions: message.links.map((link) => ({ type: 'Action.OpenUrl', title: link.label, url: link.url })) }),
        },
      },
    ],
  };
}

export function sendTeams(url: string, message: AlertMessage): Promise<void> {
  return postJson('Teams', url, teamsPayload(message));
}
