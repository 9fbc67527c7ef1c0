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
  ago: '{{time}} ago',
  cancel: 'Cancel',
  previousPage: 'Previous page',
  nextPage: 'Next page',
  pageSize: '{{size}} / page',
  pagination: 'Pages',
  noData: 'No data',
  backHome: 'Back to the dashboard',
};
