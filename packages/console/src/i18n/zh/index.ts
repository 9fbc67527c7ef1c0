import type { Phrases } from '../en/index.ts';
import { about } from './about.ts';
import { common } from './common.ts';
import { company } from './company.ts';
import { dashboard } from './dashboard.ts';
import { http } from './http.ts';
import { layout } from './layout.ts';
import { license } from './license.ts';
import { route } from './route.ts';
import { session } from './session.ts';
import { settings } from './settings.ts';
import { status } from './status.ts';

export const zh = {
  about,
  common,
  company,
  dashboard,
  http,
  layout,
  license,
  route,
  session,
  settings,
  status,
} satisfies Phrases;
