import type { layout as en } from '../en/layout.ts';

export const layout = {
  menu: '菜单',
  expandMenu: '展开菜单',
  collapseMenu: '收起菜单',
  breadcrumb: '当前位置',
  tabs: '已打开的页面',
  pageLoading: '页面加载中',
  fullscreen: '全屏',
  exitFullscreen: '退出全屏',
  fullscreenUnsupported: '您的浏览器不支持全屏',
  versionInfo: '版本信息',
  version: '版本',
  build: '构建',
  licence: '许可证',
  notActive: '未激活',
  expiresAt: '{{date}} 到期',
  expiredAt: '已于 {{date}} 过期',
  daysLeft: '剩余天数：{{count}}',
  unknown: '未知',
  profile: '个人中心',
  closeTab: '关闭',
} satisfies typeof en;
