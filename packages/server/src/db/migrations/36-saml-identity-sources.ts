import type { Migration } from '../migrations.ts';

export const m36: Migration = {
  id: 36,
  name: 'saml identity sources',
  // An upstream SAML identity provider as an identity source (issue 33): the source kinds gain
  // the upstream OpenID Connect provider and the upstream SAML identity provider. Each SAML
  // source's AuthnRequests are remembered with the sign-in interaction they were sent for (the
  // response's InResponseTo must name one, once), and the assertions it accepted are remembered
  // until they expire, so that a replayed response is refused by every instance.
  sql: `
alter table identity_sources drop constraint identity_sources_type_check;
alter table identity_sources add constraint identity_sources_type_check
  check (type in ('ldap', 'dingtalk', 'weixin', 'work_weixin', 'oidc', 'saml'));

create table saml_source_requests (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  interaction_uid text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  handoff_hash text unique,
  verified jsonb
);
create index saml_source_requests_expires on saml_source_requests (expires_at);

create table saml_source_assertions (
  source_id text not null references identity_sources (id) on delete cascade,
  assertion_id text not null,
  expires_at timestamptz not null,
  primary key (source_id, assertion_id)
);
create index saml_source_assertions_expires on saml_source_assertions (expires_at);
`,
};
