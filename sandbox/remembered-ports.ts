// The ports the sandboxes listened on last time (<dataDir>/sandboxes/ports.json), so a restarted demo
// serves the same URLs as before: whatever stored them (a worker's settings, a CRM's instance URL)
// still reaches them.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export type Ports = { commerceApi?: number; commerceAuth?: number; salesforce?: number; hubspot?: number; dynamics?: number };

const isPort = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0 && (value as number) < 65536;

/** The remembered ports; none when the file is missing or unreadable (then any free port will do). */
export function readPorts(file: string): Ports {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(parsed).filter(([, port]) => isPort(port))) as Ports;
  } catch {
    return {};
  }
}

export function writePorts(file: string, ports: Ports): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(ports)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/**
 * Runs `start` with the remembered `ports`; when one of them is taken now (EADDRINUSE), again without
 * it, so that one goes to a free port and the others stay.
 */
export async function startOnRememberedPorts<T>(remembered: Ports, start: (ports: Ports) => Promise<T>): Promise<T> {
  const ports: Record<string, number | undefined> = { ...remembered };
  for (;;) {
    try {
      return await start(ports);
    } catch (error) {
      const { code, port } = error as NodeJS.ErrnoException & { port?: number };
      const taken = Object.keys(ports).find((name) => code === 'EADDRINUSE' && ports[name] === port);
      if (taken === undefined) throw error;
      delete ports[taken];
    }
  }
}
