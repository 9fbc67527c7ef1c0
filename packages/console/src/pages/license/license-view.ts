import type { LicenseModule, LicenseStatus } from '@tessera/contract';
import { type QuantityModule, quantityModules } from '@tessera/contract/constants';
import type { ParseKeys } from 'i18next';
import type { ApiResponse } from '../../api/http-client.ts';

/** Localised function names of the licence (spec §3 licence: function). */
export const licenseModuleLabel: Record<LicenseModule, ParseKeys> = {
  user: 'license.module.user',
  app: 'license.module.app',
  mfa: 'license.module.mfa',
  identity_source: 'license.module.identitySource',
  radius: 'license.module.radius',
  ca: 'license.module.ca',
  device: 'license.module.device',
};

/** Spec §4 licence states, with their tag colours. */
export const licenseStatusView: Record<LicenseStatus, { label: ParseKeys; color: string }> = {
  not_active: { label: 'license.status.notActive', color: 'default' },
  normal: { label: 'license.status.normal', color: 'success' },
  expired: { label: 'license.status.expired', color: 'error' },
};

/** The largest licence file the import call takes (its request schema's limit). */
export const LICENSE_FILE_MAX_BYTES = 64 * 1024;

/** A company with its quotas and usage, as the platform administrator's list shows it. */
export type CompanyQuotas = ApiResponse<'/api/v1/manage/license/quota/list'>['list'][number];

/** A company's quota (null: no limit beyond the licence) and usage of a counted function. */
export const quotaOf = (company: CompanyQuotas, module: QuantityModule) =>
  company.quotas.find((q) => q.module === module) ?? { module, quota: null, used: 0 };

/** The functions whose new quota is below what the company already uses. */
export const belowUsage = (company: CompanyQuotas, quotas: Record<QuantityModule, number | null>) =>
  quantityModules.flatMap((module) => {
    const { used } = quotaOf(company, module);
    const quota = quotas[module];
    return quota !== null && quota < used ? [{ module, quota, used }] : [];
  });
