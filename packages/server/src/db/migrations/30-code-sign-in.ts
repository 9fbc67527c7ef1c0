import type { Migration } from '../migrations.ts';

export const m30: Migration = {
  id: 30,
  name: 'code sign-in',
  // How a person proved who they were (password, passkey, email_code, sms_code...), on each
  // sign-in event: the log tells a code sign-in from a password sign-in. Events written before
  // have none. The login methods and MFA kinds live in company_safety's JSON, unchecked by the
  // database, so the new values need no change there.
  sql: `
alter table login_events add column method text;
`,
};
