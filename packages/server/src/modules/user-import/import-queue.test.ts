import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { absolute, CookieJar, request } from '../../test/browser-flow.ts';
import {
  MAIL_NEVER_SENT,
  openTestDatabase,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import {
  countAllAccounts,
  holdImportTurn,
  type ImportTaskView,
  startImport,
  waitForTask,
  workbookOf,
} from '../../test/import-kit.ts';
import { hostileWorkbooks } from '../../test/workbooks.ts';
import * as jobsRepo from '../jobs/jobs.repo.ts';
import { IMPORT_JOB, importJobKey } from './import.service.ts';
import { sheetLimits } from './sheet-reader.ts';

/**
 * Issue 12 (availability): a small .xlsx that inflated to hundreds of MiB stalled the whole
 * server. Workbooks are now read in a worker with limits, and imports wait in a queue.
 */

let ctx: TestContext;
type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;
let owners: Owner[];

beforeAll(async () => {
  ctx = await startTestApp({ listen: true, mail: MAIL_NEVER_SENT });
  owners = [];
  for (const name of ['alpha', 'bravo', 'charlie']) owners.push(await ownerWithCompany(ctx, `queue-${name}`));
});
afterAll(() => ctx.close());

const countAccounts = () => countAllAccounts(ctx);

async function upload(bytes: Buffer, as: Owner) {
  const started = await startImport(ctx, as, { bytes });
  expect(started.code, started.msg).toBe(200);
  return started.data.taskId as string;
}

const taskView = async (taskId: string, as: Owner, lang = 'en') => {
  const answer = await ctx.tessera.app.inject({
    method: 'POST',
    url: '/api/v1/manage/user/batch-task',
    headers: { access_token: as.token, company_id: as.companyId, 'accept-language': lang },
    payload: { taskId },
  });
  return (answer.json() as { data: ImportTaskView }).data;
};

const workbook = (usernames: string[]) => workbookOf(usernames.map((username) => [username]));

describe('hostile workbooks', () => {
  it.each([
    [
      'a zip that states false sizes',
      hostileWorkbooks.lyingSizes,
      'The file is damaged: its contents do not match the sizes and checksums written in it; save it again as .xlsx',
      '文件已损坏：内容与其中记录的大小和校验值不符，请重新另存为 .xlsx',
    ],
    [
      'a few MiB that inflate to hundreds of MiB',
      hostileWorkbooks.hundredsOfMiB,
      'The workbook unpacks to more than 128 MiB; delete other sheets, images and unused cells, or split it into smaller files',
      '工作簿解压后超过 128 MiB，请删除其他工作表、图片和无用的单元格，或拆分为多个较小的文件',
    ],
    [
      'rows by the hundred thousand',
      () => hostileWorkbooks.blankRows(1_000_000),
      'The first sheet has more than 100000 rows, blank ones included; delete the rows below the data',
      '第一个工作表超过 100000 行（含空行），请删除数据下方的行',
    ],
    [
      'a row of 16 000 empty cells',
      () => hostileWorkbooks.wideRow(16_000),
      'The row has more than 1000 cells; delete the unused columns',
      '该行超过 1000 个单元格，请删除无用的列',
    ],
    [
      'millions of cells',
      () => hostileWorkbooks.manyCells(3_000_000),
      'The first sheet has more than 2000000 cells; delete unused rows and columns',
      '第一个工作表超过 2000000 个单元格，请删除无用的行和列',
    ],
    [
      'a shared string used by every cell',
      () => hostileWorkbooks.sharedStringLaughs(sheetLimits.cellLength),
      'The workbook holds more than 16 million characters of text; split it into smaller files',
      '工作簿中的文字超过 16 百万个字符，请拆分为多个较小的文件',
    ],
    [
      'entity expansion',
      hostileWorkbooks.entityLaughs,
      'The file could not be read as an Excel workbook (.xlsx); save it again as .xlsx',
      '无法作为 Excel 工作簿（.xlsx）读取该文件，请重新另存为 .xlsx',
    ],
  ])(
    '%s: the task fails with the reason, in English and Chinese; nothing is stored',
    async (_, file, en, zh) => {
      const before = await countAccounts();
      const [owner] = owners as [Owner];
      const taskId = await upload(await file(), owner);
      const task = await waitForTask(ctx, owner, taskId);
      expect(task).toMatchObject({ status: 'failed', created: 0, total: 0, queuePosition: null });
      expect(task.errors).toEqual([{ row: en.startsWith('The row') ? 2 : 0, field: null, message: en }]);
      expect((await taskView(taskId, owner, 'zh')).errors[0]?.message).toBe(zh);
      expect(await countAccounts()).toBe(before);
      expect(await ctx.database.db.selectFrom('import_task_files').select('task_id').execute()).toEqual([]);
    },
  );

  it('a cell past the length limit is named by its row and column', async () => {
    const [owner] = owners as [Owner];
    const taskId = await upload(await hostileWorkbooks.longCell(10_000), owner);
    const task = await waitForTask(ctx, owner, taskId);
    expect(task.errors).toEqual([
      { row: 3, field: 'Name', message: 'A cell holds more than 2000 characters' },
    ]);
  });

  it('five at once: other calls keep answering while they are read, two run at a time, one per company', async () => {
    // How fast those answers come, and the server's memory meanwhile, are measured by
    // bench/import.bench.ts (bench/RESULTS.md); here: that they come at all, and right.
    const files = await Promise.all([
      hostileWorkbooks.lyingSizes(),
      hostileWorkbooks.manyCells(3_000_000),
      hostileWorkbooks.sharedStringLaughs(sheetLimits.cellLength),
      hostileWorkbooks.hundredsOfMiB(),
      hostileWorkbooks.manyCells(1_990_000),
    ]);
    const before = await countAccounts();
    const [first] = owners as [Owner];
    /** company/detail, and opening the sign-in page (three redirects deep). */
    const probe = async () => {
      const detail = await fetch(`${ctx.baseUrl}/api/v1/manage/company/detail`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          access_token: first.token,
          company_id: first.companyId,
        },
        body: '{}',
      });
      expect(((await detail.json()) as { code: number }).code).toBe(200);
      const jar = new CookieJar();
      let url = `${ctx.baseUrl}/portal/account`;
      for (let hop = 0; hop < 5; hop++) {
        const response = await request(jar, url);
        const body = await response.text();
        if (response.status === 200) return expect(body).toContain('name="password"');
        url = absolute(url, response.headers.get('location'));
      }
      throw new Error('the sign-in page was not reached');
    };
    const runningNow = () =>
      ctx.database.db
        .selectFrom('import_tasks')
        .select(['company_id'])
        .where('status', '=', 'importing')
        .where('started_at', 'is not', null)
        .execute();
    let peakRunning = 0;
    let answeredWhileReading = 0;
    // The uploads are answered at once (nothing is inflated while the request is answered); the
    // probes then run while the files are read.
    const ids = await Promise.all(files.map((bytes, i) => upload(bytes, owners[i % owners.length] as Owner)));
    let done = false;
    const tasks = Promise.all(
      // Polled as the console does, not far faster.
      ids.map((id, i) => waitForTask(ctx, owners[i % owners.length] as Owner, id, 'en', 500)),
    );
    void tasks.finally(() => {
      done = true;
    });
    while (!done) {
      const reading = (await runningNow()).length > 0;
      await probe();
      const running = await runningNow();
      if (reading && running.length > 0) answeredWhileReading++;
      peakRunning = Math.max(peakRunning, running.length);
      expect(new Set(running.map((row) => row.company_id)).size).toBe(running.length);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ended = await tasks;
    expect(ended.map((task) => task.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    expect(ended.map((task) => task.errors[0]?.message)).toEqual([
      expect.stringMatching(/^The file is damaged/),
      expect.stringMatching(/^The first sheet has more than 2000000 cells/),
      expect.stringMatching(/^The workbook holds more than 16 million characters/),
      expect.stringMatching(/^The workbook unpacks to more than 128 MiB/),
      // Just under the cell limit, and not one user in it.
      'The file has no users to import',
    ]);
    expect(await countAccounts()).toBe(before);
    expect(answeredWhileReading).toBeGreaterThanOrEqual(1);
    expect(peakRunning).toBe(2);
  }, 120_000);
});

describe('the import queue', () => {
  it('runs one import per company at a time; a waiting task shows its place; work freed elsewhere is taken up', async () => {
    const owner = await ownerWithCompany(ctx, 'queue-delta');
    // Another instance is running an import of this company.
    const held = await holdImportTurn(ctx, owner);
    const first = await upload(await workbook(['queued.one']), owner);
    const second = await upload(await workbook(['queued.two']), owner);
    expect(await taskView(first, owner)).toMatchObject({ status: 'importing', queuePosition: 2 });
    expect(await taskView(second, owner)).toMatchObject({ status: 'importing', queuePosition: 3 });
    expect((await taskView(first, owner, 'zh')).status).toBe('importing');
    // A company is not held up by another's import.
    const [other] = owners as [Owner];
    expect(await waitForTask(ctx, other, await upload(await workbook(['not.queued']), other))).toMatchObject({
      status: 'success',
    });
    expect(await taskView(first, owner)).toMatchObject({ status: 'importing', queuePosition: 2 });
    await held.release();
    await ctx.tessera.jobs.drain();
    expect(await waitForTask(ctx, owner, first)).toMatchObject({ status: 'success', created: 1 });
    expect(await waitForTask(ctx, owner, second)).toMatchObject({ status: 'success', created: 1 });
    const times = await ctx.database.db
      .selectFrom('import_tasks')
      .select(['id', 'started_at', 'finished_at'])
      .where('id', 'in', [first, second])
      .execute();
    const byId = new Map(times.map((row) => [row.id, row]));
    expect(byId.get(second)?.started_at?.getTime()).toBeGreaterThanOrEqual(
      byId.get(first)?.finished_at?.getTime() ?? Number.POSITIVE_INFINITY,
    );
  });

  it('refuses a fourth waiting import of a company, in its language', async () => {
    const owner = await ownerWithCompany(ctx, 'queue-echo');
    const held = await holdImportTurn(ctx, owner);
    for (let i = 0; i < 2; i++) await upload(await workbook([`full.${i}`]), owner);
    const refused = await startImport(ctx, owner, { bytes: await workbook(['full.3']) }, 'zh-CN');
    expect(refused).toMatchObject({
      code: 429,
      msg: '本企业或您发起的导入已有 3 个正在等待或进行，请在其中一个结束后再导入',
    });
    await held.release();
    await ctx.tessera.jobs.drain();
  });

  it('claims made at once from several instances: never two of one company, never more than the limit', async () => {
    // A database of its own, so that no running server takes part in the race.
    const database = await openTestDatabase();
    try {
      const { db } = database;
      const insert = (key: string) =>
        jobsRepo.insertJob(db, { kind: IMPORT_JOB, key, payload: { taskId: newId() } });
      for (let company = 0; company < 3; company++)
        for (let i = 0; i < 2; i++) await insert(importJobKey(`company-${company}`));
      const claim = (i: number) =>
        jobsRepo.claimJob(db, [{ kind: IMPORT_JOB, limit: 2 }], `instance-${i}`, 60);
      const claimed = (await Promise.all(Array.from({ length: 8 }, (_, i) => claim(i)))).filter(
        (job) => job !== undefined,
      );
      expect(claimed).toHaveLength(2);
      expect(new Set(claimed.map((job) => job.key)).size).toBe(2);
      // Nothing more until one ends.
      expect(await claim(9)).toBeUndefined();
    } finally {
      await database.close();
    }
  });
});
