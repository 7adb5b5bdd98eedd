#!/usr/bin/env node
// Entry of the `crm-sync` command. Runs on Node >= 22.18 / 24, which execute TypeScript directly.
import { buildProgram } from '../cli/program.ts';

await buildProgram().parseAsync(process.argv);
