import type { Migration } from '../migrations.ts';

export const m41: Migration = {
  id: 41,
  name: 'installation ca',
  // The installation's own certificate authority (modules/ca/installation-ca.ts), not a
  // company's: it issues the certificates of the installation's own services (the LDAP server's
  // LDAPS and StartTLS when the operator gives no certificate). Its key is sealed with the master
  // key; every instance reads the same row, so clients trust one CA whichever instance answers.
  sql: `
create table installation_cas (
  name text primary key,
  certificate_pem text not null,
  private_key_sealed text not null,
  created_at timestamptz not null default now()
);
`,
};
