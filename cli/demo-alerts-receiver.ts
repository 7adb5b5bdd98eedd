// The demo's stand-in for Slack and Teams (issue #27 acceptance): a local webhook receiver on a loopback
// port of its own, which the demo connections' alert routes point at. Each alert it takes is printed as
// one line on the demo's output, as a seller would read it in the channel:
//   [alert → slack] Offer accepted: Acme Enterprise · Buyer: Acme Corp · Amount: 120,000.00 USD · Open in the CRM: https://…/006…
// It answers as the real services do (Slack 200 "ok", a Teams Workflows webhook 202), so the alerts'
// delivery runs exactly as it would against them. Only the demo starts it; it keeps nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The paths the receiver takes; the demo recognises its own routes by them (demo-alerts.ts). */
export const DEMO_ALERT_PATHS = { slack: '/demo-alerts/slack', teams: '/demo-alerts/teams' } as const;
export type DemoAlertKind = keyof typeof DEMO_ALERT_PATHS;

/** Bodies larger than this are refused: a real alert is a few kilobytes. */
const MAX_BODY_BYTES = 1_000_000;

export type DemoAlertsReceiver = {
  /** The webhook URLs the routes post to (loopback, the port chosen at start). */
  urls: Record<DemoAlertKind, string>;
  stop(): Promise<void>;
};

type Readable = { title: string; facts: { name: string; value: string }[]; links: { label: string; url: string }[] };

/** Slack mrkdwn escapes &, < and > (alerts/slack.ts); the line shows the text as written. */
const unescapeSlack = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** A Slack incoming-webhook body (alerts/slack.ts): `text`, a section of `*Name*\nValue` fields, link buttons. */
function fromSlack(body: any): Readable | undefined {
  if (typeof body?.text !== 'string') return undefined;
  const blocks: any[] = Array.isArray(body.blocks) ? body.blocks : [];
  const facts = blocks
    .flatMap((block) => (Array.isArray(block?.fields) ? block.fields : []))
    .map((field: any) => /^\*(.*?)\*\n([\s\S]*)$/.exec(String(field?.text ?? '')))
    .filter((match): match is RegExpExecArray => Boolean(match))
    .map((match) => ({ name: unescapeSlack(match[1]!), value: unescapeSlack(match[2]!) }));
  const links = blocks
    .flatMap((block) => (block?.type === 'actions' && Array.isArray(block.elements) ? block.elements : []))
    .filter((element: any) => typeof element?.url === 'string')
    .map((element: any) => ({ label: String(element.text?.text ?? 'link'), url: element.url as string }));
  return { title: body.text, facts, links };
}

/** A Teams Workflows body (alerts/teams.ts): an Adaptive Card in a message envelope. */
function fromTeams(body: any): Readable | undefined {
  const card = body?.type === 'message' && Array.isArray(body.attachments) ? body.attachments[0]?.content : undefined;
  if (!card || !Array.isArray(card.body)) return undefined;
  const title = card.body.find((item: any) => item?.type === 'TextBlock')?.text;
  if (typeof title !== 'string') return undefined;
  const facts = card.body.flatMap((item: any) => (item?.type === 'FactSet' && Array.isArray(item.facts) ? item.facts : [])).map((fact: any) => ({ name: String(fact.title), value: String(fact.value) }));
  const links = (Array.isArray(card.actions) ? card.actions : []).filter((action: any) => typeof action?.url === 'string').map((action: any) => ({ label: String(action.title ?? 'link'), url: action.url as string }));
  return { title, facts, links };
}

/** What a person needs on one line: what happened, to whom, how much, where to look. The rest (event type, status) is in the title already. */
const SHOWN_FACTS = ['Offer', 'Buyer', 'Amount', 'Marketplace', 'Action item'];

export function alertLine(kind: DemoAlertKind, alert: Readable): string {
  // The record's own name ends the title already ("Offer accepted: Acme Enterprise"): said once.
  const facts = alert.facts.filter((fact) => SHOWN_FACTS.includes(fact.name) && !alert.title.endsWith(`: ${fact.value}`)).map((fact) => (fact.name === 'Action item' ? 'action item' : `${fact.name}: ${fact.value}`));
  const links = alert.links.map((link) => `${link.label}: ${link.url}`);
  return `[alert → ${kind}] ${[alert.title.replace(/\s+/g, ' '), ...facts, ...links].join(' · ')}`;
}

/** Starts the receiver on 127.0.0.1, port 0; `print` gets each alert's line (the demo writes it to stdout). */
export async function startDemoAlertsReceiver(print: (line: string) => void): Promise<DemoAlertsReceiver> {
  const kinds = Object.fromEntries(Object.entries(DEMO_ALERT_PATHS).map(([kind, path]) => [path, kind as DemoAlertKind]));
  const server = http.createServer((request, response) => {
    const kind = kinds[new URL(request.url ?? '/', 'http://localhost').pathname];
    if (request.method !== 'POST' || !kind) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`no webhook here: POST ${DEMO_ALERT_PATHS.slack} or ${DEMO_ALERT_PATHS.teams}`);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_BODY_BYTES) return void response.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
      let alert: Readable | undefined;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        alert = kind === 'slack' ? fromSlack(body) : fromTeams(body);
      } catch {
        alert = undefined;
      }
      // Slack answers a body it cannot read with 400 and a reason; so does this.
      if (!alert) return void response.writeHead(400, { 'content-type': 'text/plain' }).end(kind === 'slack' ? 'invalid_payload' : 'not a Teams message with an Adaptive Card');
      print(alertLine(kind, alert));
      if (kind === 'slack') response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    urls: { slack: `${origin}${DEMO_ALERT_PATHS.slack}`, teams: `${origin}${DEMO_ALERT_PATHS.teams}` },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
