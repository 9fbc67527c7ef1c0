import type { Migration } from '../migrations.ts';

export const m24: Migration = {
  id: 24,
  name: 'application consent choice',
  // Whether an application asks each person for consent is the administrator's choice, off for
  // every application a company adds (the company already decides who may use it), on for an
  // application run by another organisation. Until now a catalogue application always asked:
  // employees were asked about tools their own company had added.
  sql: `
alter table apps add column ask_consent boolean not null default false;
`,
};
