/**
 * Loaded into the server process by the memory benchmark (`--expose-gc --import
 * bench/lib/probe.js`): on SIGUSR2 it writes process.memoryUsage() to BENCH_PROBE_FILE, plus the
 * heap in use after a full garbage collection. Instrumentation only, in plain JavaScript so that
 * the compiled server needs no TypeScript loader for it.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const usage = process.memoryUsage();
    const gc = globalThis.gc;
    gc?.();
    const heapUsedAfterGc = gc ? process.memoryUsage().heapUsed : Number.NaN;
    writeFileSync(file, JSON.stringify({ at: Date.now(), ...usage, heapUsedAfterGc }));
  });
}
