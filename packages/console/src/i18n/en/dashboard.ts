/** The dashboard's frame (first load); the panels' own phrases are in ./dashboard-panels.ts. */
export const dashboard = {
  welcome: 'Welcome, {{name}}',
  companyId: 'Company ID',
  copy: 'Copy',
  copied: 'Copied',
  windows: { week: 'Last 7 days', month: 'Last month', three_days: 'Last three days' },
  window: 'Period',
  users: { title: 'Users' },
  mfa: { title: 'MFA' },
  trend: { title: 'Sign-in trend' },
  hotspot: { title: 'Sign-in hotspots' },
  recent: { title: 'Recent sign-ins' },
  apps: { title: 'Applications' },
  appTrend: { title: 'Application sign-ins' },
  failures: { title: 'Failures' },
  newFailures: { title: 'New failures' },
  system: { version: 'Version {{version}}' },
};
