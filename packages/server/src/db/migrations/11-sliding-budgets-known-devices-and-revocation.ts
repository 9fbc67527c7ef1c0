import type { Migration } from '../migrations.ts';

export const m11: Migration = {
  id: 11,
  name: 'sliding budgets, known devices and revocation',
  sql: `
-- Sliding windows (lib/rate-windows.ts): one row per budget, a count per minute of the window,
-- oldest first; last_minute is the epoch minute of the newest slot. Replaces the clock-hour
-- counters, which let a full budget be spent again at the top of every hour.
drop table sign_in_counters;
create table rate_windows (
  key text primary key,
  last_minute bigint not null,
  counts integer[] not null,
  updated_at timestamptz not null default now()
);
create index rate_windows_updated on rate_windows (updated_at);

-- The counts of a window moved on to now_minute: slots that fell out of it are dropped.
create function rate_shift(counts integer[], last_minute bigint, now_minute bigint, minutes integer)
returns integer[] language sql immutable as $$
  select case
    when counts is null or cardinality(counts) <> minutes or now_minute - last_minute >= minutes
      then array_fill(0, array[minutes])
    when now_minute <= last_minute then counts
    else counts[(now_minute - last_minute + 1)::int : minutes]
      || array_fill(0, array[(now_minute - last_minute)::int])
  end
$$;

-- One call for several budgets at once (an account's and an address's):
--   reserve: takes one from every budget, or none when any is spent (answers whether it took);
--   add:     takes one from every budget regardless (answers whether all had room before);
--   release: gives one back to every budget (an attempt that turned out right);
--   peek:    answers whether every budget has room, changing nothing.
-- Rows are locked in key order, so parallel calls never wait on each other in a cycle.
create function rate_hit(p_keys text[], p_limits integer[], p_minutes integer[], p_mode text)
returns boolean language plpgsql as $$
declare
  now_minute bigint := floor(extract(epoch from now()) / 60)::bigint;
  r record;
  cur integer[];
  room boolean := true;
  j integer;
begin
  for r in select k.key, k.ord::int as ord from unnest(p_keys) with ordinality as k(key, ord) order by k.key loop
    if p_mode = 'peek' then
      select rate_shift(w.counts, w.last_minute, now_minute, p_minutes[r.ord]) into cur
        from rate_windows w where w.key = r.key;
    else
      insert into rate_windows (key, last_minute, counts)
        values (r.key, now_minute, array_fill(0, array[p_minutes[r.ord]]))
        on conflict (key) do nothing;
      select rate_shift(w.counts, w.last_minute, now_minute, p_minutes[r.ord]) into cur
        from rate_windows w where w.key = r.key for update;
    end if;
    if cur is not null and (select coalesce(sum(c), 0) from unnest(cur) c) >= p_limits[r.ord] then
      room := false;
    end if;
  end loop;
  if p_mode = 'peek' or (p_mode = 'reserve' and not room) then
    return room;
  end if;
  for r in select k.key, k.ord::int as ord from unnest(p_keys) with ordinality as k(key, ord) loop
    select rate_shift(w.counts, w.last_minute, now_minute, p_minutes[r.ord]) into cur
      from rate_windows w where w.key = r.key;
    if p_mode = 'release' then
      for j in reverse cardinality(cur)..1 loop
        if cur[j] > 0 then
          cur[j] := cur[j] - 1;
          exit;
        end if;
      end loop;
    else
      cur[cardinality(cur)] := cur[cardinality(cur)] + 1;
    end if;
    update rate_windows set counts = cur, last_minute = now_minute, updated_at = now() where key = r.key;
  end loop;
  return room;
end
$$;

-- Browsers that signed in to an account before (a signed device cookie): their failures are
-- counted on their own, so an attacker's failures elsewhere do not lock the owner out.
create table sign_in_devices (
  account_id text not null references accounts (id) on delete cascade,
  device_id text not null,
  created_at timestamptz not null default now(),
  last_success_at timestamptz not null default now(),
  failed_count integer not null default 0,
  last_failed_at timestamptz,
  locked_until timestamptz,
  primary key (account_id, device_id)
);

-- Failures of identifiers that name no account, locked out like accounts: during a lock-out no
-- password is checked, and an unknown identifier must not answer differently from a known one.
create table sign_in_unknown (
  identifier text primary key,
  failed_count integer not null default 0,
  last_failed_at timestamptz not null default now(),
  locked_until timestamptz
);
create index sign_in_unknown_failed on sign_in_unknown (last_failed_at);

-- Addresses from which a client authenticated with its secret: failed client authentications
-- from elsewhere do not stop it.
create table oidc_client_addresses (
  client_id text not null,
  ip text not null,
  last_success_at timestamptz not null default now(),
  primary key (client_id, ip)
);

-- Whose grant, token or single sign-on session a provider row is: revoked all at once.
alter table oidc_payloads add column account_id text;
update oidc_payloads set account_id = payload->>'accountId' where payload ? 'accountId';
create index oidc_payloads_account on oidc_payloads (account_id) where account_id is not null;

-- Every credential change (credential_version rises), disable and removal of an account ends
-- every grant, refresh and access token and single sign-on session it has, whichever code path
-- made the change. A disable also ends its console and user-centre sessions for good (they
-- would otherwise work again once it is enabled); a credential change ends them through the
-- credential version they compare on every request, which lets the person's own password
-- change carry their current session over; a deleted account's go with it.
create function accounts_revoke_access() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE'
     or new.credential_version is distinct from old.credential_version
     or (new.status <> 'enabled' and old.status = 'enabled') then
    delete from oidc_payloads where account_id = old.id;
  end if;
  if tg_op = 'UPDATE' and new.status <> 'enabled' and old.status = 'enabled' then
    update console_sessions set revoked_at = now() where account_id = old.id and revoked_at is null;
  end if;
  return null;
end
$$;
create trigger accounts_revoke_access after update or delete on accounts
  for each row execute function accounts_revoke_access();

-- A user record disabled, locked or removed by its company: the person's grants and tokens at
-- that company's applications end (the company's access rule refuses new ones).
create function company_members_revoke_access() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or (new.status <> 'enabled' and old.status = 'enabled') then
    delete from oidc_payloads
      where account_id = old.account_id
        and payload->>'clientId' in (select client_id from apps where company_id = old.company_id);
  end if;
  return null;
end
$$;
create trigger company_members_revoke_access after update or delete on company_members
  for each row execute function company_members_revoke_access();

-- A company manages an account fully (its status included) only while the account belongs to
-- no other company: such accounts take the status of their record there.
update accounts a set status = 'disabled'
  where a.status = 'enabled' and a.home_company_id is not null
    and exists (select 1 from company_members m where m.account_id = a.id
      and m.company_id = a.home_company_id and m.status <> 'enabled')
    and not exists (select 1 from company_members o where o.account_id = a.id
      and o.company_id <> a.home_company_id);
`,
};
