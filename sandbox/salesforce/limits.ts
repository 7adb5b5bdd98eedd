// The org's daily API request allowance. Every authenticated REST and Bulk API call uses one; once
// none is left the API answers 403 REQUEST_LIMIT_EXCEEDED. Each response reports the usage in
// `Sforce-Limit-Info: api-usage=used/max`. The count starts again each UTC day.

export function createApiUsage(options: { dailyApiLimit: number; now: () => Date }) {
  let limit = options.dailyApiLimit;
  let used = 0;
  let day = '';
  const rollOver = () => {
    const today = options.now().toISOString().slice(0, 10);
    if (today !== day) {
      day = today;
      used = 0;
    }
  };

  return {
    /** Takes one request from the allowance; false when none is left. */
    consume(): boolean {
      rollOver();
      if (used >= limit) return false;
      used += 1;
      return true;
    },
    header(): string {
      rollOver();
      return `api-usage=${used}/${limit}`;
    },
    set(values: { dailyApiLimit?: number; used?: number }) {
      rollOver();
      if (values.dailyApiLimit !== undefined) limit = values.dailyApiLimit;
      if (values.used !== undefined) used = values.used;
    },
    reset() {
      limit = options.dailyApiLimit;
      used = 0;
    },
    snapshot() {
      rollOver();
      return { used, limit, remaining: Math.max(0, limit - used) };
    },
    /** GET /limits: the org limits resource (daily API requests first; the others are fixed). */
    limitsBody() {
      rollOver();
      const fixed = (max: number) => ({ Max: max, Remaining: max });
      return {
        DailyApiRequests: { Max: limit, Remaining: Math.max(0, limit - used) },
        DailyBulkApiBatches: fixed(15000),
        DailyBulkV2QueryFileStorageMB: fixed(976562),
        DailyBulkV2QueryJobs: fixed(10000),
        DataStorageMB: fixed(5),
        FileStorageMB: fixed(20),
        HourlyODataCallout: fixed(20000),
        SingleEmail: fixed(15),
      };
    },
  };
}

export type ApiUsage = ReturnType<typeof createApiUsage>;
