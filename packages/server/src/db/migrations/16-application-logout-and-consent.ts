import type { Migration } from '../migrations.ts';

export const m16: Migration = {
  id: 16,
  name: 'application logout and consent',
  // Logout to applications (OIDC Back-Channel and Front-Channel Logout 1.0), and what a
  // person allowed a third-party application (the consent page remembers it per person).
  sql: `
alter table apps add column backchannel_logout_uri text;
alter table apps add column frontchannel_logout_uri text;

create table app_consents (
  app_id text not null references apps (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  scopes jsonb not null default '[]',
  claims jsonb not null default '[]',
  updated_at timestamptz not null default now(),
  primary key (app_id, account_id)
);
create index app_consents_account on app_consents (account_id);
`,
};
