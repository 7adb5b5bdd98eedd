// `npm run bench`: every benchmark, each printing JSON lines.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

for (const file of readdirSync(import.meta.dirname).filter((name) => name.endsWith('.ts') && name !== 'run.ts').sort()) {
  const result = spawnSync(process.execPath, [path.join(import.meta.dirname, file)], { stdio: 'inherit' });
  if (result.status !== 0) process.exitCode = result.status ?? 1;
}
