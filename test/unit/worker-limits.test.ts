// The bounds of one worker process and its PostgreSQL pool come from the environment, are checked at
// start-up, and reach Worker.create as its maxConcurrent*TaskExecutions options.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.ts';
import { workerConcurrencyOptions } from '../../worker.ts';

describe('worker and pool limits', () => {
  it('default to 8 activities, 16 workflow tasks and 10 PostgreSQL connections', () => {
    const config = loadConfig({}, false);
    expect(config.worker).toEqual({ maxConcurrentActivities: 8, maxConcurrentWorkflowTasks: 16 });
    expect(config.database.poolMax).toBe(10);
    expect(workerConcurrencyOptions(config.worker)).toEqual({ maxConcurrentActivityTaskExecutions: 8, maxConcurrentWorkflowTaskExecutions: 16 });
    expect(workerConcurrencyOptions()).toEqual({ maxConcurrentActivityTaskExecutions: 8, maxConcurrentWorkflowTaskExecutions: 16 });
  });

  it('are read from CRM_SYNC_MAX_CONCURRENT_ACTIVITIES, CRM_SYNC_MAX_CONCURRENT_WORKFLOW_TASKS and CRM_SYNC_DB_POOL_MAX', () => {
    const config = loadConfig({ CRM_SYNC_MAX_CONCURRENT_ACTIVITIES: '3', CRM_SYNC_MAX_CONCURRENT_WORKFLOW_TASKS: '4', CRM_SYNC_DB_POOL_MAX: '5' }, false);
    expect(workerConcurrencyOptions(config.worker)).toEqual({ maxConcurrentActivityTaskExecutions: 3, maxConcurrentWorkflowTaskExecutions: 4 });
    expect(config.database.poolMax).toBe(5);
    expect(workerConcurrencyOptions({ maxConcurrentActivities: 1 })).toEqual({ maxConcurrentActivityTaskExecutions: 1, maxConcurrentWorkflowTaskExecutions: 16 });
  });

  it('size the PostgreSQL pool for the activity slots when CRM_SYNC_DB_POOL_MAX is not set (each slot may hold a connection for its page)', () => {
    expect(loadConfig({ CRM_SYNC_MAX_CONCURRENT_ACTIVITIES: '24' }, false).database.poolMax).toBe(26);
    expect(loadConfig({ CRM_SYNC_MAX_CONCURRENT_ACTIVITIES: '3' }, false).database.poolMax).toBe(10);
    expect(loadConfig({ CRM_SYNC_MAX_CONCURRENT_ACTIVITIES: '24', CRM_SYNC_DB_POOL_MAX: '12' }, false).database.poolMax).toBe(12);
  });

  it.each([
    ['CRM_SYNC_MAX_CONCURRENT_ACTIVITIES', '0', 'a whole number from 1 to 1000'],
    ['CRM_SYNC_MAX_CONCURRENT_ACTIVITIES', 'eight', 'a whole number from 1 to 1000'],
    ['CRM_SYNC_MAX_CONCURRENT_ACTIVITIES', '2.5', 'a whole number from 1 to 1000'],
    ['CRM_SYNC_MAX_CONCURRENT_WORKFLOW_TASKS', '1', 'a whole number from 2 to 1000'],
    ['CRM_SYNC_DB_POOL_MAX', '100000', 'a whole number from 1 to 1000'],
  ])('%s=%s stops start-up naming the variable and what it expects', (variable, value, expected) => {
    expect(() => loadConfig({ [variable]: value }, false)).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value }, false)).toThrow(`${variable}: expected ${expected}; got "${value}"`);
  });
});
