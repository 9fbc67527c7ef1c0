import type { Migration } from '../migrations.ts';

export const m20: Migration = {
  id: 20,
  name: 'exchange agent and devices',
  sql: `
-- A company's Exchange agent (one row, made when its settings are first read) and its device rules.
create table exchange_settings (
  company_id text primary key references companies (id) on delete cascade,
  enabled boolean not null default false,
  exchange_url text,
  credential_mode text not null default 'service' check (credential_mode in ('service', 'personal')),
  service_username text,
  service_password_sealed text,
  activation text not null default 'approval' check (activation in ('approval', 'automatic')),
  user_device_limit integer not null default 3 check (user_device_limit between 1 and 50),
  default_device_permission text not null default 'user' check (default_device_permission in ('user', 'admin')),
  device_password_digits integer not null default 16 check (device_password_digits between 8 and 64),
  rotation_days integer not null default 7 check (rotation_days between 1 and 90),
  -- The registration token, sealed (administrators see it), and its keyed hash (phones are matched on it).
  registration_token_sealed text not null,
  registration_token_hmac text not null unique,
  token_rotated_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Spec §6: each person's permission on device management; a new person gets the company's default
-- whichever way they are added (created, imported, made administrator).
alter table company_members add column device_permission text not null default 'user'
  check (device_permission in ('user', 'admin'));
create function company_members_device_permission() returns trigger language plpgsql as $$
begin
  new.device_permission := coalesce(
    (select s.default_device_permission from exchange_settings s where s.company_id = new.company_id), 'user');
  return new;
end
$$;
create trigger company_members_device_permission before insert on company_members
  for each row execute function company_members_device_permission();

-- A phone of a person in a company, as its ActiveSync DeviceId names it. The password is stored
-- hashed; a new one is also kept sealed until its person has seen it once in the user centre.
create table exchange_devices (
  id text primary key,
  company_id text not null,
  account_id text not null,
  device_id text not null,
  device_type text not null,
  name text not null,
  os text,
  user_agent text,
  activation text not null check (activation in ('to_be_activated', 'active')),
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  access_permission text not null default 'full' check (access_permission in ('full', 'receive_only')),
  policy jsonb,
  password_hash text,
  password_pending_sealed text,
  password_set_at timestamptz,
  registered_at timestamptz not null default now(),
  activated_at timestamptz,
  last_login_at timestamptz,
  last_offline_at timestamptz,
  online_until timestamptz,
  last_seen_at timestamptz,
  last_ip text,
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade,
  unique (company_id, account_id, device_id)
);
create index exchange_devices_account on exchange_devices (account_id, device_id);
create index exchange_devices_company on exchange_devices (company_id, registered_at desc);

-- A person's own Exchange sign-in, sealed (companies whose agent signs in with each person's own).
create table exchange_credentials (
  company_id text not null,
  account_id text not null,
  username text not null,
  password_sealed text not null,
  updated_at timestamptz not null default now(),
  primary key (company_id, account_id),
  foreign key (company_id, account_id) references company_members (company_id, account_id) on delete cascade
);

-- The device a login event is about (the agent's decisions).
alter table login_events add column device_id text;
create index login_events_device on login_events (device_id, created_at desc) where device_id is not null;
`,
};
