import { describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_LIMITS, QueryBudget, type BudgetLimits } from '../../../src/graph/budget/index.ts';
import { SETTINGS } from '../../../src/config/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

const limits: BudgetLimits = { maxRows: 1000, maxResultBytes: 4096, timeoutMs: 100, maxStallMs: 60 };

describe('QueryBudget', () => {
  it.each<[string, (b: QueryBudget) => void, string, number, string]>([
    ['rows', (b) => b.addRows(1001), 'maxRows', 1000, 'TOOLGRAPH_QUERY_MAX_ROWS'],
    ['rows one at a time', (b) => { for (let i = 0; i < 1001; i++) b.addRows(); }, 'maxRows', 1000, 'TOOLGRAPH_QUERY_MAX_ROWS'],
    ['result bytes', (b) => b.checkBytes(4097), 'maxResultBytes', 4096, 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES'],
    ['charged bytes, summed before allocation', (b) => { b.chargeBytes(4000); b.chargeBytes(97); }, 'maxResultBytes', 4096, 'TOOLGRAPH_QUERY_MAX_RESULT_BYTES'],
  ])('refuses over the %s cap, naming the limit, its value and its setting', (_name, work, limit, max, setting) => {
    const error = failure(() => work(new QueryBudget(limits)));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ limit, max, setting });
    expect(error.message).toContain(String(max));
    expect(error.message).toContain(setting);
  });

  it('allows exactly the caps', () => {
    const b = new QueryBudget(limits);
    b.addRows(1000);
    b.checkBytes(4096);
    b.chargeBytes(4096);
    expect(b.rows).toBe(1000);
    expect(b.bytes).toBe(4096);
  });

  it('reads the clock every 256 units of work: over the time budget it refuses, at the end of a slice it asks for a pause', () => {
    let now = 0;
    const b = new QueryBudget(limits, { now: () => now, sliceMs: 10 });
    now = 50;
    b.tick(255);
    expect(b.yieldDue).toBe(false); // not read yet
    b.tick(1);
    expect(b.yieldDue).toBe(true);
    now = 101;
    const error = failure(() => b.tick(256));
    expect(error.details).toEqual({ limit: 'timeoutMs', max: 100, setting: 'TOOLGRAPH_QUERY_TIMEOUT_MS' });
  });

  it('refuses work that runs past the stall budget without a pause, and a pause starts the count again', async () => {
    let now = 0;
    const b = new QueryBudget({ ...limits, timeoutMs: 1000 }, { now: () => now, sliceMs: 10 });
    now = 55;
    b.tick(256);
    expect(b.yieldDue).toBe(true);
    await b.pause();
    now = 115;
    b.tick(256);
    now = 116;
    const error = failure(() => b.tick(256));
    expect(error.code).toBe('TG_QUERY_BUDGET_EXCEEDED');
    expect(error.details).toEqual({ limit: 'maxStallMs', max: 60, setting: 'TOOLGRAPH_QUERY_MAX_STALL_MS' });
    expect(error.message).toContain('without a pause');
  });

  it('pause() lets the event loop run, then starts a new slice', async () => {
    let now = 0;
    const b = new QueryBudget(limits, { now: () => now, sliceMs: 10 });
    now = 20;
    b.checkTime();
    expect(b.yieldDue).toBe(true);
    let ranMeanwhile = false;
    setImmediate(() => { ranMeanwhile = true; });
    await b.pause();
    expect(ranMeanwhile).toBe(true);
    expect(b.yieldDue).toBe(false);
    expect(b.pauses).toBe(1);
    now = 29;
    b.checkTime();
    expect(b.yieldDue).toBe(false);
  });

  it('a pause past the time budget refuses', async () => {
    let now = 0;
    const b = new QueryBudget(limits, { now: () => now });
    now = 500;
    await expect(b.pause()).rejects.toMatchObject({ code: 'TG_QUERY_BUDGET_EXCEEDED', details: { limit: 'timeoutMs' } });
  });

  it('inside withoutPauses, yieldDue reads false', () => {
    let now = 0;
    const b = new QueryBudget(limits, { now: () => now });
    now = 20;
    b.checkTime();
    expect(b.withoutPauses(() => b.yieldDue)).toBe(false);
    expect(b.yieldDue).toBe(true);
  });

  it('defaults to the settings\' documented defaults', () => {
    expect(DEFAULT_BUDGET_LIMITS).toEqual({
      maxRows: SETTINGS.queryMaxRows.default,
      maxResultBytes: SETTINGS.queryMaxResultBytes.default,
      timeoutMs: SETTINGS.queryTimeoutMs.default,
      maxStallMs: SETTINGS.queryMaxStallMs.default,
    });
  });
});
