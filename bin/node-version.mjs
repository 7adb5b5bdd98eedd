// Plain JavaScript on purpose: this runs before anything else, on whatever Node the PATH gave the bin,
// so that a Node too old to read TypeScript says so in one line instead of an ERR_UNKNOWN_FILE_EXTENSION
// stack. The project's own Node 24 comes with `npm install` (the `node` package, node_modules/.bin).

// The first releases that run .ts files without a flag (type stripping): 22.18 and 23.6; 24 and later.
const FIRST_GOOD = { 22: 18, 23: 6 };

/** Undefined when `version` (as process.versions.node) can run crm-sync, else the one line to print. */
export function tooOldNodeMessage(version, executable = 'node') {
  const [major = 0, minor = 0] = String(version).split('.').map((part) => Number.parseInt(part, 10) || 0);
  const fine = major >= 24 || (major in FIRST_GOOD && minor >= FIRST_GOOD[major]);
  if (fine) return undefined;
  return (
    `crm-sync needs Node.js 22.18 or newer (24 recommended), and ${executable} is Node.js ${version}: ` +
    'run `npm install` in the project folder (it brings Node 24 into node_modules/.bin), then `npx crm-sync` or `npm start`.'
  );
}
