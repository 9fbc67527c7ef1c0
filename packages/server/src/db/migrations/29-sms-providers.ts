import type { Migration } from '../migrations.ts';

export const m29: Migration = {
  id: 29,
  name: 'sms providers',
  // The installation's SMS provider (one row, set by the platform administrator): Alibaba Cloud
  // or Tencent Cloud, its access key (the secret sealed), region, sign name and code template;
  // a base address only where the provider's documented one is not wanted. A company may use
  // its own sign name and template, approved under the same provider account.
  // A RADIUS client may send the codes of its Access-Challenge by SMS to people without an
  // authenticator app; such a challenge names the code it was sent.
  sql: `
create table sms_provider (
  id boolean primary key default true check (id),
  provider text not null check (provider in ('aliyun', 'tencent')),
  access_key_id text not null,
  access_key_secret_sealed text not null,
  region text not null default '',
  app_id text not null default '',
  sign_name text not null,
  template_id text not null,
  template_minutes boolean not null default false,
  base_url text,
  updated_at timestamptz not null default now()
);
create table company_sms_settings (
  company_id text primary key references companies (id) on delete cascade,
  sign_name text,
  template_id text,
  updated_at timestamptz not null default now()
);
alter table radius_clients add column sms_codes boolean not null default false;
alter table radius_challenges add column code_id text;
`,
};
