import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

export interface CertificateAuthoritiesTable {
  id: string;
  company_id: string;
  name: string;
  algorithm: 'rsa' | 'ecc' | 'sm2';
  strength: string;
  source: 'created' | 'imported';
  subject: string;
  serial_number: string;
  not_before: Date;
  not_after: Date;
  fingerprint: string;
  certificate_der: Uint8Array;
  /** PKCS#8 DER (base64), sealed with the master key. */
  private_key_sealed: string;
  crl_number: ColumnType<string, string | number | undefined, string | number>;
  crl_der: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  crl_next_update: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
}

export interface IssuedCertificatesTable {
  id: string;
  company_id: string;
  ca_id: string;
  account_id: string | null;
  subject: string;
  serial_number: string;
  algorithm: 'rsa' | 'ecc' | 'sm2';
  strength: string;
  source: 'csr' | 'generated';
  not_before: Date;
  not_after: Date;
  fingerprint: string;
  certificate_der: Uint8Array;
  revoked_at: NullableTimestamp;
  revocation_reason: string | null;
  created_by: string | null;
  created_at: Timestamp;
}

/** The installation's own CA (one row, name `services`): issues its services' TLS certificates. */
export interface InstallationCasTable {
  name: string;
  certificate_pem: string;
  /** PKCS#8 (base64), sealed with the master key for this CA's name. */
  private_key_sealed: string;
  created_at: Timestamp;
}

export interface CaTables {
  certificate_authorities: CertificateAuthoritiesTable;
  issued_certificates: IssuedCertificatesTable;
  installation_cas: InstallationCasTable;
}
