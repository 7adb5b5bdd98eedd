// The secrets scan every reliability scenario ends with: no secret in play may appear in a Temporal
// history (every run of a workflow, continued-as-new ones too), a log line or a command's output.
import type { Client } from '@temporalio/client';

/** Where each secret appears, as "where: secret name" (empty when none does). Short values are not secrets worth scanning for. */
export function secretsFound(texts: Record<string, string>, secrets: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  for (const [secretName, value] of Object.entries(secrets)) {
    if (!value || value.length < 8) continue;
    for (const [where, text] of Object.entries(texts)) {
      if (text.includes(value) || text.includes(encodeURIComponent(value)) || text.includes(Buffer.from(value).toString('base64'))) found.push(`${where}: ${secretName}`);
    }
  }
  return found;
}

/** Every event of every run of the workflows with these ids, as JSON (payloads are JSON text inside). */
export async function historiesText(client: Client, workflowIds: string[]): Promise<string> {
  const parts: string[] = [];
  for (const workflowId of workflowIds) {
    for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      parts.push(historyText(await client.workflow.getHandle(workflowId, run.runId).fetchHistory()));
    }
  }
  return parts.join('\n');
}

/**
 * A history as JSON with its payloads readable. A fetched history is a protobuf message whose toJSON
 * gives bytes as base64, so a payload's `data` (the JSON of inputs, results, failure details) arrives as
 * base64 of the whole payload, where a secret inside it would not show even base64-encoded: decoded here.
 */
export function historyText(history: unknown): string {
  return JSON.stringify(history, function (this: unknown, key, value) {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
    const inPayload = typeof this === 'object' && this !== null && 'metadata' in this;
    return key === 'data' && inPayload && typeof value === 'string' ? readable(Buffer.from(value, 'base64').toString('utf8')) : value;
  });
}

/** A JSON payload nested as JSON (no escaped quotes in the way of a search), any other one as text. */
function readable(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
