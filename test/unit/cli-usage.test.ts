// The CLI's usage checks without a process: option parsers, commander's messages made one line, zod
// issues named by flag, --cosell's unknown keys, every command's help carrying examples, and the
// progress bar shown only to a terminal.
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { editedSettings } from '../../cli/edit-commands.ts';
import { EXIT } from '../../cli/exit-codes.ts';
import { duration, entityList, isoTime, jsonObject, wholeNumber } from '../../cli/option-parsers.ts';
import { setJsonOutput } from '../../cli/output.ts';
import { buildProgram } from '../../cli/program.ts';
import { stepProgress } from '../../cli/progress.ts';
import { commanderErrorLine, configErrorLines, settingsProblems } from '../../cli/usage-errors.ts';
import { connectionSettingsSchema } from '../../sync/connection-settings.ts';

const saved = {
  commerce: { baseUrl: 'https://api.example', authUrl: 'https://auth.example', clientId: 'c1', organizationId: 'org-1' },
  crm: { kind: 'salesforce', loginUrl: 'https://login.example', clientId: 'sf-1' },
};

describe('option parsers', () => {
  it('say what a flag takes, quoting the value given', () => {
    expect(duration('15m')).toBe('15m');
    expect(() => duration('5x')).toThrow('"5x" is not a duration; use a whole number with s, m or h, like 15m');
    expect(() => duration('0m')).toThrow(/not a duration/);
    expect(wholeNumber(2, 1000)('25')).toBe(25);
    expect(() => wholeNumber(2, 1000)('5000')).toThrow('"5000" is not a whole number from 2 to 1000');
    expect(() => wholeNumber(1)('abc')).toThrow('"abc" is not a whole number 1 or more');
    expect(() => wholeNumber(1)('2.5')).toThrow(/not a whole number/);
    expect(isoTime('2026-01-01')).toBe('2026-01-01T00:00:00.000Z');
    expect(isoTime('2026-03-04T09:30:00+01:00')).toBe('2026-03-04T08:30:00.000Z');
    // Date.parse takes "1" as 2001: a time must look like one.
    expect(() => isoTime('1')).toThrow('"1" is not a time; use ISO 8601, like 2026-01-01 or 2026-01-01T09:30:00Z');
    expect(() => isoTime('2026-13-45')).toThrow(/not a time/);
    expect(entityList('buyer, offer')).toEqual(['buyer', 'offer']);
    expect(() => entityList('buyer,bogus,nope')).toThrow(/^"bogus", "nope" are not entities; choose from buyer, /);
    expect(jsonObject('{}')('{"a":1}')).toEqual({ a: 1 });
    expect(() => jsonObject('{"enabled":false}')('[1]')).toThrow('not a JSON object; give one like {"enabled":false}');
    expect(() => jsonObject('{}')('{bad')).toThrow(/^not JSON \(/);
  });
});

describe('usage error lines', () => {
  it("turn commander's messages into one line starting with the flag", () => {
    expect(commanderErrorLine(`error: option '--every <interval>' argument '5x' is invalid. "5x" is not a duration; use a whole number with s, m or h, like 15m\n`)).toBe(
      '--every: "5x" is not a duration; use a whole number with s, m or h, like 15m',
    );
    expect(commanderErrorLine(`error: option '-n, --limit <n>' argument 'abc' is invalid. "abc" is not a whole number 1 or more\n`)).toBe('--limit (-n): "abc" is not a whole number 1 or more');
    expect(commanderErrorLine(`error: option '--entities <list>' argument missing\n`)).toBe('--entities: needs a value <list>');
    expect(commanderErrorLine(`error: unknown option '--evry'\n(Did you mean --every?)\n`)).toBe("unknown option '--evry' (Did you mean --every?)");
  });

  it('make a configuration error one line per variable', () => {
    expect(configErrorLines('Invalid configuration:\n  LOG_LEVEL: expected one of "info", "debug"; got "loud"\n  CRM_SYNC_ADMIN_PORT: expected a TCP port; got "x"')).toBe(
      'LOG_LEVEL: expected one of "info", "debug"; got "loud"\nCRM_SYNC_ADMIN_PORT: expected a TCP port; got "x"',
    );
  });

  it('name the flag and the setting of each zod issue, one line each', () => {
    const parsed = connectionSettingsSchema.safeParse({ ...saved, overrides: { offer: { renames: {} } }, schedule: { pageSize: 5000 } });
    expect(parsed.success).toBe(false);
    expect(settingsProblems(parsed.error!).split('\n').sort()).toEqual([
      '--overrides (overrides.offer): Unrecognized key: "renames"',
      '--page-size (schedule.pageSize): Too big: expected number to be <=1000',
    ]);
  });

  it('edit names an unknown co-sell setting instead of dropping it', () => {
    const refused = (() => {
      try {
        editedSettings(saved, { cosell: { enabeld: false } });
      } catch (error) {
        return error as { message: string; exitCode: number };
      }
    })();
    expect(refused?.exitCode).toBe(EXIT.usage);
    expect(refused?.message).toBe('--cosell: "enabeld" is not a co-sell setting; use enabled, share, submit, owners, stages, startHorizonDays, offerApproval');
  });
});

describe('help', () => {
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];

  it('every command and subcommand shows examples', () => {
    const program = buildProgram();
    const commands = all(program);
    expect(commands.length).toBeGreaterThan(20);
    const without = commands
      .filter((command) => {
        let text = '';
        command.configureOutput({ writeOut: (chunk) => (text += chunk) });
        command.outputHelp();
        return !text.includes('\nExamples:\n');
      })
      .map((command) => command.name());
    expect(without).toEqual([]);
  });
});

describe('progress', () => {
  afterEach(() => setJsonOutput(false));
  const stream = (isTTY: boolean) => {
    const written: string[] = [];
    const fake = Object.assign(new PassThrough(), { isTTY, columns: 120 });
    fake.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    return { fake: fake as unknown as NodeJS.WriteStream, text: () => written.join('') };
  };

  it('shows named steps on a terminal, and nothing to a pipe or under --json', async () => {
    const terminal = stream(true);
    const steps = stepProgress(3, terminal.fake);
    steps.next('Signing in to Salesforce');
    steps.next('Creating the custom objects');
    steps.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(terminal.text()).toContain('0/3 Signing in to Salesforce');
    expect(terminal.text()).toContain('3/3 done');

    const pipe = stream(false);
    const quiet = stepProgress(3, pipe.fake);
    quiet.next('Signing in to Salesforce');
    quiet.stop();
    setJsonOutput(true);
    const json = stream(true);
    const underJson = stepProgress(3, json.fake);
    underJson.next('Signing in to Salesforce');
    underJson.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pipe.text()).toBe('');
    expect(json.text()).toBe('');
  });
});
