// For tests: the /_sandbox controls over plain HTTP.
import type { DynamicsSandbox } from './index.ts';

export async function control(sandbox: DynamicsSandbox, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${sandbox.controlUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Dynamics sandbox control ${method} ${path}: HTTP ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
