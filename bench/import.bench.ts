/**
 * User import from .xlsx (POST /api/v1/manage/user/batch-task/create, then polling
 * /api/v1/manage/user/batch-task until the task is done). Goal: 10 000 rows in under 20 s on
 * PostgreSQL, from the start of the upload to the task's success.
 *
 * Phases: (1) BENCH_IMPORT_ROWS users without passwords (they get in through a sign-in link):
 * the goal; (2) the same file again: every row is refused (usernames taken), nothing stored;
 * (3) BENCH_IMPORT_PASSWORD_ROWS users with a password each: argon2id hashing is the cost,
 * bounded to one hash per core; (4) BENCH_IMPORT_HOSTILE uploads at once of a 0.3 MiB workbook
 * whose sheet inflates to 300 MiB while the zip states 2 000 bytes: how long until every task has
 * failed, how fast company/detail answers meanwhile (probed every 200 ms), the server's peak RSS.
 *
 *   bash scripts/with-postgres.sh bash -c \
 *     'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/import.bench.ts'
 *   node --conditions=source --import tsx bench/import.bench.ts          # PGlite (the goal is for PostgreSQL)
 */
import ExcelJS from 'exceljs';
import { hostileWorkbooks } from '../packages/server/src/test/workbooks.ts';
import {
  adminWithCompany,
  licenseUsers,
  runOn,
  startLicensableServer,
  type Tenant,
  tenantCall,
} from './lib/org.ts';
import { cpuMeter, describeCpu, saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { type BenchServer, envInt, fmt, memoryOf, sleep } from './lib/server.ts';

const ROWS = envInt('BENCH_IMPORT_ROWS', 10_000);
const HOSTILE = envInt('BENCH_IMPORT_HOSTILE', 3);
const PASSWORD_ROWS = envInt('BENCH_IMPORT_PASSWORD_ROWS', 400);
const GOAL_SECONDS = 20;
const TASK_LIMIT_MS = 600_000;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Each file's phones in their own block, so that only the repeated file collides. */
const phoneBlock: Record<string, string> = { 'imp-': '1', 'pwd-': '2', 'warm-': '3' };

async function workbook(rows: number, prefix: string, withPasswords: boolean): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Users');
  sheet.addRow(['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password']);
  for (let i = 0; i < rows; i++) {
    const n = String(i).padStart(6, '0');
    sheet.addRow([
      `${prefix}${n}`,
      `Person ${n}`,
      `P${n}`,
      `${prefix}${n}@example.com`,
      `+86139${phoneBlock[prefix] ?? '9'}${n.padStart(7, '0')}`,
      '',
      withPasswords ? `Harbour-${n}-Light` : '',
    ]);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

interface Task {
  status: 'importing' | 'success' | 'failed';
  total: number;
  created: number;
  errors: { row: number; field: string | null; message: string }[];
}

/** Uploads the file and waits for its task; times the upload's answer and the whole import. */
async function runImport(server: BenchServer, tenant: Tenant, bytes: Buffer, filename: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: XLSX }), filename);
  const meter = cpuMeter(server.pid);
  const started = performance.now();
  const response = await fetch(`${server.base}/api/v1/manage/user/batch-task/create`, {
    method: 'POST',
    headers: { access_token: tenant.token, company_id: tenant.companyId },
    body: form,
  });
  const answer = (await response.json()) as { code: number; msg: string; data: { taskId: string } };
  const acceptedMs = performance.now() - started;
  if (answer.code !== 200) throw new Error(`batch-task/create: ${answer.code} ${answer.msg}`);
  let task: Task;
  for (;;) {
    task = await tenantCall<Task>(server, tenant, '/api/v1/manage/user/batch-task', {
      taskId: answer.data.taskId,
    });
    if (task.status !== 'importing') break;
    if (performance.now() - started > TASK_LIMIT_MS) throw new Error('the import did not finish in time');
    await sleep(100);
  }
  const totalMs = performance.now() - started;
  return { acceptedMs, totalMs, task, cpu: meter.stop() };
}

/** Sends `count` hostile uploads at once and probes company/detail until every one has ended. */
async function hostileUploads(server: BenchServer, tenant: Tenant, count: number) {
  const bomb = await hostileWorkbooks.lyingSizes();
  const rssBefore = memoryOf(server.pid).rssMiB;
  const started = performance.now();
  let open = count;
  const outcomes: string[] = [];
  const one = async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bomb)], { type: XLSX }), 'bomb.xlsx');
    const response = await fetch(`${server.base}/api/v1/manage/user/batch-task/create`, {
      method: 'POST',
      headers: { access_token: tenant.token, company_id: tenant.companyId },
      body: form,
    });
    const answer = (await response.json()) as { code: number; msg: string; data: { taskId: string } };
    let outcome = `upload ${answer.code}: ${answer.msg}`;
    while (answer.code === 200 && performance.now() - started < TASK_LIMIT_MS) {
      const task = await tenantCall<Task>(server, tenant, '/api/v1/manage/user/batch-task', {
        taskId: answer.data.taskId,
      });
      outcome = `task ${task.status}: ${task.errors[0]?.message ?? ''}`;
      if (task.status !== 'importing') break;
      await sleep(200);
    }
    outcomes.push(outcome);
    open--;
  };
  const uploads = Promise.all(Array.from({ length: count }, one));
  const probes: number[] = [];
  let peakRss = rssBefore;
  while (open > 0) {
    const at = performance.now();
    await tenantCall(server, tenant, '/api/v1/manage/company/detail', {});
    probes.push(performance.now() - at);
    peakRss = Math.max(peakRss, memoryOf(server.pid).rssMiB);
    await sleep(200);
  }
  await uploads;
  const sorted = [...probes].sort((a, b) => a - b);
  return {
    bombBytes: bomb.length,
    endedMs: performance.now() - started,
    outcomes,
    probes: probes.length,
    p50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
    maxMs: sorted.at(-1) ?? 0,
    rssBeforeMiB: rssBefore,
    peakRssMiB: peakRss,
  };
}

async function main() {
  const server = await startLicensableServer();
  console.log(`import benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server);
    await licenseUsers(server, tenant, ROWS + PASSWORD_ROWS + 1_000);
    const file = await workbook(ROWS, 'imp-', false);
    const passwordFile = await workbook(PASSWORD_ROWS, 'pwd-', true);
    // Warm-up: a small import (JIT, connection pool, exceljs loaded).
    await runImport(server, tenant, await workbook(20, 'warm-', false), 'warm.xlsx');

    await waitForQuiet(30_000);
    const plain = await runImport(server, tenant, file, 'people.xlsx');
    if (plain.task.status !== 'success' || plain.task.created !== ROWS)
      throw new Error(`import failed: ${JSON.stringify(plain.task.errors.slice(0, 3))}`);
    console.log(
      `${ROWS} rows (${fmt(file.length / 1024, 0)} KiB), no passwords: accepted in ${fmt(plain.acceptedMs, 0)} ms, ` +
        `stored in ${fmt(plain.totalMs / 1000, 2)} s (${fmt(ROWS / (plain.totalMs / 1000), 0)} rows/s) ` +
        `goal < ${GOAL_SECONDS} s: ${verdict(plain.totalMs / 1000 < GOAL_SECONDS)}`,
    );
    console.log(`  ${describeCpu(plain.cpu)}`);

    await waitForQuiet(30_000);
    const refused = await runImport(server, tenant, file, 'people-again.xlsx');
    if (refused.task.status !== 'failed') throw new Error('the repeated import was not refused');
    console.log(
      `same ${ROWS} rows again (all taken): refused in ${fmt(refused.totalMs / 1000, 2)} s, ` +
        `${refused.task.errors.length} problems listed`,
    );

    await waitForQuiet(30_000);
    const hashed = await runImport(server, tenant, passwordFile, 'with-passwords.xlsx');
    if (hashed.task.status !== 'success')
      throw new Error(`password import failed: ${JSON.stringify(hashed.task.errors.slice(0, 3))}`);
    const perRowMs = hashed.totalMs / PASSWORD_ROWS;
    console.log(
      `${PASSWORD_ROWS} rows with passwords: ${fmt(hashed.totalMs / 1000, 2)} s (${fmt(perRowMs, 1)} ms a row; ` +
        `${ROWS} rows would take ~${fmt((perRowMs * ROWS) / 1000, 0)} s)`,
    );
    console.log(`  ${describeCpu(hashed.cpu)}`);

    let hostile: Awaited<ReturnType<typeof hostileUploads>> | undefined;
    if (HOSTILE > 0) {
      await waitForQuiet(30_000);
      hostile = await hostileUploads(server, tenant, HOSTILE);
      console.log(
        `${HOSTILE} hostile uploads at once (${fmt(hostile.bombBytes / 1024, 0)} KiB, inflating to 300 MiB): ` +
          `all ended in ${fmt(hostile.endedMs / 1000, 2)} s; company/detail p50 ${fmt(hostile.p50Ms, 0)} ms, ` +
          `max ${fmt(hostile.maxMs, 0)} ms over ${hostile.probes} probes; server RSS ${fmt(hostile.rssBeforeMiB, 0)} → ` +
          `peak ${fmt(hostile.peakRssMiB, 0)} MiB`,
      );
      for (const outcome of new Set(hostile.outcomes)) console.log(`  ${outcome}`);
    }

    const file_ = await saveResult('import', server.storage, {
      rows: ROWS,
      fileBytes: file.length,
      plain: { acceptedMs: plain.acceptedMs, totalMs: plain.totalMs, cpu: plain.cpu },
      refused: { totalMs: refused.totalMs, listed: refused.task.errors.length },
      passwords: { rows: PASSWORD_ROWS, totalMs: hashed.totalMs, perRowMs, cpu: hashed.cpu },
      hostile,
      goalMet: plain.totalMs / 1000 < GOAL_SECONDS,
    });
    console.log(`saved ${file_}`);
  });
}

await main();
