import { z } from 'zod';
import { defineCall, emptyRequest, entityId, paging } from '../call.ts';
import {
  caFileTypes,
  caLimits,
  certificateStatuses,
  keyAlgorithms,
  keyStrengths,
  revocationReasons,
} from '../constants.ts';

/**
 * The certificate authorities of a company (spec §1 CA certificates, §2 /safety-management/ca,
 * §3 Certificate, §5 key strengths and "CA file"): created here or imported, their keys sealed;
 * certificates issued to people (for UKEY and client-certificate sign-in), revoked with a reason,
 * and a CRL per CA at a public address.
 */

const id = entityId;

const allStrengths = [...keyStrengths.rsa, ...keyStrengths.ecc, ...keyStrengths.sm2] as const;

const caName = z
  .string({ error: 'ca.name_required' })
  .trim()
  .min(1, { error: 'ca.name_required' })
  .max(caLimits.nameMax, { error: 'ca.name_too_long' });

const subjectField = z.string().trim().max(caLimits.subjectFieldMax, { error: 'ca.subject_too_long' });

/** An algorithm with one of its strengths (spec §5): RSA 2048/3072/4096, ECC P-256/384/521, SM2 SMP256. */
const keySpec = {
  algorithm: z.enum(keyAlgorithms, { error: 'ca.algorithm_invalid' }),
  /**
   * Absent: the algorithm's default (SM2: SMP256). Checked against the algorithm by the server,
   * whose refusal names the algorithm and its strengths (a schema's refusal has no values to
   * fill the phrase with).
   */
  strength: z.string().trim().max(16).optional(),
};

export const certificateAuthority = z.object({
  caId: z.string(),
  name: z.string(),
  algorithm: z.enum(keyAlgorithms),
  strength: z.enum(allStrengths),
  /** created here, or imported from a CA file. */
  source: z.enum(['created', 'imported']),
  subject: z.string(),
  serialNumber: z.string(),
  notBefore: z.string(),
  notAfter: z.string(),
  /** SHA-256 of the certificate, hex. */
  fingerprint: z.string(),
  /** Where the CA's certificate revocation list is published (DER), refreshed on every revocation. */
  crlUrl: z.string(),
  /** Where the CA certificate itself is published. */
  certificateUrl: z.string(),
  certificates: z.object({ valid: z.number().int(), revoked: z.number().int(), expired: z.number().int() }),
  createdAt: z.string(),
});

export const listCas = defineCall({
  path: '/api/v1/manage/ca/list',
  summary: "The company's certificate authorities",
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: emptyRequest,
  response: z.object({ list: z.array(certificateAuthority) }),
});

export const createCa = defineCall({
  path: '/api/v1/manage/ca/create',
  summary: 'Create a certificate authority with a new key (RSA, ECC or SM2); the key is sealed',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    name: caName,
    ...keySpec,
    /** The subject's common name; the CA's name when empty. */
    commonName: subjectField.optional(),
    organization: subjectField.optional(),
    validityYears: z
      .number({ error: 'ca.validity_range' })
      .int({ error: 'ca.validity_range' })
      .min(caLimits.caValidityYears.min, { error: 'ca.validity_range' })
      .max(caLimits.caValidityYears.max, { error: 'ca.validity_range' })
      .default(caLimits.caValidityYears.default),
  }),
  response: certificateAuthority,
});

export const importCa = defineCall({
  path: '/api/v1/manage/ca/import',
  summary:
    'Import a certificate authority from its CA file (multipart: fields "name" and "password", then the file): the certificate with its private key, as PEM or PKCS#12',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    name: caName,
    /** The PKCS#12 password (not needed for PEM, unless its key is encrypted). */
    password: z.string().max(caLimits.passwordMax).default(''),
  }),
  response: certificateAuthority,
  upload: {
    field: 'file',
    maxBytes: caLimits.fileBytes,
    types: caFileTypes,
    missingReason: 'ca.file_required',
  },
});

export const caDetail = defineCall({
  path: '/api/v1/manage/ca/detail',
  summary: 'A certificate authority with its certificate (PEM)',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: z.object({ caId: id }),
  response: certificateAuthority.extend({ certificatePem: z.string() }),
});

export const deleteCa = defineCall({
  path: '/api/v1/manage/ca/del',
  summary: 'Remove a certificate authority that has no valid certificates left; its key is destroyed',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ caId: id }),
  response: z.object({ caId: z.string() }),
});

export const issuedCertificate = z.object({
  certificateId: z.string(),
  caId: z.string(),
  caName: z.string(),
  userId: z.string().nullable(),
  username: z.string().nullable(),
  subject: z.string(),
  serialNumber: z.string(),
  algorithm: z.enum(keyAlgorithms),
  strength: z.enum(allStrengths),
  /** csr: the person's own key pair; generated: a key pair made here and handed out as PKCS#12. */
  source: z.enum(['csr', 'generated']),
  status: z.enum(certificateStatuses),
  notBefore: z.string(),
  notAfter: z.string(),
  fingerprint: z.string(),
  revokedAt: z.string().nullable(),
  revocationReason: z.enum(revocationReasons).nullable(),
  createdAt: z.string(),
});

export const listCertificates = defineCall({
  path: '/api/v1/manage/ca/certificate/list',
  summary: 'Certificates issued by the company’s CAs, newest first (optionally of one CA or one person)',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: z.object({
    caId: id.optional(),
    userId: id.optional(),
    status: z.enum(certificateStatuses).optional(),
    ...paging,
  }),
  response: z.object({ list: z.array(issuedCertificate), total: z.number().int() }),
});

export const issueCertificate = defineCall({
  path: '/api/v1/manage/ca/certificate/issue',
  summary:
    'Issue a certificate to a person: from their CSR, or for a key pair made here and answered once as PKCS#12 with a one-time password',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    caId: id,
    userId: id,
    /** A PKCS#10 request (PEM); without it a key pair of `keyAlgorithm`/`keyStrength` is made. */
    csr: z.string().max(caLimits.csrChars, { error: 'ca.csr_invalid' }).optional(),
    keyAlgorithm: keySpec.algorithm.optional(),
    keyStrength: keySpec.strength,
    validityDays: z
      .number({ error: 'ca.certificate_validity_range' })
      .int({ error: 'ca.certificate_validity_range' })
      .min(caLimits.certificateValidityDays.min, { error: 'ca.certificate_validity_range' })
      .max(caLimits.certificateValidityDays.max, { error: 'ca.certificate_validity_range' })
      .default(caLimits.certificateValidityDays.default),
  }),
  response: z.object({
    certificate: issuedCertificate,
    certificatePem: z.string(),
    /** For a generated key pair: the PKCS#12 file (base64) and its password, answered this once. */
    pkcs12: z.string().nullable(),
    pkcs12Password: z.string().nullable(),
  }),
});

export const certificateDetail = defineCall({
  path: '/api/v1/manage/ca/certificate/detail',
  summary: 'An issued certificate with its PEM',
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: z.object({ certificateId: id }),
  response: issuedCertificate.extend({ certificatePem: z.string() }),
});

export const revokeCertificate = defineCall({
  path: '/api/v1/manage/ca/certificate/revoke',
  summary: "Revoke a certificate with a reason; its CA's CRL is published again at once",
  tag: 'CA',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    certificateId: id,
    reason: z.enum(revocationReasons, { error: 'ca.reason_invalid' }).default('unspecified'),
  }),
  response: issuedCertificate,
});
