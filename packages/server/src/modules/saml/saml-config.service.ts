import { type saml as contract, fillSamlPattern, type SamlTemplateSettings } from '@tessera/contract';
import type { Updateable } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { AppSamlConfig, AppSamlConfigsTable } from '../../db/schema-saml.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import { spendBudgets } from '../../lib/rate-windows.ts';
import { protocolSettingsOf } from '../app/protocol-app.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { findSamlConfig } from './saml.repo.ts';
import { certificateInfo, parseCertificate } from './saml-certificates.ts';
import { fetchMetadata } from './saml-fetch.ts';
import type { KeyActor, SamlKeys } from './saml-keys.ts';
import { idpEndpoints, idpMetadataXml, parseServiceProviderMetadata } from './saml-metadata.ts';

type Body<C> = z.output<C extends { request: infer R extends z.ZodType } ? R : never>;
type Settings = z.output<typeof contract.samlSettings>;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The settings of an app without any yet: nothing about the service provider, safe defaults. */
const blank = (appId: string, companyId: string): AppSamlConfig => ({
  app_id: appId,
  company_id: companyId,
  entity_id: null,
  acs: [],
  slo_url: null,
  slo_binding: 'redirect',
  slo_response_url: null,
  signing_certificates: [],
  encryption_certificate: null,
  name_id_format: 'unspecified',
  name_id_source: 'username',
  attributes: [
    { name: 'email', nameFormat: 'basic', friendlyName: null, source: 'email', value: null },
    { name: 'name', nameFormat: 'basic', friendlyName: null, source: 'name', value: null },
  ],
  sign_response: true,
  sign_assertion: true,
  signature_algorithm: 'rsa-sha256',
  encrypt_assertion: false,
  require_signed_requests: false,
  default_relay_state: null,
  metadata_url: null,
  updated_at: new Date(0),
});

export const settingsOf = (row: AppSamlConfig): Settings => ({
  entityId: row.entity_id,
  acs: row.acs,
  sloUrl: row.slo_url,
  sloBinding: row.slo_binding,
  sloResponseUrl: row.slo_response_url,
  signingCertificates: row.signing_certificates.map(certificateInfo),
  encryptionCertificate: row.encryption_certificate ? certificateInfo(row.encryption_certificate) : null,
  nameIdFormat: row.name_id_format,
  nameIdSource: row.name_id_source,
  attributes: row.attributes,
  signResponse: row.sign_response,
  signAssertion: row.sign_assertion,
  signatureAlgorithm: row.signature_algorithm,
  encryptAssertion: row.encrypt_assertion,
  requireSignedRequests: row.require_signed_requests,
  defaultRelayState: row.default_relay_state,
  metadataUrl: row.metadata_url,
});

/** What the audit keeps: the settings, certificates by fingerprint. */
const audited = (row: AppSamlConfig) => {
  const settings = settingsOf(row);
  return {
    ...settings,
    signingCertificates: settings.signingCertificates.map((c) => c.fingerprint),
    encryptionCertificate: settings.encryptionCertificate?.fingerprint ?? null,
  };
};

/** The rules that hold across fields, checked on the settings as they would be stored. */
function checkCombined(row: AppSamlConfig) {
  const indexes = row.acs.map((a) => a.index);
  if (new Set(indexes).size !== indexes.length) throw new AppError('saml.acs_index_taken');
  if (row.acs.filter((a) => a.isDefault).length > 1) throw new AppError('saml.acs_default_many');
  const names = row.attributes.map((a) => a.name);
  if (new Set(names).size !== names.length) throw new AppError('saml.attribute_name_taken');
  if (!row.sign_response && !row.sign_assertion) throw new AppError('saml.signing_required');
  if (row.encrypt_assertion && !row.encryption_certificate)
    throw new AppError('saml.encryption_needs_certificate');
  if (row.require_signed_requests && !row.signing_certificates.length)
    throw new AppError('saml.signed_requests_need_certificate');
}

/** A catalogue SAML application's settings under its address. */
export function templateSettings(template: SamlTemplateSettings, baseUrl: string) {
  return {
    entity_id: template.entityId === null ? null : fillSamlPattern(template.entityId, baseUrl),
    acs: JSON.stringify(
      template.acsUrl === null
        ? []
        : [{ url: fillSamlPattern(template.acsUrl, baseUrl), index: 0, isDefault: true }],
    ),
    slo_url: template.sloUrl ? fillSamlPattern(template.sloUrl, baseUrl) : null,
    name_id_format: template.nameIdFormat,
    name_id_source: template.nameIdSource,
    attributes: JSON.stringify(
      template.attributes.map(({ name, nameFormat, source }) => ({
        name,
        nameFormat,
        source,
        friendlyName: null,
        value: null,
      })),
    ),
    sign_response: template.signResponse,
    sign_assertion: template.signAssertion,
  };
}

/**
 * The console's SAML calls: an app's service provider settings (by hand or from metadata) and
 * the company's identity provider. Each change is one transaction with its audit event.
 */
export function createSamlConfigService(deps: {
  db: Db;
  keys: SamlKeys;
  publicUrl: string;
  /** Where metadata URLs may lead (TESSERA_OUTBOUND_ALLOWED_NETWORKS). */
  outbound: OutboundPolicy;
}) {
  const { db, keys } = deps;

  const samlApp = (trx: Db, companyId: string, appId: string, lock = false) =>
    protocolSettingsOf(
      trx,
      companyId,
      appId,
      { name: 'saml', otherProtocol: 'saml.not_saml_app', findSettings: findSamlConfig, blank },
      lock,
    );

  async function detail(companyId: string, appId: string) {
    return settingsOf((await samlApp(db, companyId, appId)).config);
  }

  /** Stores merged settings after the combined rules, with the audit event. */
  async function store(
    trx: Db,
    actor: KeyActor,
    companyId: string,
    before: AppSamlConfig,
    set: Updateable<AppSamlConfigsTable>,
    action: string,
  ) {
    const merged = { ...before } as Record<string, unknown>;
    for (const [key, value] of Object.entries(set))
      merged[key] =
        key === 'acs' || key === 'attributes' || key === 'signing_certificates'
          ? JSON.parse(value as string)
          : value;
    checkCombined(merged as unknown as AppSamlConfig);
    const values = { ...set, updated_at: new Date() };
    const after = await uniqueViolationAs({ app_saml_configs_entity: 'saml.entity_id_taken' }, () =>
      trx
        .insertInto('app_saml_configs')
        .values({ app_id: before.app_id, company_id: companyId, ...values })
        .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
    await trx.updateTable('apps').set({ updated_at: new Date() }).where('id', '=', before.app_id).execute();
    await insertAuditEvent(trx, {
      companyId,
      actorAccountId: actor.accountId,
      action,
      targetType: 'app',
      targetId: before.app_id,
      before: audited(before),
      after: audited(after),
      ip: actor.ip,
    });
    return settingsOf(after);
  }

  async function update(actor: KeyActor, companyId: string, body: Body<typeof contract.updateSaml>) {
    // Certificates are parsed before the transaction: a bad one changes nothing.
    const signing = body.signingCertificates?.map(parseCertificate);
    const encryption =
      body.encryptionCertificate === undefined
        ? undefined
        : body.encryptionCertificate && parseCertificate(body.encryptionCertificate);
    return db.transaction().execute(async (trx) => {
      const { config } = await samlApp(trx, companyId, body.appId, true);
      const set: Updateable<AppSamlConfigsTable> = {};
      if (body.entityId !== undefined) set.entity_id = body.entityId;
      if (body.acs !== undefined) set.acs = JSON.stringify(body.acs);
      if (body.sloUrl !== undefined) set.slo_url = body.sloUrl;
      if (body.sloBinding !== undefined) set.slo_binding = body.sloBinding;
      if (body.sloResponseUrl !== undefined) set.slo_response_url = body.sloResponseUrl;
      if (signing !== undefined) set.signing_certificates = JSON.stringify([...new Set(signing)]);
      if (encryption !== undefined) set.encryption_certificate = encryption;
      if (body.nameIdFormat !== undefined) set.name_id_format = body.nameIdFormat;
      if (body.nameIdSource !== undefined) set.name_id_source = body.nameIdSource;
      if (body.attributes !== undefined) set.attributes = JSON.stringify(body.attributes);
      if (body.signResponse !== undefined) set.sign_response = body.signResponse;
      if (body.signAssertion !== undefined) set.sign_assertion = body.signAssertion;
      if (body.signatureAlgorithm !== undefined) set.signature_algorithm = body.signatureAlgorithm;
      if (body.encryptAssertion !== undefined) set.encrypt_assertion = body.encryptAssertion;
      if (body.requireSignedRequests !== undefined) set.require_signed_requests = body.requireSignedRequests;
      if (body.defaultRelayState !== undefined) set.default_relay_state = body.defaultRelayState;
      // A new row starts from the defaults (attributes included), then the given fields.
      if (!(await findSamlConfig(trx, config.app_id)) && set.attributes === undefined)
        set.attributes = JSON.stringify(config.attributes);
      return store(trx, actor, companyId, config, set, 'app.saml.update');
    });
  }

  async function importMetadata(
    actor: KeyActor,
    companyId: string,
    body: Body<typeof contract.importSamlMetadata>,
  ) {
    await samlApp(db, companyId, body.appId);
    let xml = body.xml;
    if (body.url) {
      const budget = { key: `saml-metadata-fetch:${companyId}`, limit: 30, minutes: 60 };
      if (!(await spendBudgets(db, [budget], 'reserve'))) throw new AppError('saml.fetch_throttled');
      xml = await fetchMetadata(body.url, deps.outbound);
    }
    const metadata = parseServiceProviderMetadata(xml ?? '');
    return db.transaction().execute(async (trx) => {
      const { config } = await samlApp(trx, companyId, body.appId, true);
      const set: Updateable<AppSamlConfigsTable> = {
        entity_id: metadata.entityId,
        acs: JSON.stringify(metadata.acs),
        slo_url: metadata.sloUrl,
        slo_binding: metadata.sloBinding,
        slo_response_url: metadata.sloResponseUrl,
        signing_certificates: JSON.stringify(metadata.signingCertificates),
        encryption_certificate: metadata.encryptionCertificate,
        metadata_url: body.url ?? null,
        // A service provider that signs its requests gets them checked; one that wants signed
        // assertions gets them; encryption stays as chosen while a certificate allows it.
        require_signed_requests: metadata.requestsSigned && metadata.signingCertificates.length > 0,
        encrypt_assertion: config.encrypt_assertion && Boolean(metadata.encryptionCertificate),
        attributes: JSON.stringify(config.attributes),
      };
      if (metadata.nameIdFormat) set.name_id_format = metadata.nameIdFormat;
      if (metadata.wantsAssertionsSigned) set.sign_assertion = true;
      return store(trx, actor, companyId, config, set, 'app.saml.import_metadata');
    });
  }

  async function idp(companyId: string) {
    const endpoints = idpEndpoints(deps.publicUrl, companyId);
    const rows = await keys.publishedCertificates(companyId);
    return {
      ...endpoints,
      certificates: rows.map((row) => ({
        ...certificateInfo(row.certificate),
        status: row.status as 'active' | 'next',
        createdAt: seconds(row.created_at),
      })),
      metadataXml: idpMetadataXml(
        endpoints,
        rows.map((row) => row.certificate),
      ),
    };
  }

  return {
    detail,
    update,
    importMetadata,
    idp,
    async prepareKey(actor: KeyActor, companyId: string) {
      await keys.prepareNext(actor, companyId);
      return idp(companyId);
    },
    async activateKey(actor: KeyActor, companyId: string) {
      await keys.activateNext(actor, companyId);
      return idp(companyId);
    },
    async discardKey(actor: KeyActor, companyId: string) {
      await keys.discardNext(actor, companyId);
      return idp(companyId);
    },
  };
}

export type SamlConfigService = ReturnType<typeof createSamlConfigService>;
