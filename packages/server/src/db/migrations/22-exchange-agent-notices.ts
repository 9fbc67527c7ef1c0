import type { Migration } from '../migrations.ts';

export const m22: Migration = {
  id: 22,
  name: 'exchange agent change notices',
  // The Exchange agent answers phones from memory (modules/exchange/agent-cache.ts). Every change
  // that can alter its decision is announced on 'tessera_exchange', whichever code path made it:
  // a:<account> (the person's devices, status, names, own Exchange sign-in; a device also as
  // p:<its DeviceId>) and c:<company> (the company's agent settings).
  sql: `
create function exchange_notify_device() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' then
    perform pg_notify('tessera_exchange', 'a:' || old.account_id);
    perform pg_notify('tessera_exchange', 'p:' || old.device_id);
  end if;
  if tg_op <> 'DELETE' then
    perform pg_notify('tessera_exchange', 'a:' || new.account_id);
    perform pg_notify('tessera_exchange', 'p:' || new.device_id);
  end if;
  return null;
end
$$;
create function exchange_notify_member() returns trigger language plpgsql as $$
begin
  perform pg_notify('tessera_exchange', 'a:' || coalesce(old.account_id, new.account_id));
  return null;
end
$$;
create function exchange_notify_account() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or new.status is distinct from old.status or new.username is distinct from old.username
     or new.email is distinct from old.email then
    perform pg_notify('tessera_exchange', 'a:' || old.id);
  end if;
  return null;
end
$$;
create function exchange_notify_company() returns trigger language plpgsql as $$
begin
  perform pg_notify('tessera_exchange', 'c:' || coalesce(old.company_id, new.company_id));
  return null;
end
$$;
create trigger exchange_devices_notify after insert or update or delete on exchange_devices
  for each row execute function exchange_notify_device();
create trigger exchange_credentials_notify after insert or update or delete on exchange_credentials
  for each row execute function exchange_notify_member();
create trigger exchange_members_notify after update of status or delete on company_members
  for each row execute function exchange_notify_member();
create trigger exchange_accounts_notify after update of status, username, email or delete on accounts
  for each row execute function exchange_notify_account();
create trigger exchange_settings_notify after insert or update or delete on exchange_settings
  for each row execute function exchange_notify_company();
`,
};
