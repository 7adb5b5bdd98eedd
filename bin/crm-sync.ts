#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --max-old-space-size=1024
// Entry of the `crm-sync` command. Runs on Node >= 22.18 / 24, which execute TypeScript directly.
import { buildProgram } from '../cli/program.ts';

await buildProgram().parseAsync(process.argv);
