/** About (/setting/about). */
export const about = {
  productTitle: 'Platform',
  version: 'Version',
  build: 'Build',
  runtime: 'Runtime',
  database: 'Database',
  databaseName: {
    postgres: 'PostgreSQL',
    pglite: 'PGlite (embedded)',
  },
  startedAt: 'Running since',
  licenceTitle: 'Licence',
  openLicence: 'View the licence',
  licenceStatus: 'Status',
  thirdPartyTitle: 'Third-party software',
  thirdPartyHint: 'Packages shipped with the platform, with their versions and licences.',
  searchPlaceholder: 'Package or licence',
  column: {
    name: 'Package',
    version: 'Version',
    license: 'Licence',
  },
  packages: '{{count}} packages',
};
