import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.ts';

const key = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const config = loadConfig({}, false);
    expect(config.database.url).toBeUndefined();
    expect(config.database.embeddedPort).toBe(54329);
    expect(config.temporal.address).toBeUndefined();
    expect(config.temporal.devServerPort).toBe(7233);
    expect(config.temporal.taskQueue).toBe('crm-sync');
    expect(config.heartbeatEvery).toBe('1m');
    expect(config.log.format).toBe('json');
    expect(loadConfig({}, true).log.format).toBe('pretty');
  });

  it('names the variable and what it expects when a value is bad', () => {
    expect(() => loadConfig({ CRM_SYNC_TEMPORAL_PORT: 'seventy' }, false)).toThrow(
      /CRM_SYNC_TEMPORAL_PORT: expected a TCP port, a whole number from 1 to 65535; got "seventy"/,
    );
    expect(() => loadConfig({ CRM_SYNC_EMBEDDED_PG_PORT: '70000' }, false)).toThrow(/CRM_SYNC_EMBEDDED_PG_PORT: expected a TCP port/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' }, false)).toThrow(/LOG_LEVEL: expected one of "fatal", "error"/);
    expect(() => loadConfig({ CRM_SYNC_HEARTBEAT_EVERY: 'often' }, false)).toThrow(/CRM_SYNC_HEARTBEAT_EVERY: expected a duration such as 30s/);
  });

  it('reports every bad variable at once', () => {
    try {
      loadConfig({ LOG_LEVEL: 'loud', CRM_SYNC_TEMPORAL_PORT: '0' }, false);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('LOG_LEVEL');
      expect((error as Error).message).toContain('CRM_SYNC_TEMPORAL_PORT');
    }
  });

  it('never echoes a secret value back, even a malformed one', () => {
    const attempt = () => loadConfig({ CRM_SYNC_SECRET_KEY: 'hunter2-not-a-key', DATABASE_URL: 'mysql://user:pw@host/db' }, false);
    expect(attempt).toThrow(/CRM_SYNC_SECRET_KEY: expected 32 bytes, base64-encoded/);
    expect(attempt).toThrow(/DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/);
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
      expect((error as Error).message).not.toContain('user:pw');
    }
  });

  it('requires the encryption key whenever an external database is used', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db.example/crm' }, false)).toThrow(/CRM_SYNC_SECRET_KEY: .*whenever DATABASE_URL is set/);
    const config = loadConfig({ DATABASE_URL: 'postgres://db.example/crm', CRM_SYNC_SECRET_KEY: key }, false);
    expect(config.secretKey?.length).toBe(32);
  });

  it('is the demo on embedded defaults unless told otherwise', () => {
    expect(loadConfig({}, false).demo).toBe(true);
    expect(loadConfig({ CRM_SYNC_DEMO: 'off' }, false).demo).toBe(false);
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }, false).demo).toBe(false);
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', CRM_SYNC_DEMO: 'on' }, false).demo).toBe(true);
    expect(() => loadConfig({ CRM_SYNC_DEMO: 'maybe' }, false)).toThrow(/CRM_SYNC_DEMO: expected one of "auto", "on", "off"/);
  });

  it('takes an existing Temporal cluster from TEMPORAL_ADDRESS', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'my-ns.a1b2c' }, false);
    expect(config.temporal.address).toBe('my-ns.a1b2c.tmprl.cloud:7233');
    expect(config.temporal.namespace).toBe('my-ns.a1b2c');
  });
});
