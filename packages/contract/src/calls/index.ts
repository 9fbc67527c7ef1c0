import type { CallAlias, CallDef } from '../call.ts';
import * as app from './app.ts';
import * as ca from './ca.ts';
import * as company from './company.ts';
import * as department from './department.ts';
import * as license from './license.ts';
import * as quota from './quota.ts';
import * as radius from './radius.ts';
import * as safety from './safety.ts';
import * as session from './session.ts';
import * as user from './user.ts';

export { app, ca, company, department, license, quota, radius, safety, session, user };

/** Every call of the API, in one list: the server binds these and nothing else. */
export const allCalls = [
  session.ssoConfig,
  ...Object.values(session.oidcToken),
  ...Object.values(session.oidcRefresh),
  ...Object.values(session.logout),
  company.myCompanies,
  company.createCompany,
  company.companyDetailCall,
  company.updateCompany,
  company.updateCompanyIcon,
  company.companyMembers,
  company.createCompanyMember,
  company.deleteCompanyMember,
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
  app.listApiAccounts,
  app.createApiAccount,
  app.updateApiAccount,
  app.resetApiAccountSecret,
  app.deleteApiAccount,
  app.appFormConfig,
  app.updateAppFormConfig,
  safety.bindUserSignatureFactor,
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
