import type { Migration } from '../migrations.ts';

export const m06: Migration = {
  id: 6,
  name: 'user-search',
  // The user list finds a keyword anywhere in username, name, email and phone among 100 000
  // people: the four are kept in one stored lowercase text (computing it per row doubled the
  // time of a broad search), whose trigram index answers '%keyword%' without reading every account.
  sql: `
create extension if not exists pg_trgm;
alter table accounts add column search_text text not null generated always as (lower(
  username || chr(31) || coalesce(display_name, '') || chr(31) || coalesce(email, '') || chr(31) || coalesce(phone, '')
)) stored;
create index accounts_search_trgm on accounts using gin (search_text gin_trgm_ops);
create index company_members_company_status on company_members (company_id, status);
`,
};
