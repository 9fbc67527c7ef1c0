import type { Migration } from '../migrations.ts';

export const m26: Migration = {
  id: 26,
  name: 'company codes',
  // The short code in a company's user centre address (/portal/c/<code>/), the bookmark that
  // shows its brand. Not the company key (a secret that is regenerated) nor the id (long): ten
  // lowercase hex characters, given once and never changed, so a bookmark keeps working. The
  // volatile default gives every existing company its own code as the column is added.
  sql: `
alter table companies add column code text not null default substr(md5(random()::text || clock_timestamp()::text), 1, 10);
alter table companies add constraint companies_code_key unique (code);
alter table companies add constraint companies_code_format check (code ~ '^[a-z0-9][a-z0-9-]{2,31}$');
`,
};
