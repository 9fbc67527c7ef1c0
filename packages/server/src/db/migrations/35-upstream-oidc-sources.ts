import type { Migration } from '../migrations.ts';

export const m35: Migration = {
  id: 35,
  name: 'upstream openid connect sources',
  // An identity source can be an upstream OpenID Connect provider (modules/identity-source/oidc):
  // people sign in there and come back signed in. Its sign-ins under way keep their state, nonce
  // and PKCE verifier here, single use, short-lived and bound to the sign-in interaction; the
  // state is stored hashed. The table serves every upstream kind (SAML keeps its request id in
  // `nonce`).
  sql: `
alter table identity_sources drop constraint identity_sources_type_check;
alter table identity_sources add constraint identity_sources_type_check
  check (type in ('ldap', 'dingtalk', 'weixin', 'work_weixin', 'oidc'));

create table upstream_states (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  interaction_uid text not null,
  nonce text,
  code_verifier text,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index upstream_states_expires on upstream_states (expires_at);
`,
};
