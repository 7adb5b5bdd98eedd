// `npm run bench`: every benchmark, each printing JSON lines. BENCH_ONLY (comma-separated names, e.g.
// `BENCH_ONLY=fairness,freshness`) runs just those. The modules the benchmarks share are not run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Modules, not benchmarks: what the benchmarks import. */
const MODULES = new Set(['run', 'crm-calls', 'freshness-measure']);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim()).filter(Boolean);
const benches = readdirSync(import.meta.dirname)
  .filter((file) => file.endsWith('.ts') && !MODULES.has(path.basename(file, '.ts')))
  .filter((file) => !only || only.includes(path.basename(file, '.ts')))
  .sort();
if (only) for (const name of only) if (!benches.includes(`${name}.ts`)) throw new Error(`BENCH_ONLY names ${name}, which is no benchmark in bench/ (there are: ${readdirSync(import.meta.dirname).filter((file) => file.endsWith('.ts') && !MODULES.has(path.basename(file, '.ts'))).map((file) => path.basename(file, '.ts')).join(', ')})`);

for (const file of benches) {
  const result = spawnSync(process.execPath, [path.join(import.meta.dirname, file)], { stdio: 'inherit' });
  if (result.status !== 0) process.exitCode = result.status ?? 1;
}
