// Peak memory of the current process, for the benchmarks' child processes and their driver.
// The RSS peak is the kernel's own high-water mark (VmHWM in /proc/self/status; maxRSS of getrusage
// elsewhere), not a sample. On Linux it can be reset to the current RSS (clear_refs 5), so a phase —
// one sync — is measured apart from start-up (the worker's workflow bundle, the sandbox's generated
// data). heapUsed has no kernel peak: it is sampled, on the main thread only (workflow threads have
// their own isolates, which the RSS includes).
import { readFileSync, writeFileSync } from 'node:fs';

export type MemoryReport = {
  /** Peak RSS over the whole life of the process so far (MB). */
  maxRssMB: number;
  /** Peak RSS since mark() (MB); equal to maxRssMB when the kernel cannot reset its high-water mark. */
  phasePeakRssMB: number;
  /** Peak heapUsed of the main thread since mark(), sampled (MB). */
  phasePeakHeapUsedMB: number;
  /** RSS and heapUsed when mark() was called (MB). */
  rssAtMarkMB: number;
  heapUsedAtMarkMB: number;
};

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** The kernel's high-water mark of this process's RSS, in bytes (VmHWM, else getrusage maxRSS). */
function highWaterMark(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // Not Linux: getrusage below.
  }
  return process.resourceUsage().maxRSS * 1024;
}

function resetHighWaterMark(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

export function createMemoryTracker(sampleEveryMs = 10) {
  let peakHeapUsed = 0;
  let phaseReset = false;
  // The high-water mark before the reset: resetting it may reset getrusage's maxRSS too.
  let peakBeforeMark = 0;
  let atMark = process.memoryUsage();
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    peakHeapUsed = Math.max(peakHeapUsed, process.memoryUsage().heapUsed);
  };
  return {
    /** Starts the measured phase: the RSS high-water mark is reset (where possible), heapUsed sampled. */
    mark(): void {
      atMark = process.memoryUsage();
      peakHeapUsed = atMark.heapUsed;
      peakBeforeMark = Math.max(peakBeforeMark, highWaterMark(), process.resourceUsage().maxRSS * 1024);
      phaseReset = resetHighWaterMark();
      clearInterval(sampler);
      sampler = setInterval(sample, sampleEveryMs);
      sampler.unref();
    },
    report(): MemoryReport {
      sample();
      clearInterval(sampler);
      const sinceMark = highWaterMark();
      const lifetime = Math.max(peakBeforeMark, sinceMark, process.resourceUsage().maxRSS * 1024);
      return {
        maxRssMB: mb(lifetime),
        phasePeakRssMB: mb(phaseReset ? sinceMark : lifetime),
        phasePeakHeapUsedMB: mb(peakHeapUsed),
        rssAtMarkMB: mb(atMark.rss),
        heapUsedAtMarkMB: mb(atMark.heapUsed),
      };
    },
  };
}
