import type { Migration } from '../migrations.ts';

export const m09: Migration = {
  id: 9,
  name: 'credentials changed at',
  // When an account's credentials last changed (password set or reset, second factors
  // removed: every change raises credential_version). The provider compares it with the
  // time of a single sign-on session's sign-in, so such a change ends those sessions too.
  sql: `
alter table accounts add column credentials_changed_at timestamptz;
create function accounts_credentials_changed() returns trigger language plpgsql as $$
begin
  if new.credential_version is distinct from old.credential_version then
    new.credentials_changed_at := now();
  end if;
  return new;
end
$$;
create trigger accounts_credentials_changed before update on accounts
  for each row execute function accounts_credentials_changed();
`,
};
