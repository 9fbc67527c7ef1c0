import {
  type SamlAttributeNameFormat,
  type SamlAttributeSource,
  type SamlBinding,
  type SamlNameIdFormat,
  type SamlNameIdSource,
  type SamlSignatureAlgorithm,
  samlUrlProblem,
} from '@tessera/contract/constants';
import type { TFunction } from 'i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';

/** A SAML application's service provider settings, as the detail answers them. */
export type SamlSettings = ApiResponse<'/api/v1/manage/app/saml/detail'>;
/** The company's identity provider: endpoints, certificates, metadata. */
export type SamlIdp = ApiResponse<'/api/v1/manage/app/saml/idp'>;

/** The SAML tab's form. */
export interface SamlValues {
  entityId: string;
  acs: { url: string; index: number; isDefault: boolean }[];
  sloUrl: string;
  sloBinding: SamlBinding;
  sloResponseUrl: string;
  signingCertificates: string[];
  encryptionCertificate: string;
  nameIdFormat: SamlNameIdFormat;
  nameIdSource: SamlNameIdSource;
  attributes: {
    name: string;
    nameFormat: SamlAttributeNameFormat;
    source: SamlAttributeSource;
    value?: string;
    friendlyName?: string | null;
  }[];
  signResponse: boolean;
  signAssertion: boolean;
  signatureAlgorithm: SamlSignatureAlgorithm;
  encryptAssertion: boolean;
  requireSignedRequests: boolean;
  defaultRelayState: string;
}

export const samlFormFields = [
  'entityId',
  'acs',
  'sloUrl',
  'sloBinding',
  'sloResponseUrl',
  'signingCertificates',
  'encryptionCertificate',
  'nameIdFormat',
  'nameIdSource',
  'attributes',
  'signResponse',
  'signAssertion',
  'signatureAlgorithm',
  'encryptAssertion',
  'requireSignedRequests',
  'defaultRelayState',
] as const;

export const samlValuesOf = (settings: SamlSettings): SamlValues => ({
  entityId: settings.entityId ?? '',
  acs: settings.acs.length
    ? settings.acs.map((acs) => ({ ...acs }))
    : [{ url: '', index: 0, isDefault: true }],
  sloUrl: settings.sloUrl ?? '',
  sloBinding: settings.sloBinding,
  sloResponseUrl: settings.sloResponseUrl ?? '',
  signingCertificates: settings.signingCertificates.map((c) => c.pem.trim()),
  encryptionCertificate: settings.encryptionCertificate?.pem.trim() ?? '',
  nameIdFormat: settings.nameIdFormat,
  nameIdSource: settings.nameIdSource,
  attributes: settings.attributes.map((a) => ({ ...a, value: a.value ?? '' })),
  signResponse: settings.signResponse,
  signAssertion: settings.signAssertion,
  signatureAlgorithm: settings.signatureAlgorithm,
  encryptAssertion: settings.encryptAssertion,
  requireSignedRequests: settings.requireSignedRequests,
  defaultRelayState: settings.defaultRelayState ?? '',
});

/** The update call's body from the form (every field sent: the form shows them all). */
export const samlUpdateOf = (
  appId: string,
  values: SamlValues,
): ApiRequest<'/api/v1/manage/app/saml/update'> => ({
  appId,
  entityId: values.entityId.trim(),
  acs: values.acs.map((acs) => ({
    url: acs.url.trim(),
    index: Number(acs.index),
    isDefault: Boolean(acs.isDefault),
  })),
  sloUrl: values.sloUrl.trim() || null,
  sloBinding: values.sloBinding,
  sloResponseUrl: values.sloResponseUrl.trim() || null,
  signingCertificates: (values.signingCertificates ?? []).map((pem) => pem.trim()).filter(Boolean),
  encryptionCertificate: values.encryptionCertificate.trim() || null,
  nameIdFormat: values.nameIdFormat,
  nameIdSource: values.nameIdSource,
  attributes: (values.attributes ?? []).map((a) => ({
    name: a.name.trim(),
    nameFormat: a.nameFormat,
    friendlyName: a.friendlyName ?? null,
    source: a.source,
    value: a.source === 'fixed' ? (a.value ?? '').trim() : null,
  })),
  signResponse: values.signResponse,
  signAssertion: values.signAssertion,
  signatureAlgorithm: values.signatureAlgorithm,
  encryptAssertion: values.encryptAssertion,
  requireSignedRequests: values.requireSignedRequests,
  defaultRelayState: values.defaultRelayState.trim() || null,
});

/** The rule of an address a SAML message goes to (the server's rule, said before sending). */
export const samlUrlRule = (t: TFunction, required: boolean) => ({
  validator: async (_rule: unknown, value: string | undefined) => {
    const text = value?.trim() ?? '';
    if (!text) {
      if (required) throw new Error(t('apps.saml.urlInvalid'));
      return;
    }
    if (samlUrlProblem(text)) throw new Error(t('apps.saml.urlInvalid'));
  },
});

/** Saves a text as a file the browser downloads. */
export function downloadText(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
