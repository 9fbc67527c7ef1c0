import type { Phrases } from '../en/index.ts';

/** 应用：CAS 应用的 CAS 标签页（服务地址规则、属性、票据、登出）。 */
export const appsCas = {
  title: 'CAS 服务',
  intro: '应用在下方的 CAS 服务器登录用户（Apereo CAS 协议 3.0）。只为规则允许的服务地址签发票据。',
  serverUrl: 'CAS 服务器地址',
  serverUrlHint: '将此地址填入应用；/login、/p3/serviceValidate 等由应用自行拼接。',
  copy: '复制',
  copied: '已复制',
  patterns: '服务地址规则',
  patternsHint:
    '精确：整个地址。前缀：该地址及其下的地址（…/app 允许 …/app/home 和 …/app?x，不允许 …/application）。正则表达式必须以 ^ 开头、以 $ 结尾。',
  kind: {
    exact: '精确',
    prefix: '前缀',
    regex: '正则表达式',
  },
  kindLabel: '匹配方式',
  patternLabel: '服务地址规则',
  addPattern: '添加规则',
  removePattern: '删除规则',
  patternRequired: '请至少添加一个服务地址规则',
  problem: {
    url: '请输入完整的 http 或 https 地址',
    regex_syntax: '不是有效的正则表达式',
    regex_anchors: '正则表达式必须以 ^ 开头、以 $ 结尾',
    regex_unsafe:
      '该正则表达式匹配可能耗时过长：重复的分组内不得含重复或分支，不得使用反向引用或环视，开放式重复最多两处',
  },
  attributes: '下发的属性',
  attributesHint: '在 /p3/serviceValidate 和 /p3/proxyValidate（CAS 3.0）中下发；CAS 用户始终是用户名。',
  attribute: {
    username: '用户名',
    name: '姓名',
    email: '邮箱',
    phone: '手机号',
    departments: '部门',
    permissions: '权限',
  },
  ticketTtl: '票据有效期',
  ticketTtlHint: '1 到 300 秒：应用须在此时间内校验服务票据。',
  seconds: '秒',
  allowProxy: '允许代理',
  allowProxyHint: '应用可在规则允许的 https 回调地址获取代理授权票据，以该用户身份访问其他 CAS 服务。',
  sloEnabled: '单点登出',
  sloEnabledHint: '用户退出 Tessera、或管理员结束其会话时，向应用发送 logoutRequest。',
  sloUrl: '单点登出地址',
  sloUrlHint: 'logoutRequest 的发送地址；留空则发往每张票据的服务地址。须为规则允许的地址。',
  sloUrlInvalid: '单点登出地址必须是服务地址规则允许的地址',
  save: '保存',
} satisfies Phrases['apps']['cas'];
