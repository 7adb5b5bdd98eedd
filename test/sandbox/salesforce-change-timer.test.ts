// The Salesforce change driver's timer on a fake clock: fractional rates carry over, rate 0 removes
// the timer, and a tick that throws stops it and keeps the reason instead of failing on every tick.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createChangeTimer } from '../../sandbox/salesforce/change-timer.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it('applies the rate with fractions carried over, and only while the rate is above 0', () => {
  let applied = 0;
  const timer = createChangeTimer((count) => (applied += count), 0);
  expect(timer.status()).toEqual({ changesPerSecond: 0, running: false, lastError: null });
  expect(vi.getTimerCount()).toBe(0);

  timer.setRate(0.5); // one change every two seconds
  vi.advanceTimersByTime(10_000);
  expect(applied).toBe(5);

  expect(timer.setRate(30)).toEqual({ changesPerSecond: 30, running: true, lastError: null });
  vi.advanceTimersByTime(1_000);
  expect(applied).toBe(35);

  expect(timer.setRate(0)).toEqual({ changesPerSecond: 0, running: false, lastError: null });
  expect(vi.getTimerCount()).toBe(0);
  vi.advanceTimersByTime(10_000);
  expect(applied).toBe(35);
  timer.stop();
});

it('starts at the configured rate', () => {
  let applied = 0;
  const timer = createChangeTimer((count) => (applied += count), 4);
  expect(timer.status().running).toBe(true);
  vi.advanceTimersByTime(2_000);
  expect(applied).toBe(8);
  timer.stop();
  expect(timer.status().running).toBe(false);
});

it('stops on a tick that throws and says why; a new rate starts it again', () => {
  let calls = 0;
  let failing = true;
  const timer = createChangeTimer(() => {
    calls += 1;
    if (failing) throw new Error('journal /nowhere/salesforce.jsonl cannot be written');
  }, 10);
  vi.advanceTimersByTime(1_000);
  expect(calls).toBe(1);
  expect(timer.status()).toEqual({ changesPerSecond: 0, running: false, lastError: 'journal /nowhere/salesforce.jsonl cannot be written' });

  failing = false;
  expect(timer.setRate(10)).toEqual({ changesPerSecond: 10, running: true, lastError: null });
  vi.advanceTimersByTime(1_000);
  expect(calls).toBe(11);
  timer.stop();
});
