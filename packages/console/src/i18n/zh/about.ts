import type { about as en } from '../en/about.ts';

export const about = {
  productTitle: '平台',
  version: '版本',
  build: '构建',
  runtime: '运行环境',
  database: '数据库',
  databaseName: {
    postgres: 'PostgreSQL',
    pglite: 'PGlite（内嵌）',
  },
  startedAt: '启动时间',
  licenceTitle: '许可证',
  openLicence: '查看许可证',
  licenceStatus: '状态',
  thirdPartyTitle: '第三方软件',
  thirdPartyHint: '平台随附的软件包及其版本和许可证。',
  searchPlaceholder: '软件包或许可证',
  column: {
    name: '软件包',
    version: '版本',
    license: '许可证',
  },
  packages: '共 {{count}} 个软件包',
} satisfies typeof en;
