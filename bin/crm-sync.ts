#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=8 --max-old-space-size=1024
// Entry of the `crm-sync` command. Runs on Node >= 22.18 / 24, which execute TypeScript directly.
//
// This file is CommonJS in plain JavaScript (bin/package.json), not an ES module with types: an older
// Node (the machine's Node 20 when node_modules/.bin is not first on the PATH) refuses a .ts ES module
// with an ERR_UNKNOWN_FILE_EXTENSION stack before running a line of it, but it runs this file, so the
// version check below can say in one line what is needed. That check replaces package.json's
// `engines`: npm checked `engines` against the Node npm itself runs on (the machine's, often 20), not
// the Node 24 the command runs on, and printed EBADENGINE warnings at the top of every first `npx crm-sync`.
// V8's code cache on disk (Node's module compile cache; NODE_COMPILE_CACHE names its directory, the
// default is in the temporary directory): a command loads hundreds of modules, and with the cache it
// starts on about half the CPU (1.0 s -> 0.5 s). It never throws; a Node without it just goes on.
try {
  require('node:module').enableCompileCache?.();
} catch {
  // the cache is an optimization only
}
import('./node-version.mjs')
  .then(({ tooOldNodeMessage }) => {
    const problem = tooOldNodeMessage(process.versions.node, process.execPath);
    if (problem) {
      process.stderr.write(`${problem}\n`);
      process.exit(1);
    }
    return import('../cli/program.ts');
  })
  .then(({ buildProgram }) => buildProgram().parseAsync(process.argv))
  // What no command caught (a command outside withConfig, such as sandbox, or a failure before one ran):
  // one line and its exit code (cli/uncaught-error.ts), not an unhandled rejection's stack.
  .catch(async (error) => {
    const { reportUncaught } = await import('../cli/uncaught-error.ts');
    process.exit(reportUncaught(error));
  });
