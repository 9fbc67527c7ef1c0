/** The dashboard's frame (first load); the panels' own phrases are in ./dashboard-panels.ts. */
export const dashboard = {
  welcome: 'Welcome, {{name}}',
  companyId: 'Company ID',
  copy: 'Copy',
  copied: 'Copied',
  windows: { week: 'Last 7 days', month: 'Last month', threeDays: 'Last three days' },
  window: 'Period',
  system: { version: 'Version {{version}}' },
};
