// bin/node-version.mjs: the check the bin makes before anything else, in place of package.json's engines.
import { describe, expect, it } from 'vitest';
import { tooOldNodeMessage } from '../../bin/node-version.mjs';

describe('tooOldNodeMessage', () => {
  it('lets through the Nodes that run TypeScript without a flag', () => {
    for (const version of ['24.21.0', '24.0.0', '25.1.0', '22.18.0', '22.20.1', '23.6.0']) expect(tooOldNodeMessage(version)).toBeUndefined();
  });

  it('refuses older ones in one line that says what is needed, what ran, and what to do', () => {
    expect(tooOldNodeMessage('20.20.2', '/usr/bin/node')).toBe(
      'crm-sync needs Node.js 22.18 or newer (24 recommended), and /usr/bin/node is Node.js 20.20.2: ' +
        'run `npm install` in the project folder (it brings Node 24 into node_modules/.bin), then `npx crm-sync` or `npm start`.',
    );
    for (const version of ['22.17.1', '22.12.0', '23.5.0', '18.20.4', '0.12.0']) expect(tooOldNodeMessage(version)).toMatch(/^crm-sync needs Node\.js 22\.18 or newer .*[^\n]$/);
  });
});
