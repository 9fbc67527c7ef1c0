export const common = {
  productName: 'Tessera',
  variantName: {
    dev: 'Developer console',
    admin: 'Platform console',
  },
  loading: 'Loading…',
  language: 'Language',
  languageName: {
    en: 'English',
    zh: '中文',
  },
  userMenu: 'Account menu',
  logOut: 'Log Out',
  backHome: 'Back to the dashboard',
};
