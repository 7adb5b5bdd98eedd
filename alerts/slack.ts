// Slack incoming webhooks take `text` (the notification and fallback line) and Block Kit `blocks`
// (https://api.slack.com/messaging/webhooks, https://docs.slack.dev/reference/block-kit/blocks).
// Slack's mrkdwn needs &, < and > escaped (https://api.slack.com/reference/surfaces/formatting#escaping).
import type { AlertMessage } from './message.ts';
import { postJson } from './webhook-post.ts';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A section holds at most 10 fields. */
const MAX_FIELDS = 10;

export function slackPayload(message: AlertMessage) {
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escape(message.title)}*${message.body ? `\n${escape(message.body)}` : ''}` } },
    { type: 'section', fields: message.facts.slice(0, MAX_FIELDS).map((fact) => ({ type: 'mrkdwn', text: `*${escape(fact.name)}*\n${escape(fact.value)}` })) },
  ];
  if (message.links.length) blocks.push({ type: 'actions', elements: message.links.map((link) => ({ type: 'button', text: { type: 'plain_text', text: link.label }, url: link.url })) });
  return { text: message.title, blocks };
}

export function sendSlack(url: string, message: AlertMessage): Promise<void> {
  return postJson('Slack', url, slackPayload(message));
}
