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

/**
 * BENCH_PROFILE=phases (bench/lib/server.ts): SIGUSR2 starts a V8 CPU profile of the main thread,
 * the next one writes it to BENCH_PROFILE_DIR, so that a profile holds only a benchmark's timed
 * phases (read it with bench/profile.ts). The phases' profiles are merged into one file per run.
 */
const profileDir = process.env.BENCH_PROFILE_DIR;
if (profileDir) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  let running = false;
  let phase = 0;
  process.on('SIGUSR2', async () => {
    running = !running;
    if (running) {
      await session.post('Profiler.start');
      return;
    }
    const { profile } = await session.post('Profiler.stop');
    phase += 1;
    writeFileSync(`${profileDir}/phase-${process.pid}-${phase}.cpuprofile`, JSON.stringify(profile));
  });
}
