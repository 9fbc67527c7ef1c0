import type { LicenseModule, LicenseStatus } from '@tessera/contract';
import type { ParseKeys } from 'i18next';

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
