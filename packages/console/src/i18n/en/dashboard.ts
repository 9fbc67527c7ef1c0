export const dashboard = {
  welcome: 'Welcome, {{name}}',
  intro: 'You are managing this company.',
  companyName: 'Company name',
  companyId: 'Company ID',
  owner: 'Owner',
  createdAt: 'Created',
  defaultLanguage: 'Default language',
  yourRole: 'Your role',
  roleOwner: 'Owner',
  roleAdministrator: 'Administrator',
  copy: 'Copy',
  copied: 'Copied',
};
