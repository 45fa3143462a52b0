/** The heap a command used, MiB (what `pollite simulate --json` reports as `memory`). */
export interface HeapReport {
  /** The largest `heapUsed` sampled while the command ran. */
  peakHeapMiB: number;
  /** `heapUsed` at the end. */
  heapMiB: number;
}

const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;

/**
 * Samples `process.memoryUsage().heapUsed` every `everyMs` ms of wall time
 * while a simulation runs (it yields to the event loop at every virtual
 * instant, so the timer fires; about 20 us a sample), and once more at
 * `stop`. A sample, not a trace: a spike shorter than `everyMs` between two
 * garbage collections can be missed, and work that never yields (the AWS
 * study) is sampled at its start and end only.
 */
export function sampleHeap(everyMs = 50): { stop(): HeapReport } {
  let peak = process.memoryUsage().heapUsed;
  const sample = (): number => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
    return used;
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const used = sample();
      return { peakHeapMiB: mib(peak), heapMiB: mib(used) };
    },
  };
}
