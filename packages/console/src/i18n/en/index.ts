import { common } from './common.ts';
import { company } from './company.ts';
import { dashboard } from './dashboard.ts';
import { http } from './http.ts';
import { session } from './session.ts';
import { status } from './status.ts';

/** English phrases: the source type that every other language satisfies. */
export const en = { common, company, dashboard, http, session, status };
export type Phrases = typeof en;
