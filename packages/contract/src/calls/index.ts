import type { CallAlias, CallDef } from '../call.ts';
import * as app from './app.ts';
import * as brand from './brand.ts';
import * as ca from './ca.ts';
import * as cas from './cas.ts';
import * as company from './company.ts';
import * as consoleRole from './console-role.ts';
import * as dashboard from './dashboard.ts';
import * as decision from './decision.ts';
import * as department from './department.ts';
import * as directorySync from './directory-sync.ts';
import * as exchange from './exchange.ts';
import * as identitySource from './identity-source.ts';
import * as license from './license.ts';
import * as log from './log.ts';
import * as permission from './permission.ts';
import * as platform from './platform.ts';
import * as quota from './quota.ts';
import * as radius from './radius.ts';
import * as safety from './safety.ts';
import * as saml from './saml.ts';
import * as samlSource from './saml-source.ts';
import * as scimTokens from './scim-tokens.ts';
import * as session from './session.ts';
import * as sms from './sms.ts';
import * as syslog from './syslog.ts';
import * as user from './user.ts';

export {
  app,
  brand,
  ca,
  cas,
  company,
  consoleRole,
  dashboard,
  decision,
  department,
  directorySync,
  exchange,
  identitySource,
  license,
  log,
  permission,
  platform,
  quota,
  radius,
  safety,
  saml,
  samlSource,
  scimTokens,
  session,
  sms,
  syslog,
  user,
};

/** Every call of the API, in one list: the server binds these and nothing else. */
export const allCalls = [
  session.ssoConfig,
  ...Object.values(session.oidcToken),
  ...Object.values(session.oidcRefresh),
  ...Object.values(session.logout),
  company.myCompanies,
  company.createCompany,
  platform.platformSetup,
  platform.companyCreation,
  platform.setCompanyCreation,
  company.companyDetailCall,
  company.updateCompany,
  company.updateCompanyIcon,
  company.companyMembers,
  company.createCompanyMember,
  company.deleteCompanyMember,
  company.setCompanyMemberRole,
  company.resetCompanyKey,
  license.licenseDetail,
  license.licenseImport,
  license.licenseCode,
  license.licenseInfo,
  license.systemInfo,
  license.thirdParty,
  quota.companyQuotaList,
  quota.setCompanyQuota,
  user.listUsers,
  user.createUser,
  user.passwordRulesCall,
  user.createDevUser,
  user.updateUser,
  user.deleteUser,
  user.userDetail,
  user.setUserStatus,
  user.resetUserPassword,
  user.uploadUserPhoto,
  user.sendSignInLink,
  user.sendAccountEmail,
  user.userLog,
  user.selfDetails,
  user.createImportTask,
  user.importTaskCall,
  user.importTemplate,
  user.exportUsers,
  department.departmentTree,
  department.createDepartment,
  department.updateDepartment,
  department.moveDepartment,
  department.deleteDepartment,
  department.addDepartmentMembers,
  department.removeDepartmentMembers,
  safety.getGeneralSafety,
  safety.updateGeneralSafety,
  safety.getMfaSafety,
  safety.updateMfaSafety,
  safety.userMfaFactors,
  safety.deleteUserMfaFactor,
  safety.bindUserSignatureFactor,
  app.listApps,
  app.createApp,
  app.appDetailCall,
  app.updateApp,
  app.setAppStatus,
  app.deleteApp,
  app.resetAppSecret,
  app.uploadAppLogo,
  app.listAppAssignments,
  app.addAppAssignments,
  app.removeAppAssignments,
  app.listAppGroupAssignments,
  app.addAppGroupAssignments,
  app.removeAppGroupAssignments,
  app.listApiAccounts,
  app.createApiAccount,
  app.updateApiAccount,
  app.resetApiAccountSecret,
  app.deleteApiAccount,
  app.appFormConfig,
  app.updateAppFormConfig,
  exchange.getDeviceSettings,
  exchange.updateDeviceSettings,
  exchange.getRegistrationToken,
  exchange.rotateRegistrationToken,
  exchange.getExchangeSettings,
  exchange.updateExchangeSettings,
  exchange.listDevices,
  exchange.deleteDevices,
  exchange.deviceDetail,
  exchange.approveDevices,
  exchange.setDeviceStatus,
  exchange.updateDevice,
  exchange.devicePermissionOf,
  exchange.setDevicePermission,
  dashboard.userDataOverview,
  dashboard.userLoginTrend,
  dashboard.userMfaInfo,
  dashboard.appLoginCount,
  dashboard.appLoginTrend,
  dashboard.appLoginCountRatio,
  dashboard.newFailList,
  dashboard.failTrend,
  dashboard.loginHotspot,
  dashboard.newLoginList,
  log.signInLog,
  log.adminLog,
  log.adminLogActions,
  log.exportLog,
  log.logSettings,
  log.updateLogSettings,
  syslog.syslogConf,
  syslog.updateSyslog,
  syslog.syslogStatus,
  brand.getBrand,
  brand.updateBrand,
  brand.previewBrand,
  brand.uploadBrandLogo,
  brand.uploadBrandBackground,
  identitySource.listIdentitySources,
  identitySource.identitySourceDetailCall,
  identitySource.createIdentitySource,
  identitySource.updateIdentitySource,
  identitySource.setIdentitySourceStatus,
  identitySource.deleteIdentitySource,
  identitySource.testLdapConnection,
  identitySource.testLdapUser,
  identitySource.testOidcSource,
  samlSource.readSamlSourceMetadata,
  directorySync.previewSync,
  directorySync.applySync,
  directorySync.startSync,
  directorySync.listSyncRuns,
  directorySync.syncRunDetail,
  directorySync.syncRunRows,
  // permissions (spec §3 Resource, Role, Authorization), the decision API, console roles (§6)
  permission.listResources,
  permission.createResource,
  permission.updateResource,
  permission.deleteResource,
  permission.listRoles,
  permission.roleDetail,
  permission.createRole,
  permission.updateRole,
  permission.deleteRole,
  permission.listRoleMembers,
  permission.addRoleMembers,
  permission.removeRoleMembers,
  permission.previewRoleMembers,
  permission.listAuthorizations,
  permission.createAuthorization,
  permission.updateAuthorization,
  permission.deleteAuthorization,
  permission.previewAuthorization,
  permission.checkAccess,
  decision.decideOne,
  decision.decideMany,
  decision.permittedActions,
  consoleRole.listConsoleRoles,
  consoleRole.createConsoleRole,
  consoleRole.updateConsoleRole,
  consoleRole.deleteConsoleRole,
  consoleRole.assignConsoleRole,
  consoleRole.myConsoleAccess,
  saml.samlDetail,
  saml.updateSaml,
  saml.importSamlMetadata,
  saml.samlIdpDetail,
  saml.prepareSamlKey,
  saml.activateSamlKey,
  saml.discardSamlKey,
  cas.casDetail,
  cas.updateCas,
  // RADIUS clients and the certificate authority (spec §1, §2 safety-management)
  radius.listRadiusClients,
  radius.createRadiusClient,
  radius.updateRadiusClient,
  radius.resetRadiusSecret,
  radius.deleteRadiusClient,
  ca.listCas,
  ca.createCa,
  ca.importCa,
  ca.caDetail,
  ca.deleteCa,
  ca.listCertificates,
  ca.issueCertificate,
  ca.certificateDetail,
  ca.revokeCertificate,
  // SMS providers: the platform's, and a company's own sign name and template (issue 29)
  sms.platformSms,
  sms.updatePlatformSms,
  sms.testPlatformSms,
  sms.companySms,
  sms.updateCompanySms,
  // SCIM 2.0 inbound: a company's SCIM tokens and password setting (issue 31)
  scimTokens.scimTokens,
  scimTokens.createScimToken,
  scimTokens.revokeScimToken,
  scimTokens.updateScimSettings,
];

/** The alias paths of a call (see `CallDef.aliases`). */
type AliasPathsOf<C> = C extends { aliases?: readonly CallAlias<infer P>[] } ? P : never;

/**
 * Every call by its path, as types only: `CallMap['/api/v1/manage/company/detail']` is that
 * call's definition, and an alias path maps to the call it is a path of. Clients look a call's
 * request and response types up by its path without loading its schemas (the console does not
 * ship zod). `allCalls` is deliberately not annotated as `CallDef[]` so that each entry keeps its
 * own types here; it is still usable as one.
 */
export type CallMap = {
  [C in Extract<(typeof allCalls)[number], CallDef> as C['path'] | AliasPathsOf<C>]: C;
};
/** The path of any call in `allCalls`. */
export type CallPath = keyof CallMap;
