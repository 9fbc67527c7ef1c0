import type { CallDef } from '../call.ts';
import * as company from './company.ts';
import * as license from './license.ts';
import * as session from './session.ts';

export { company, license, session };

/** Every call of the API, in one list: the server binds these and nothing else. */
export const allCalls: CallDef[] = [
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
];
