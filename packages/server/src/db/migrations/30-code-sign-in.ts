import type { Migration } from '../migrations.ts';

export const m30: Migration = {
  id: 30,
  name: 'code sign-in',
  // How a person proved who they were (password, passkey, email_code, sms_code...), on each
  // sign-in event: the log tells a code sign-in from a password sign-in. Events written before
  // have none. The login methods and MFA kinds live in company_safety's JSON, unchecked by the
  // database, so the new values need no change there.
  //
  // Codes go only to a verified address: a change of the email or phone by anyone else (an
  // administrator, an import, a directory) ends its verification, whatever the path, unless the
  // same statement records a new one (the person confirming the new address with a code). An
  // email that differs only in letter case is the same mailbox and keeps its mark.
  sql: `
alter table login_events add column method text;
create function accounts_address_changed() returns trigger language plpgsql as $$
begin
  if lower(new.email) is distinct from lower(old.email) and new.email_verified_at is not distinct from old.email_verified_at then
    new.email_verified_at := null;
  end if;
  if new.phone is distinct from old.phone and new.phone_verified_at is not distinct from old.phone_verified_at then
    new.phone_verified_at := null;
  end if;
  return new;
end $$;
create trigger accounts_address_changed before update of email, phone on accounts
  for each row execute function accounts_address_changed();
`,
};
