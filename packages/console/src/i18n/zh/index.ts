import type { Phrases } from '../en/index.ts';
import { common } from './common.ts';
import { company } from './company.ts';
import { dashboard } from './dashboard.ts';
import { http } from './http.ts';
import { session } from './session.ts';
import { status } from './status.ts';

export const zh = { common, company, dashboard, http, session, status } satisfies Phrases;
