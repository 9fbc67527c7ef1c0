import { z } from 'zod';
import { defineCall, entityId, paging } from '../call.ts';
import { syncRowKinds } from '../constants.ts';
import { syncRun } from './identity-source.ts';

/**
 * Directory sync of a source (LDAP / Active Directory, DingTalk and WeCom contacts): a preview
 * lists what a sync would create, update, move and disable; applying the preview does exactly
 * that (or refuses when the company changed meanwhile). Every run is a job: one at a time per
 * source, on any instance.
 */

const id = entityId;
const runRequest = z.object({ sourceId: id, runId: id });

export const previewSync = defineCall({
  path: '/api/v1/manage/identity-source/sync/preview',
  summary: 'Read the directory and work out what a sync would change, changing nothing (a job)',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z.object({ sourceId: id }),
  response: syncRun,
});

export const applySync = defineCall({
  path: '/api/v1/manage/identity-source/sync/apply',
  summary: 'Apply a finished preview: exactly its rows, or nothing if the company changed since (a job)',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: runRequest,
  response: syncRun,
});

export const startSync = defineCall({
  path: '/api/v1/manage/identity-source/sync/start',
  summary: 'Read the directory and apply the changes at once (a job)',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z.object({ sourceId: id }),
  response: syncRun,
});

export const listSyncRuns = defineCall({
  path: '/api/v1/manage/identity-source/sync/runs',
  summary: "A source's sync runs, newest first: start, end, counts and errors",
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'read' },
  request: z.object({ sourceId: id, ...paging }),
  response: z.object({ list: z.array(syncRun), total: z.number().int() }),
});

export const syncRunDetail = defineCall({
  path: '/api/v1/manage/identity-source/sync/run',
  summary: 'One sync run',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'read' },
  request: runRequest,
  response: syncRun,
});

export const syncRow = z.object({
  kind: z.enum(syncRowKinds),
  /** The directory's id of the person or department. */
  externalId: z.string(),
  /** Username (people) or department name. */
  label: z.string(),
  changes: z.array(
    z.object({ field: z.string(), before: z.string().nullable(), after: z.string().nullable() }),
  ),
  /** Localised explanation (why a row is a conflict, a department kept...). */
  note: z.string().nullable(),
});

export const syncRunRows = defineCall({
  path: '/api/v1/manage/identity-source/sync/rows',
  summary: 'The rows of a run: what it creates, updates, moves, disables (a preview) or did',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'read' },
  request: runRequest.extend({ kind: z.enum(syncRowKinds), ...paging }),
  response: z.object({ list: z.array(syncRow), total: z.number().int() }),
});
