import type { Migration } from '../migrations.ts';

export const m08: Migration = {
  id: 8,
  name: 'webauthn challenges',
  // (FIDO2 helper) A WebAuthn ceremony's challenge, bound to what asked for it (a user-centre
  // session or a sign-in interaction) and short-lived; it is deleted when used, so each
  // challenge answers one ceremony.
  sql: `
create table webauthn_challenges (
  challenge text primary key,
  purpose text not null,
  subject text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index webauthn_challenges_expires on webauthn_challenges (expires_at);
`,
};
