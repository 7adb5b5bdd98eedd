// deploy/compose.yaml, checked without running it (the images come from Docker Hub, which this machine
// cannot reach): valid against the Compose Specification's JSON schema, and the essentials a
// self-hoster relies on: three workers whose health is the admin server's /readyz, start-up order by
// conditions, secrets only from deploy/.env, pinned images, and settings the worker accepts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.ts';
import { MATCHING_PRIORITY_CONFIG } from '../../temporal/matching-config.ts';
import { parseYaml } from './yaml.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const deployDir = path.join(repoRoot, 'deploy');
const composeText = readFileSync(path.join(deployDir, 'compose.yaml'), 'utf8');

type Service = {
  image?: string;
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  restart?: string;
  stop_grace_period?: string;
  command?: string[];
  entrypoint?: string[];
  ports?: string[];
  volumes?: string[];
  build?: { context: string; dockerfile: string };
};
const compose = parseYaml(composeText) as { services: Record<string, Service> };
const services = compose.services;

/** Compose's own interpolation of ${NAME}, ${NAME:-default} and ${NAME:?message}, from `variables`. */
function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_whole, name: string, kind?: string, rest?: string) => {
    const given = variables[name];
    if (given) return given;
    if (kind === '?') throw new Error(`compose would stop: ${rest}`);
    return kind === '-' ? (rest ?? '') : '';
  });
}

function environmentOf(service: string, variables: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(services[service]!.environment ?? {}).map(([name, value]) => [name, interpolate(String(value ?? ''), variables)]));
}

/** What deploy/.env would hold: the example's names with test values (the example's own are placeholders). */
const exampleNames = readFileSync(path.join(deployDir, '.env.example'), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z0-9_]+=/.test(line))
  .map((line) => line.slice(0, line.indexOf('=')));
const filledEnv: Record<string, string> = {
  POSTGRES_PASSWORD: 'pgsuperpassword123',
  CRM_SYNC_DB_PASSWORD: 'syncdbpassword456',
  CRM_SYNC_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  CRM_SYNC_ADMIN_TOKEN: 'an-admin-token-of-at-least-32-characters',
};

describe('deploy/compose.yaml', () => {
  it('is a valid Compose file by the Compose Specification schema', () => {
    // Draft-07, Ajv's own default; its "$schema" spells the meta-schema's address without the '#' Ajv knows it by.
    const { $schema: _draft07, ...schema } = JSON.parse(readFileSync(path.join(import.meta.dirname, 'compose-spec/compose-spec.json'), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs three workers, each healthy when its admin server answers /readyz on the port the worker is given', () => {
    const worker = services.worker!;
    expect(worker.deploy?.replicas).toBe(3);
    expect(worker.command).toEqual(['worker']);
    const check = worker.healthcheck!.test;
    expect(check[0]).toBe('CMD');
    const probe = check.join(' ');
    expect(probe).toContain('http://127.0.0.1:9464/readyz');
    expect(String(worker.environment!.CRM_SYNC_ADMIN_PORT)).toBe('9464');
    // The check runs inside the container, so the admin server (console, metrics) stays on its loopback.
    expect(worker.environment!.CRM_SYNC_ADMIN_HOST).toBe('127.0.0.1');
  });

  it('lets the worker drain longer than its own shutdown grace before it is killed', () => {
    const stopGrace = /^(\d+)s$/.exec(services.worker!.stop_grace_period ?? '');
    expect(stopGrace, 'stop_grace_period in seconds, e.g. 60s').not.toBeNull();
    const drainMs = loadConfig(environmentOf('worker', filledEnv), false).shutdownGraceMs;
    expect(drainMs).toBe(30_000);
    expect(Number(stopGrace![1]) * 1000).toBeGreaterThan(drainMs);
  });

  it('starts each service only after what it needs is healthy or has finished', () => {
    const dependsOn = (service: string) => Object.fromEntries(Object.entries(services[service]!.depends_on ?? {}).map(([name, { condition }]) => [name, condition]));
    expect(dependsOn('temporal-schema')).toEqual({ postgresql: 'service_healthy' });
    expect(dependsOn('temporal')).toEqual({ 'temporal-schema': 'service_completed_successfully' });
    expect(dependsOn('temporal-namespace')).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn('temporal-ui')).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn('crm-sync-setup')).toEqual({ postgresql: 'service_healthy', 'temporal-namespace': 'service_completed_successfully' });
    expect(dependsOn('crm-sync-schedules')).toEqual({ 'crm-sync-setup': 'service_completed_successfully', 'temporal-namespace': 'service_completed_successfully' });
    expect(services['crm-sync-schedules']!.command).toEqual(['schedules']);
    expect(dependsOn('worker')).toEqual({ 'crm-sync-schedules': 'service_completed_successfully', temporal: 'service_healthy' });
    for (const [name, service] of Object.entries(services)) {
      for (const [needed, { condition }] of Object.entries(service.depends_on ?? {})) {
        // A health condition on a service without a healthcheck never becomes true; a one-shot that
        // restarts forever never completes.
        if (condition === 'service_healthy') expect(services[needed]!.healthcheck, `${name} waits for ${needed} to be healthy`).toBeDefined();
        if (condition === 'service_completed_successfully') expect(['always', 'unless-stopped']).not.toContain(services[needed]!.restart);
      }
    }
  });

  it('sets up the sync database with `crm-sync migrate` before the workers start', () => {
    const setup = services['crm-sync-setup']!;
    expect(setup.entrypoint).toEqual(['crm-sync']);
    expect(setup.command).toEqual(['migrate']);
    expect(setup.image).toBe(services.worker!.image);
    // Both build the repository's Dockerfile: a service without `build` would be pulled from a registry.
    for (const service of [setup, services.worker!]) expect(service.build).toEqual({ context: '..', dockerfile: 'Dockerfile' });
  });

  it('holds no secret: each secret is a ${VARIABLE} from deploy/.env, and a missing one stops compose with a message', () => {
    const secretName = /PASSWORD|PWD|SECRET|TOKEN|_KEY$|DATABASE_URL/;
    let checked = 0;
    for (const [name, service] of Object.entries(services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (!secretName.test(variable)) continue;
        checked += 1;
        const text = String(value);
        // Nothing but interpolations where a secret goes: no literal password, key or token.
        const literal = text.replace(/\$\{[^}]+\}/g, '').replace(/^postgres:\/\/crm_sync:@postgresql:5432\/crm_sync$/, '');
        expect(literal, `${name}.${variable}`).toBe('');
        expect(text, `${name}.${variable}`).toMatch(/\$\{[A-Z0-9_]+:[?-]/);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
    expect(() => environmentOf('worker', { ...filledEnv, CRM_SYNC_SECRET_KEY: '' })).toThrow(/CRM_SYNC_SECRET_KEY in deploy\/.env/);
    expect(() => environmentOf('postgresql', { ...filledEnv, POSTGRES_PASSWORD: '' })).toThrow(/POSTGRES_PASSWORD in deploy\/.env/);
  });

  it('names every variable it interpolates in deploy/.env.example, with placeholders only, and git ignores deploy/.env', () => {
    const uncommented = composeText.split('\n').filter((line) => !line.trimStart().startsWith('#')).join('\n');
    const interpolated = new Set([...uncommented.matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]!));
    const documented = new Set([...exampleNames, ...[...readFileSync(path.join(deployDir, '.env.example'), 'utf8').matchAll(/^# ([A-Z0-9_]+)=/gm)].map((match) => match[1]!)]);
    expect([...interpolated].filter((name) => !documented.has(name))).toEqual([]);
    for (const line of readFileSync(path.join(deployDir, '.env.example'), 'utf8').split('\n').filter((l) => /^[A-Z0-9_]+=/.test(l))) {
      const value = line.slice(line.indexOf('=') + 1);
      expect(value === '' || value.startsWith('replace-with-'), line).toBe(true);
    }
    // Exit 0: the path is ignored (exit 1 would mean a `git add deploy/.env` could commit the secrets).
    expect(() => execFileSync('git', ['check-ignore', '--quiet', 'deploy/.env'], { cwd: repoRoot })).not.toThrow();
  });

  it('gives the worker settings it accepts: the Temporal service, the sync database and the admin port', () => {
    const environment = environmentOf('worker', filledEnv);
    const config = loadConfig(environment, false);
    expect(config.temporal.address).toBe('temporal:7233');
    expect(config.temporal.namespace).toBe('default');
    expect(config.database.url).toBe('postgres://crm_sync:syncdbpassword456@postgresql:5432/crm_sync');
    expect(config.admin.port).toBe(9464);
    expect(config.demo).toBe(false);
    expect(config.log.format).toBe('json');
    // The setup service runs the same configuration, plus the secrets `crm-sync connect` reads.
    const setup = environmentOf('crm-sync-setup', { ...filledEnv, COMMERCE_CLIENT_SECRET: 'from-env-file' });
    expect(loadConfig(setup, false).database.url).toBe(config.database.url);
    expect(setup.COMMERCE_CLIENT_SECRET).toBe('from-env-file');
  });

  it('runs Temporal on our PostgreSQL with its 1.29 server, and every image has a pinned version', () => {
    for (const [name, service] of Object.entries(services)) {
      const image = interpolate(service.image!, {});
      const tag = image.slice(image.lastIndexOf(':') + 1);
      expect(image, name).toContain(':');
      expect(tag, name).not.toBe('latest');
    }
    expect(services.temporal!.image).toMatch(/^temporalio\/server:1\.29\.\d+$/);
    expect(services['temporal-schema']!.image).toMatch(/^temporalio\/admin-tools:1\.29\.\d+/);
    expect(services['temporal-ui']!.image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    expect(services.postgresql!.image).toMatch(/^postgres:\d+\.\d+$/);
    const temporal = environmentOf('temporal', filledEnv);
    expect(temporal).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql', POSTGRES_PWD: 'pgsuperpassword123' });
    // The UI is published on loopback only: it has no sign-in.
    expect(services['temporal-ui']!.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(services.worker!.ports).toBeUndefined();
  });

  it("gives the Temporal server the matching config that makes it honour the sync's task priority and fairness", () => {
    const mounted = services.temporal!.volumes!.find((volume) => volume.startsWith('./temporal/dynamicconfig.yaml:'))!;
    expect(mounted.split(':')[1]).toBe(environmentOf('temporal', filledEnv).DYNAMIC_CONFIG_FILE_PATH);
    const dynamicConfig = parseYaml(readFileSync(path.join(deployDir, 'temporal/dynamicconfig.yaml'), 'utf8')) as Record<string, { value: unknown }[]>;
    for (const [key, value] of Object.entries(MATCHING_PRIORITY_CONFIG)) expect(dynamicConfig[key], key).toEqual([{ value }]);
  });

  it('mounts only files that exist, and its shell scripts parse', () => {
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        if (!volume.startsWith('./')) continue;
        expect(() => readFileSync(path.join(deployDir, volume.split(':')[0]!))).not.toThrow();
      }
    }
    const scripts = ['postgres', 'temporal'].flatMap((dir) => readdirSync(path.join(deployDir, dir)).filter((file) => file.endsWith('.sh')).map((file) => path.join(deployDir, dir, file)));
    expect(scripts.length).toBe(3);
    for (const script of scripts) expect(() => execFileSync('sh', ['-n', script])).not.toThrow();
  });
});

// A second, independent reader: Debian's docker-compose 1.29 (`apt-get install docker-compose`) parses,
// validates and interpolates the file with `config`, without a Docker daemon. It predates the top-level
// `name`, so it reads the file without that line. (Debian's podman-compose 1.0.3 has no `config`.)
const dockerCompose = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' });
const dockerComposeFound = dockerCompose.status === 0;
const dockerComposeMissing = 'no docker-compose on the PATH (apt-get install docker-compose)';
if (!dockerComposeFound && !process.env.CI) console.warn(`docker-compose config checks skipped: ${dockerComposeMissing}`);

// On CI (CI set) a missing docker-compose fails a test instead of skipping the second reader's checks.
if (!dockerComposeFound && process.env.CI) {
  describe('deploy/compose.yaml read by docker-compose config on CI', () => {
    it('has a docker-compose to read the file with', () => {
      throw new Error(`The docker-compose checks cannot run on this CI machine: ${dockerComposeMissing}`);
    });
  });
}

describe.skipIf(!dockerComposeFound)('deploy/compose.yaml read by docker-compose config', () => {
  function composeConfig(variables: Record<string, string>) {
    // An empty env file: a developer's own deploy/.env must not fill in what the test leaves out.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'compose-config-'));
    try {
      const emptyEnvFile = path.join(dir, 'empty.env');
      writeFileSync(emptyEnvFile, '');
      return spawnSync('docker-compose', ['--project-directory', deployDir, '--env-file', emptyEnvFile, '-f', '-', 'config'], {
        input: composeText.replace(/^name: .*\n/m, ''),
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: dir, ...variables },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('accepts the file and resolves three workers with the secrets from the environment', () => {
    const run = composeConfig(filledEnv);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const resolved = parseYaml(run.stdout) as { services: Record<string, Service> };
    expect(resolved.services.worker!.deploy?.replicas).toBe(3);
    expect(resolved.services.worker!.environment!.DATABASE_URL).toBe('postgres://crm_sync:syncdbpassword456@postgresql:5432/crm_sync');
    expect(resolved.services.temporal!.environment!.POSTGRES_PWD).toBe('pgsuperpassword123');
    expect(resolved.services['crm-sync-setup']!.depends_on!['temporal-namespace']!.condition).toBe('service_completed_successfully');
  });

  it('stops, naming the variable and where it goes, when a secret is missing', () => {
    const run = composeConfig({ ...filledEnv, CRM_SYNC_ADMIN_TOKEN: '' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('set CRM_SYNC_ADMIN_TOKEN in deploy/.env');
  });
});
