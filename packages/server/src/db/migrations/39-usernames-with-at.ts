import type { Migration } from '../migrations.ts';

export const m39: Migration = {
  id: 39,
  name: 'usernames with an at sign',
  // A username may now hold one `@` and a domain (alice@contoso.com: the userName Microsoft
  // Entra ID and Okta send by default). People sign in with a username or an email alike, so no
  // username may be another account's email, nor an email another account's username (the same
  // account may have both). The services check it first and answer with the field
  // (user.repo.ts findTakenIdentifiers); this trigger is the last word, as the unique indexes are
  // for each column: it refuses with a unique violation named after the rule. Writers of the same
  // value wait for each other on a transaction lock (one of 256, so that a bulk import holds a
  // bounded number of them); only usernames with an `@`, and changed emails, are checked.
  sql: `
create function accounts_sign_in_names_distinct() returns trigger language plpgsql as $$
begin
  if position('@' in new.username) > 0
    and (tg_op = 'INSERT' or lower(new.username) is distinct from lower(old.username)) then
    perform pg_advisory_xact_lock(3939, hashtext(lower(new.username)) & 255);
    if exists (select 1 from accounts where lower(email) = lower(new.username) and id <> new.id) then
      raise exception 'this username is the email of another account'
        using errcode = 'unique_violation', constraint = 'accounts_username_is_email';
    end if;
  end if;
  if new.email is not null
    and (tg_op = 'INSERT' or lower(new.email) is distinct from lower(old.email)) then
    perform pg_advisory_xact_lock(3939, hashtext(lower(new.email)) & 255);
    if exists (select 1 from accounts where lower(username) = lower(new.email) and id <> new.id) then
      raise exception 'this email is the username of another account'
        using errcode = 'unique_violation', constraint = 'accounts_email_is_username';
    end if;
  end if;
  return new;
end
$$;

create trigger accounts_sign_in_names_distinct before insert or update of username, email on accounts
  for each row execute function accounts_sign_in_names_distinct();
`,
};
