import type { license as en } from '../en/license.ts';

export const license = {
  codeTitle: '应用码',
  codeHint: '供应商根据此应用码签发许可证。请将应用码发送给供应商，然后导入收到的许可证文件。',
  detailTitle: '许可证',
  licenseId: '许可证编号',
  customer: '客户',
  issuedAt: '签发时间',
  importedAt: '导入时间',
  noLicence: '尚未导入许可证，当前使用免费额度。',
  column: {
    module: '功能',
    total: '总数',
    remaining: '剩余',
    expiresAt: '到期时间',
    status: '状态',
    daysLeft: '剩余天数',
  },
  module: {
    user: '用户数',
    app: '应用数',
    mfa: '多因素认证',
    identitySource: '身份源',
    radius: 'RADIUS',
    ca: 'CA 证书',
    device: '设备管理',
  },
  status: {
    notActive: '未激活',
    normal: '正常',
    expired: '已过期',
  },
  importLicence: '导入许可证',
  importHint: '供应商为此应用码签发的许可证文件（.lic）',
  imported: '许可证已导入',
  fileEmpty: '文件为空',
  fileTooLarge: '文件过大，不是许可证文件',
} satisfies typeof en;
