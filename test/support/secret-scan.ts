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
      const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
      parts.push(JSON.stringify(history, (_key, value) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value)));
    }
  }
  return parts.join('\n');
}
