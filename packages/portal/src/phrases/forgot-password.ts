/** Resetting a forgotten password with a one-time code. */

export const forgotPasswordEn = {
  link: 'Forgot password?',
  title: 'Reset your password',
  intro:
    'Type your username, email or phone. If it names an account, a 6-digit code goes to its email (or its phone by text message).',
  identifier: 'Username, email or phone',
  submit: 'Send the code',
  back: 'Back to sign in',
  directoryHint:
    "People whose password comes from their company's directory (LDAP or Active Directory) reset it there: they get an email saying so instead of a code.",
  codeTitle: 'Enter the code',
  codeSent:
    'If {identifier} names an account, a 6-digit code is on its way to its email or phone. It is valid for 10 minutes, once, and only on this page.',
  code: 'Code',
  verify: 'Continue',
  resend: 'Send a new code',
  resendHint: 'No code? Check the spam folder, or ask for a new one after a minute.',
  passwordTitle: 'Choose a new password',
  passwordIntro:
    'Choose the new password of {username}. Every session of the account ends; a second factor is still asked at the next sign-in.',
  rules: 'The new password must:',
  ruleLength: 'have at least {min} characters',
  ruleClasses: 'contain {classes}',
  ruleUsername: 'not contain the username',
  ruleCommon: 'not be a commonly used password',
  newPassword: 'New password',
  confirm: 'Confirm the new password',
  setPassword: 'Set the password',
  done: 'Your password has been changed and every session of the account has ended. Sign in with the new password.',
  notOffered: 'Resetting a password here is not available. Please contact your administrator.',
  identifierMissing: 'Please enter your username, email or phone',
  codeMissing: 'Please enter the 6-digit code',
  expired: 'This reset has expired or was already used. Please start again.',
  locked: 'Too many wrong codes or passwords: this account is locked until {until}.',
  throttled: 'Too many attempts. Please try again later.',
} as const;

export const forgotPasswordZh = {
  link: '忘记密码？',
  title: '重置密码',
  intro:
    '请输入用户名、邮箱或手机号。如果对应某个账号，我们会向其邮箱（或通过短信向其手机）发送 6 位验证码。',
  identifier: '用户名、邮箱或手机号',
  submit: '发送验证码',
  back: '返回登录',
  directoryHint:
    '密码来自公司目录（LDAP 或 Active Directory）的人员请在目录中重置密码：他们会收到一封说明邮件，而不是验证码。',
  codeTitle: '输入验证码',
  codeSent:
    '如果 {identifier} 对应某个账号，6 位验证码已发往其邮箱或手机。验证码 10 分钟内有效，只能使用一次，且只能在本页面使用。',
  code: '验证码',
  verify: '继续',
  resend: '重新发送验证码',
  resendHint: '没有收到？请检查垃圾邮件，或一分钟后重新获取。',
  passwordTitle: '设置新密码',
  passwordIntro: '请为 {username} 设置新密码。该账号的所有会话都会结束；下次登录时仍需第二因素验证。',
  rules: '新密码必须：',
  ruleLength: '至少 {min} 个字符',
  ruleClasses: '包含{classes}',
  ruleUsername: '不包含用户名',
  ruleCommon: '不是常见密码',
  newPassword: '新密码',
  confirm: '确认新密码',
  setPassword: '设置密码',
  done: '密码已修改，该账号的所有会话均已结束。请使用新密码登录。',
  notOffered: '此处无法重置密码，请联系管理员。',
  identifierMissing: '请输入用户名、邮箱或手机号',
  codeMissing: '请输入 6 位验证码',
  expired: '此次重置已过期或已使用，请重新开始。',
  locked: '错误的验证码或密码次数过多：此账号已锁定至 {until}。',
  throttled: '尝试次数过多，请稍后再试。',
} as const;
