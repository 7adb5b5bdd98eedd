// How the Dynamics connector paces its $batches (issue #22 item 7): sizes start at Microsoft's 10 and grow
// by four while the measured time per operation keeps a batch under its target; a batch without an answer
// makes the next smaller; deadlines follow size and pace; the execution-time ledger holds a batch back
// while the last 300 s of server time plus it would pass 90% of Dataverse's 1,200,000 ms.
import { describe, expect, it } from 'vitest';
import { createBatchSizer } from '../../crm/dynamics/batch-size.ts';
import { createExecutionBudget } from '../../crm/dynamics/execution-budget.ts';

describe('batch sizes', () => {
  it('start at 10 and grow fourfold per full batch answered, up to 1,000, at a fast pace', () => {
    const sizer = createBatchSizer();
    const sizes: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const size = sizer.next();
      sizes.push(size);
      sizer.answered(size, size * 28); // 28 ms an operation
    }
    expect(sizes).toEqual([10, 40, 160, 640, 1000, 1000]);
  });

  it('stop growing where a batch would pass the target at the measured pace', () => {
    const sizer = createBatchSizer(); // 40 s target
    for (let i = 0; i < 8; i += 1) sizer.answered(sizer.next(), sizer.next() * 200); // 200 ms an operation
    expect(sizer.next()).toBe(200); // 200 x 200 ms = 40 s
    expect(sizer.perOperationMs()).toBeCloseTo(200);
  });

  it('at 20 ms an operation and a 400 ms target: 10 first, then 20; at a measured 50 ms (a busy machine), 8', () => {
    // The sizes the integration test (dynamics-batch-deadlines) sees, from given measures instead of real time.
    const sizer = createBatchSizer({ targetMs: 400 });
    const sizes: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      sizes.push(sizer.next());
      sizer.answered(sizer.next(), sizer.next() * 20);
    }
    expect(sizes).toEqual([10, 20, 20, 20]);
    const slower = createBatchSizer({ targetMs: 400 });
    slower.answered(10, 10 * 50);
    expect(slower.next()).toBe(8); // 8 x 50 ms = 400 ms
  });

  it('a remainder smaller than the size does not grow it; a batch without an answer quarters it', () => {
    const sizer = createBatchSizer();
    sizer.answered(3, 90);
    expect(sizer.next()).toBe(10);
    sizer.answered(10, 300);
    expect(sizer.next()).toBe(40);
    sizer.unanswered(40, 2000);
    expect(sizer.next()).toBe(10);
    expect(sizer.perOperationMs()).toBe(50); // at least what the unanswered batch took per operation
  });

  it('gives a batch a deadline of its base plus three times its expected server time', () => {
    const sizer = createBatchSizer();
    expect(sizer.deadlineMs(10, 120_000)).toBe(120_000 + 3 * 10 * 100); // 100 ms assumed before any measure
    sizer.answered(10, 300);
    expect(sizer.deadlineMs(1000, 1_000)).toBe(1_000 + 3 * 1000 * 30);
  });
});

describe('execution-time budget', () => {
  it('lets batches through while the window has room, then waits for the oldest answer to leave it', async () => {
    let clock = 0;
    const waits: number[] = [];
    const budget = createExecutionBudget({ limitMs: 1000, now: () => clock, wait: async (ms) => { waits.push(ms); clock += ms; } });
    const first = await budget.reserve(400);
    expect(first.waitedMs).toBe(0);
    first.settle(500); // took longer than expected: counted as it took
    const second = await budget.reserve(300);
    expect(second.waitedMs).toBe(0);
    clock = 1_000;
    second.settle(300);
    // 500 + 300 in the window; 200 more would pass 900 (90% of 1,000): it waits for the first answer to leave.
    const third = await budget.reserve(200);
    expect(third.waitedMs).toBeGreaterThanOrEqual(299_000);
    expect(clock).toBeGreaterThanOrEqual(300_000);
    expect(waits.length).toBeGreaterThan(0);
  });

  it('never holds back a batch alone, however large its estimate', async () => {
    const budget = createExecutionBudget({ limitMs: 1000, now: () => 0, wait: async () => { throw new Error('should not wait'); } });
    expect((await budget.reserve(5_000)).waitedMs).toBe(0);
  });
});

describe('batches at once', () => {
  it("one while the size grows, the connection's concurrency once it reaches what fits; one again after a batch without an answer", () => {
    const sizer = createBatchSizer({ lanes: 8 });
    const lanes: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      lanes.push(sizer.lanes());
      sizer.answered(sizer.next(), sizer.next() * 28);
    }
    expect(lanes).toEqual([1, 1, 1, 1, 8]); // 10, 40, 160, 640 alone; 1,000 is as large as it gets
    expect(sizer.next()).toBe(1000);
    expect(sizer.lanes()).toBe(8);
    sizer.unanswered(1000, 5_000);
    expect(sizer.lanes()).toBe(1);
  });
});
