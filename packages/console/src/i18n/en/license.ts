/** Licence (/setting/license), also used by the about page (its route loads this namespace too). */
export const license = {
  codeTitle: 'Application code',
  codeHint:
    'The vendor issues a licence for this code. Send the code to your vendor, then import the licence file you receive.',
  detailTitle: 'Licence',
  licenseId: 'Licence ID',
  customer: 'Customer',
  issuedAt: 'Issued',
  importedAt: 'Imported',
  noLicence: 'No licence imported yet: the free allowance applies.',
  column: {
    module: 'Function',
    total: 'Total',
    remaining: 'Remaining',
    expiresAt: 'Expires',
    status: 'Status',
    daysLeft: 'Days left',
  },
  module: {
    user: 'Users',
    app: 'Applications',
    mfa: 'MFA',
    identitySource: 'Identity sources',
    radius: 'RADIUS',
    ca: 'CA certificates',
    device: 'Device management',
  },
  status: {
    notActive: 'Not Active',
    normal: 'Normal',
    expired: 'Expired',
  },
  importLicence: 'Import licence',
  importHint: 'A licence file (.lic) issued by the vendor for this application code',
  imported: 'Licence imported',
  fileEmpty: 'The file is empty',
  fileTooLarge: 'The file is too large to be a licence',
};
