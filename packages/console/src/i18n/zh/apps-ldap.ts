import type { Phrases } from '../en/index.ts';

/** 应用：LDAP 应用的 LDAP 标签页（服务账号、基准 DN、第二因素）。 */
export const appsLdap = {
  title: 'LDAP 目录',
  intro:
    '应用使用下方的服务账号从 Tessera 的只读 LDAP 目录读取本企业的人员，人员以自己的用户名和密码登录应用。服务账号只能看到分配给该应用的人员（见“访问”标签页）。',
  bindDn: '服务账号绑定 DN',
  baseDn: '基准 DN',
  baseDnHint: '人员位于 ou=people 下，部门和权限角色位于 ou=groups 下。',
  secret: '服务账号密钥',
  secretSet: '设置于 {{when}}；密钥不会再次显示。',
  secretNotSet: '尚未生成：生成密钥之前，应用无法绑定，也不能启用。',
  makeSecret: '生成密钥',
  rotateSecret: '更换密钥',
  rotateTitle: '更换服务账号密钥？',
  rotateContent: '当前密钥立即失效，应用需要使用新密钥。',
  secretTitle: '服务账号密钥',
  allowPasswordWithMfa: '要求第二因素时允许密码绑定',
  allowPasswordWithMfaHint:
    'LDAP 绑定无法携带第二因素。关闭：企业要求第二因素的人员无法登录此应用。开启：在此应用中仅凭密码即可登录。',
  posix: 'POSIX 账号（Linux 主机）',
  posixHint:
    '开启：人员同时以 posixAccount 提供（uidNumber、个人私有组的 gidNumber、主目录 /home/<用户名>、Shell /bin/bash），组以 posixGroup 提供（gidNumber、memberUid），供 sssd 和 nslcd 使用。编号从 10000 起，每个人员和组分配一次，永不改变。',
  saved: '已保存',
  copy: '复制',
} satisfies Phrases['apps']['ldap'];
