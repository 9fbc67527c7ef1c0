import { importLimits, type user } from '@tessera/contract';
import ExcelJS from 'exceljs';
import type { z } from 'zod';
import type { TesseraApp } from '../app.ts';
import type { DatabaseHandle } from '../db/database.ts';
import { newId } from '../lib/ids.ts';
import { IMPORT_JOB, importJobKey } from '../modules/user-import/import.service.ts';
import { call, upload } from './harness.ts';

/** Uploading users to import, and waiting for the task, as the console does. */

export const XLSX = importLimits.xlsxType;

export type ImportTaskView = z.infer<typeof user.importTask>;

interface Caller {
  token: string;
  companyId: string;
}

/** Accounts on the whole platform (an import that fails stores none). */
export const countAllAccounts = async (ctx: { database: DatabaseHandle }) =>
  Number(
    (
      await ctx.database.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A workbook of one sheet: the header, then the rows. */
export async function workbookOf(rows: ExcelJS.CellValue[][], header: string[] = ['Username']) {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Users');
  sheet.addRow(header);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** Uploads a workbook to the user import; answers the envelope (the task id on success). */
export const startImport = (
  ctx: { tessera: TesseraApp },
  as: Caller,
  file: { bytes: Buffer; filename?: string; type?: string },
  lang?: string,
) =>
  upload(
    ctx,
    '/api/v1/manage/user/batch-task/create',
    { bytes: file.bytes, filename: file.filename ?? 'people.xlsx', type: file.type ?? XLSX },
    { ...as, lang },
  );

/** Polls the task until it has ended (importing means queued or running), for at most a minute. */
export async function waitForTask(
  ctx: { tessera: TesseraApp },
  as: Caller,
  taskId: string,
  lang = 'en',
  everyMs = 50,
): Promise<ImportTaskView> {
  for (let waited = 0; waited < 60_000; waited += everyMs) {
    const answer = await call<ImportTaskView>(
      ctx,
      '/api/v1/manage/user/batch-task',
      { taskId },
      { ...as, lang },
    );
    if (answer.code !== 200) throw new Error(`batch-task: ${answer.code} ${answer.msg}`);
    if (answer.data.status !== 'importing') return answer.data;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error('the import did not finish');
}

/**
 * Another instance is running an import of the company: its job holds the company's key (and
 * one of the platform's places) under a lease that is not running out. Answers how it ends.
 */
export async function holdImportTurn(
  ctx: { database: DatabaseHandle },
  as: { companyId: string; account: { id: string } },
) {
  const { db } = ctx.database;
  const [taskId, jobId] = [newId(), newId()];
  await db
    .insertInto('import_tasks')
    .values({
      id: taskId,
      company_id: as.companyId,
      created_by: as.account.id,
      status: 'importing',
      started_at: new Date(),
    })
    .execute();
  await db
    .insertInto('jobs')
    .values({
      id: jobId,
      kind: IMPORT_JOB,
      key: importJobKey(as.companyId),
      payload: JSON.stringify({ taskId }),
      status: 'running',
      run_after: new Date(),
      every_seconds: null,
      attempts: 1,
      max_attempts: 1,
      locked_by: 'another-instance',
      lease_until: new Date(Date.now() + 3_600_000),
      last_error: null,
      started_at: new Date(),
    })
    .execute();
  return {
    taskId,
    jobId,
    /** The other instance's import ended. */
    async release() {
      await db
        .updateTable('jobs')
        .set({ status: 'done', finished_at: new Date() })
        .where('id', '=', jobId)
        .execute();
      await db
        .updateTable('import_tasks')
        .set({ status: 'success', finished_at: new Date() })
        .where('id', '=', taskId)
        .execute();
    },
  };
}
