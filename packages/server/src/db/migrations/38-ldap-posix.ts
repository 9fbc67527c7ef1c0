import type { Migration } from '../migrations.ts';

export const m38: Migration = {
  id: 38,
  name: 'ldap posix accounts',
  // POSIX accounts in the LDAP directory (modules/ldap-server): an LDAP application can serve
  // people as posixAccount and groups as posixGroup, for Linux hosts (sssd, nslcd). Each person
  // and each group (department or permission role) of a company gets a number once, when it
  // joins or is made, from one counter per company that starts at 10000 and only rises: a
  // number never changes (renames keep it) and is never given again (a removed person's number
  // stays used). People and groups share the counter, so a person's number is free to be the
  // gidNumber of their own (user private) group.
  sql: `
alter table app_ldap_configs add column posix boolean not null default false;

create table ldap_posix_counters (
  company_id text primary key references companies (id) on delete cascade,
  next_number integer not null
);

create table ldap_posix_ids (
  company_id text not null references companies (id) on delete cascade,
  subject_id text not null,
  number integer not null,
  primary key (company_id, subject_id),
  unique (company_id, number)
);

create function ldap_posix_number(p_company text, p_subject text) returns void language plpgsql as $$
declare
  n integer;
begin
  if exists (select 1 from ldap_posix_ids where company_id = p_company and subject_id = p_subject) then
    return;
  end if;
  insert into ldap_posix_counters (company_id, next_number) values (p_company, 10001)
    on conflict (company_id) do update set next_number = ldap_posix_counters.next_number + 1
    returning next_number - 1 into n;
  insert into ldap_posix_ids (company_id, subject_id, number) values (p_company, p_subject, n);
end
$$;

create function ldap_posix_number_member() returns trigger language plpgsql as $$
begin
  perform ldap_posix_number(new.company_id, new.account_id);
  return null;
end
$$;
create trigger ldap_posix_number after insert on company_members
  for each row execute function ldap_posix_number_member();

create function ldap_posix_number_group() returns trigger language plpgsql as $$
begin
  perform ldap_posix_number(new.company_id, new.id);
  return null;
end
$$;
create trigger ldap_posix_number after insert on departments
  for each row execute function ldap_posix_number_group();
create trigger ldap_posix_number after insert on permission_roles
  for each row execute function ldap_posix_number_group();

do $$
declare
  r record;
begin
  for r in
    select company_id, account_id as subject_id, created_at from company_members
    union all select company_id, id, created_at from departments
    union all select company_id, id, created_at from permission_roles
    order by created_at, subject_id
  loop
    perform ldap_posix_number(r.company_id, r.subject_id);
  end loop;
end
$$;
`,
};
