// The top-level catch of bin/crm-sync.ts: an error no command caught ends in one redacted line, with the
// ExitError's code or 1.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExitError, UsageError } from '../../cli/exit-codes.ts';
import { reportUncaught } from '../../cli/uncaught-error.ts';

describe('reportUncaught', () => {
  afterEach(() => vi.restoreAllMocks());

  const stderrOf = (error: unknown) => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => (written.push(String(text)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const code = reportUncaught(error);
    return { code, stderr: written.join('') };
  };

  it("prints one line and ends with the ExitError's code, else 1", () => {
    expect(stderrOf(new UsageError('port 4000 is in use: choose another with --commerce-port'))).toEqual({ code: 2, stderr: 'port 4000 is in use: choose another with --commerce-port\n' });
    expect(stderrOf(new ExitError('No connection named "x"', 3)).code).toBe(3);
    expect(stderrOf(new Error('first\n    at somewhere (file.ts:1:1)'))).toEqual({ code: 1, stderr: 'first; at somewhere (file.ts:1:1)\n' });
  });

  it('redacts a secret the message quotes', () => {
    const { stderr } = stderrOf(new Error('request to https://auth.example/token failed: client_secret=hunter2-very-secret'));
    expect(stderr).not.toContain('hunter2-very-secret');
    expect(stderr).toContain('client_secret=[redacted]');
    expect(stderr.split('\n')).toHaveLength(2);
  });
});
