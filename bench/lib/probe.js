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

/**
 * BENCH_DB_PROBE_FILE (bench/soak.bench.ts on the embedded database): the benchmark cannot reach
 * PGlite from outside the server, so the probe remembers the server's PGlite (the first instance
 * that runs a statement) and answers read-only questions through it: the benchmark writes
 * `{ id, sql }` to `<file>.ask`, the probe runs it within the second and writes `{ id, rows }` or
 * `{ id, error }` to the file. PGlite runs one statement at a time; a question may run inside a
 * transaction of the server, which a read-only count does not disturb.
 */
const dbProbeFile = process.env.BENCH_DB_PROBE_FILE;
if (dbProbeFile) {
  const { existsSync, readFileSync, unlinkSync } = await import('node:fs');
  const { PGlite } = await import('@electric-sql/pglite');
  let database;
  for (const name of ['query', 'exec', 'execProtocol', 'runExclusive']) {
    let owner = PGlite.prototype;
    while (owner && !Object.hasOwn(owner, name)) owner = Object.getPrototypeOf(owner);
    if (!owner) continue;
    const original = owner[name];
    owner[name] = function (...args) {
      database ??= this;
      return original.apply(this, args);
    };
  }
  const ask = `${dbProbeFile}.ask`;
  let busy = false;
  setInterval(async () => {
    if (busy || !database || !existsSync(ask)) return;
    busy = true;
    let question;
    try {
      question = JSON.parse(readFileSync(ask, 'utf8'));
      unlinkSync(ask);
      const result = await database.query(question.sql);
      writeFileSync(dbProbeFile, JSON.stringify({ id: question.id, rows: result.rows }));
    } catch (error) {
      writeFileSync(dbProbeFile, JSON.stringify({ id: question?.id, error: String(error) }));
    } finally {
      busy = false;
    }
  }, 250).unref();
}
