// CRM_SYNC_SHUTDOWN_GRACE: how long `crm-sync worker` lets running activities finish after SIGTERM,
// checked at start-up like every other setting.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.ts';

describe('CRM_SYNC_SHUTDOWN_GRACE', () => {
  it('defaults to 10 seconds', () => {
    expect(loadConfig({}, false).shutdownGraceMs).toBe(10_000);
  });

  it('reads milliseconds, seconds and minutes', () => {
    expect(loadConfig({ CRM_SYNC_SHUTDOWN_GRACE: '500ms' }, false).shutdownGraceMs).toBe(500);
    expect(loadConfig({ CRM_SYNC_SHUTDOWN_GRACE: '30s' }, false).shutdownGraceMs).toBe(30_000);
    expect(loadConfig({ CRM_SYNC_SHUTDOWN_GRACE: '2m' }, false).shutdownGraceMs).toBe(120_000);
  });

  it('refuses anything else, naming the variable and what it expects', () => {
    for (const value of ['30', 'ten seconds', '1h', '-5s']) {
      expect(() => loadConfig({ CRM_SYNC_SHUTDOWN_GRACE: value }, false)).toThrow(ConfigError);
      expect(() => loadConfig({ CRM_SYNC_SHUTDOWN_GRACE: value }, false)).toThrow(`CRM_SYNC_SHUTDOWN_GRACE: expected a duration such as 10s, 30s or 2m; got ${JSON.stringify(value)}`);
    }
  });
});
