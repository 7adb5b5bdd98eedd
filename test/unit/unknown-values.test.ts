// Unknown picklist values (§9.5): counted by field and value, said once per connection, object, field and value; the metric counts records.
import { describe, expect, it } from 'vitest';
import { countUnknown, sayUnknownOnce } from '../../activities/unknown-values.ts';
import { createSyncMetrics } from '../../metrics/sync-metrics.ts';

describe('unknown picklist values', () => {
  it('counts each value once with the records that carried it, and says it once', () => {
    const counted = countUnknown([
      { sourceId: 'o-1', field: 'StageName', value: 'ON_HOLD' },
      { sourceId: 'o-2', field: 'StageName', value: 'ON_HOLD' },
      { sourceId: 'o-3', field: 'StageName', value: 'PAUSED' },
    ]);
    expect(counted).toEqual([
      { field: 'StageName', value: 'ON_HOLD', records: 2, example: 'o-1' },
      { field: 'StageName', value: 'PAUSED', records: 1, example: 'o-3' },
    ]);
    const lines: string[] = [];
    sayUnknownOnce('conn-unknown-1', 'Opportunity', counted, (line) => lines.push(line));
    sayUnknownOnce('conn-unknown-1', 'Opportunity', counted, (line) => lines.push(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      'the marketplace sent StageName value "ON_HOLD" (Opportunity o-1 and 1 more), which the connection\'s picklist map does not know: Opportunity.StageName keeps its last value and the rest of the record is written; add the value to the map (crm-sync edit <connection> with overrides) to have it mapped',
    );
    // Another connection is told too.
    sayUnknownOnce('conn-unknown-2', 'Opportunity', counted.slice(0, 1), (line) => lines.push(line));
    expect(lines).toHaveLength(3);
  });

  it('the metric counts records by entity, field and value', async () => {
    const metrics = createSyncMetrics({ prefix: 'test_unknown_' });
    metrics.unknownValues({ connectionId: 'c-1', entity: 'offer', values: [{ field: 'StageName', value: 'ON_HOLD', records: 2 }] });
    metrics.unknownValues({ connectionId: 'c-1', entity: 'offer', values: [{ field: 'StageName', value: 'ON_HOLD', records: 1 }] });
    const text = await metrics.registry.metrics();
    expect(text).toContain('test_unknown_unknown_values_total{connection="c-1",entity="offer",field="StageName",value="ON_HOLD"} 3');
    metrics.stop();
  });
});

describe('the unknown-values metric stays small', () => {
  it('past 20 distinct values of one field, the rest count as "other"', async () => {
    const metrics = createSyncMetrics({ prefix: 'test_cap_' });
    const values = Array.from({ length: 25 }, (_, index) => ({ field: 'StageName', value: `WEIRD_${index}`, records: 1 }));
    metrics.unknownValues({ connectionId: 'c-1', entity: 'offer', values });
    const text = await metrics.registry.metrics();
    expect(text.match(/^test_cap_unknown_values_total\{/gm)).toHaveLength(21);
    expect(text).toContain('test_cap_unknown_values_total{connection="c-1",entity="offer",field="StageName",value="other"} 5');
    metrics.stop();
  });
});
