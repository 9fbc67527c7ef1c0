/** One-time codes by email or SMS: signing in with one, and as a second factor (code-pages.ts). */

export const codesEn = {
  signIn: { email: 'Sign in with an email code', sms: 'Sign in with an SMS code' } as Record<string, string>,
  requestIntro: {
    email: 'Type your username, email or phone: a 6-digit code goes to your verified email address.',
    sms: 'Type your username, email or phone: a 6-digit code goes to your verified phone by SMS.',
  } as Record<string, string>,
  send: 'Send the code',
  enterTitle: 'Enter the code',
  sent: {
    email:
      'If {identifier} has a verified email address that may sign in this way, a 6-digit code was sent there. It is valid for {minutes} minutes.',
    sms: 'If {identifier} has a verified phone that may sign in this way, a 6-digit code was sent there by SMS. It is valid for {minutes} minutes.',
  } as Record<string, string>,
  code: '6-digit code',
  submit: 'Sign in',
  resend: 'Send a new code',
  resendAfter: 'You can ask for a new code {seconds} s after this one was sent.',
  notOffered: 'Signing in with this kind of code is not offered here.',
  usePassword: 'Sign in with a password instead',
  sendFactor: {
    email: 'Send a code to {address}',
    sms: 'Send a code by SMS to {address}',
  } as Record<string, string>,
  factorSent: 'A 6-digit code was sent to {address}. It is valid for {minutes} minutes.',
  factorOr: 'or receive a code',
} as const;

export const codesZh = {
  signIn: { email: '使用邮箱验证码登录', sms: '使用短信验证码登录' } as Record<string, string>,
  requestIntro: {
    email: '请输入用户名、邮箱或手机号：6 位验证码将发送到您已验证的邮箱。',
    sms: '请输入用户名、邮箱或手机号：6 位验证码将通过短信发送到您已验证的手机。',
  } as Record<string, string>,
  send: '发送验证码',
  enterTitle: '输入验证码',
  sent: {
    email:
      '如果 {identifier} 有可用于此方式登录的已验证邮箱，6 位验证码已发送到该邮箱，{minutes} 分钟内有效。',
    sms: '如果 {identifier} 有可用于此方式登录的已验证手机，6 位验证码已通过短信发送，{minutes} 分钟内有效。',
  } as Record<string, string>,
  code: '6 位验证码',
  submit: '登录',
  resend: '重新发送验证码',
  resendAfter: '本验证码发送 {seconds} 秒后可重新获取。',
  notOffered: '此处未提供这种验证码登录方式。',
  usePassword: '改用密码登录',
  sendFactor: {
    email: '发送验证码到 {address}',
    sms: '通过短信发送验证码到 {address}',
  } as Record<string, string>,
  factorSent: '6 位验证码已发送到 {address}，{minutes} 分钟内有效。',
  factorOr: '或接收验证码',
} as const;
