import type { ShellPhrases } from '../en/shell.ts';
import { common } from './common.ts';
import { company } from './company.ts';
import { dashboard } from './dashboard.ts';
import { http } from './http.ts';
import { layout } from './layout.ts';
import { route } from './route.ts';
import { session } from './session.ts';
import { status } from './status.ts';

/** The Chinese shell phrases (see ../en/shell.ts). */
export const zhShell = {
  common,
  company,
  dashboard,
  http,
  layout,
  route,
  session,
  status,
} satisfies ShellPhrases;
