export * from './call.ts';
export * from './calls/index.ts';
export {
  type LicenseModule,
  type LicensePayload,
  type LicenseStatus,
  licenseModules,
  licensePayload,
  licenseStatuses,
  unlicensedAllowance,
} from './calls/license.ts';
export type { CompanyCreationMode, SetupItemKey } from './calls/platform.ts';
export { companyCreationModes, setupItemKeys, setupStates } from './calls/platform.ts';
export { type ScimGroupKind, scimGroupKinds } from './calls/scim-tokens.ts';
export * from './constants.ts';
export * from './errors.ts';
export * from './ip-range.ts';
export * from './openapi.ts';
export * from './phrases/index.ts';
