import type { Migration } from '../migrations.ts';

export const m40: Migration = {
  id: 40,
  name: 'upstream logout',
  // Signing out of an upstream identity provider too (issue 33). A sign-in through an upstream
  // source remembers, beside the Tessera single sign-on session it made, what the provider's
  // logout needs: the ID token (sealed) and sid of an OpenID provider, the NameID and
  // SessionIndex of a SAML one; it is bound to the session when the sign-in completes and goes
  // with it. A sign-out sent on to the provider remembers where the browser goes afterwards (by
  // the state or LogoutRequest id it sent, once). The ids of accepted back-channel logout tokens
  // are kept until the tokens are too old anyway, so that a token is used once on any instance.
  sql: `
create table upstream_sessions (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  account_id text not null references accounts (id) on delete cascade,
  interaction_uid text,
  sso_session_uid text unique,
  id_token_sealed text,
  sid text,
  name_id text,
  name_id_format text,
  name_qualifier text,
  sp_name_qualifier text,
  session_index text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index upstream_sessions_interaction on upstream_sessions (interaction_uid) where interaction_uid is not null;
create index upstream_sessions_name_id on upstream_sessions (source_id, name_id) where name_id is not null;
create index upstream_sessions_sid on upstream_sessions (source_id, sid) where sid is not null;
create index upstream_sessions_expires on upstream_sessions (expires_at);

create table upstream_logouts (
  id text primary key,
  source_id text not null references identity_sources (id) on delete cascade,
  next_url text not null,
  expires_at timestamptz not null
);
create index upstream_logouts_expires on upstream_logouts (expires_at);

create table upstream_logout_tokens (
  source_id text not null references identity_sources (id) on delete cascade,
  jti text not null,
  expires_at timestamptz not null,
  primary key (source_id, jti)
);
create index upstream_logout_tokens_expires on upstream_logout_tokens (expires_at);
`,
};
