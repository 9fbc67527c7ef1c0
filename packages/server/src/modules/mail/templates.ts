import { type CodePurpose, interpolate, type Language } from '@tessera/contract';
import { html, type SafeHtml } from '@tessera/portal';
import type { MailMessage } from './mailer.ts';

/** English is the type; Chinese must satisfy it. `{name}` style values are filled in per mail. */
const en = {
  greeting: 'Hello {name},',
  signInLink: {
    subject: 'Your sign-in link for {company}',
    intro: '{company} sent you a link to sign in to Tessera as {username}.',
    action: 'Sign in',
    validity: 'The link can be used once and expires on {expires}.',
    ignore: 'If you did not expect this email, you can ignore it: nobody can sign in without the link.',
  },
  account: {
    subject: 'Your account at {company}',
    intro: 'You have an account at {company} on Tessera.',
    username: 'Username',
    company: 'Company',
    address: 'Sign-in address',
    password: 'If you do not know your password, ask your administrator to send you a sign-in link.',
  },
  credentials: {
    subject: 'Your sign-in details at {company} were changed',
    password_reset: 'An administrator of {company} set a new password for your account {username}.',
    factors_removed:
      'An administrator of {company} removed second factors (authenticator apps, passkeys or keys) of your account {username}.',
    password_reset_self:
      'The password of your account {username} at {company} was reset with a code sent to your email or phone.',
    when: 'When: {time}',
    sessions: 'You have been signed out everywhere. Sign in again at {url}.',
    unexpected: 'If you did not expect this change, contact your administrator.',
  },
  code: {
    subject: {
      sign_in: 'Your sign-in code',
      second_factor: 'Your verification code',
      password_reset: 'Your password reset code',
      verify_address: 'Confirm your email address',
      radius: 'Your verification code',
    },
    subjectAt: '{subject} for {company}',
    intro: 'Your code is {code}.',
    validity: 'It can be used once, within {minutes} minutes.',
    ignore:
      'If you did not ask for it, ignore this email and do not pass the code on: nobody from the help desk will ask you for it.',
  },
  directoryReset: {
    subject: 'Resetting your password at {company}',
    intro:
      "Someone asked to reset the password of {username}. Your password is managed by your company's directory (LDAP or Active Directory), so it cannot be reset here.",
    action: "Use your directory's own password reset, or ask your IT help desk.",
    ignore: 'If you did not ask, you can ignore this email: nothing was changed.',
  },
  addressChanged: {
    subject: {
      email: 'The email address of your account was changed',
      phone: 'The phone number of your account was changed',
    },
    intro: {
      email: 'The email address of your account {username} was changed to {address}.',
      phone: 'The phone number of your account {username} was changed to {address}.',
    },
    proved:
      'The new address was confirmed with a code sent to it. This address no longer receives codes or notices for the account.',
    phoneProved: 'The new number was confirmed with a code sent to it.',
    when: 'When: {time}',
    unexpected:
      'If you did not make this change, contact your administrator at once: someone may have access to your account.',
  },
  footer: 'This email was sent by Tessera. Please do not reply to it.',
};

const zh: typeof en = {
  greeting: '{name}，您好：',
  signInLink: {
    subject: '{company} 的登录链接',
    intro: '{company} 向您发送了一个登录链接，您可以用它以 {username} 的身份登录 Tessera。',
    action: '登录',
    validity: '此链接只能使用一次，将于 {expires} 失效。',
    ignore: '如果您没有预期收到这封邮件，请忽略它：没有此链接，任何人都无法登录。',
  },
  account: {
    subject: '您在 {company} 的账号',
    intro: '您在 Tessera 上拥有 {company} 的账号。',
    username: '用户名',
    company: '公司',
    address: '登录地址',
    password: '如果您不知道密码，请联系管理员向您发送登录链接。',
  },
  credentials: {
    subject: '您在 {company} 的登录信息已被修改',
    password_reset: '{company} 的管理员为您的账号 {username} 设置了新密码。',
    factors_removed: '{company} 的管理员移除了您的账号 {username} 的第二因素（身份验证器、通行密钥或密钥）。',
    password_reset_self: '您在 {company} 的账号 {username} 的密码已通过发往您邮箱或手机的验证码重置。',
    when: '时间：{time}',
    sessions: '您已在所有地方退出登录。请在 {url} 重新登录。',
    unexpected: '如果这不是您预期的修改，请联系管理员。',
  },
  code: {
    subject: {
      sign_in: '您的登录验证码',
      second_factor: '您的验证码',
      password_reset: '您的重置密码验证码',
      verify_address: '请确认您的邮箱地址',
      radius: '您的验证码',
    },
    subjectAt: '{company}：{subject}',
    intro: '您的验证码是 {code}。',
    validity: '验证码只能使用一次，{minutes} 分钟内有效。',
    ignore: '如果这不是您本人的操作，请忽略此邮件，不要把验证码告诉任何人：管理员和客服不会向您索要验证码。',
  },
  directoryReset: {
    subject: '在 {company} 重置密码',
    intro:
      '有人请求重置 {username} 的密码。您的密码由公司目录（LDAP 或 Active Directory）管理，无法在此重置。',
    action: '请使用目录自身的密码重置功能，或联系公司 IT 支持。',
    ignore: '如果不是您本人的操作，请忽略此邮件：没有任何内容被修改。',
  },
  addressChanged: {
    subject: {
      email: '您账号的邮箱地址已修改',
      phone: '您账号的手机号已修改',
    },
    intro: {
      email: '您的账号 {username} 的邮箱地址已改为 {address}。',
      phone: '您的账号 {username} 的手机号已改为 {address}。',
    },
    proved: '新地址已通过发送到该地址的验证码确认。此地址将不再接收该账号的验证码和通知。',
    phoneProved: '新手机号已通过发送到该号码的验证码确认。',
    when: '时间：{time}',
    unexpected: '如果这不是您本人的操作，请立即联系管理员：可能有人能够访问您的账号。',
  },
  footer: '此邮件由 Tessera 自动发送，请勿回复。',
};

export const mailPhrases: Record<Language, typeof en> = { en, zh };

/** The server does not know the reader's time zone: the time is written in UTC, and says so. */
const formatDate = (date: Date, lang: Language) =>
  `${date.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  })} UTC`;

/** The simple HTML body: every interpolated value goes through the escaping `html` tag. */
function page(lang: Language, title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>${title}</title></head>
<body style="font-family:sans-serif;line-height:1.5;color:#1f2329;max-width:560px">
${body}
<p style="color:#8f959e;font-size:12px">${mailPhrases[lang].footer}</p>
</body></html>`.value;
}

/**
 * A mail in both forms: the greeting and the introduction, the mail's own part (`text` lines,
 * `html` body) and the footer.
 */
function compose(
  lang: Language,
  to: string,
  mail: { subject: string; greeting: string; intro: string; text: string[]; html: SafeHtml },
): MailMessage {
  const text = [mail.greeting, '', mail.intro, '', ...mail.text, '', mailPhrases[lang].footer, ''].join('\n');
  const body = html`<p>${mail.greeting}</p>
<p>${mail.intro}</p>
${mail.html}`;
  return { to, subject: mail.subject, text, html: page(lang, mail.subject, body) };
}

export interface SignInLinkMail {
  name: string;
  username: string;
  company: string;
  link: string;
  expiresAt: Date;
}

export function signInLinkMail(lang: Language, to: string, input: SignInLinkMail): MailMessage {
  const t = mailPhrases[lang];
  const values = {
    name: input.name,
    username: input.username,
    company: input.company,
    expires: formatDate(input.expiresAt, lang),
  };
  return compose(lang, to, {
    subject: interpolate(t.signInLink.subject, values),
    greeting: interpolate(t.greeting, values),
    intro: interpolate(t.signInLink.intro, values),
    text: [input.link, '', interpolate(t.signInLink.validity, values), t.signInLink.ignore],
    html: html`<p><a href="${input.link}" style="display:inline-block;padding:8px 20px;background:#1664ff;color:#fff;border-radius:4px;text-decoration:none">${t.signInLink.action}</a></p>
<p style="word-break:break-all;font-size:13px">${input.link}</p>
<p>${interpolate(t.signInLink.validity, values)}</p>
<p style="color:#646a73">${t.signInLink.ignore}</p>`,
  });
}

export interface AccountMail {
  name: string;
  username: string;
  company: string;
  signInUrl: string;
}

export function accountMail(lang: Language, to: string, input: AccountMail): MailMessage {
  const t = mailPhrases[lang];
  const values = { name: input.name, company: input.company };
  return compose(lang, to, {
    subject: interpolate(t.account.subject, values),
    greeting: interpolate(t.greeting, values),
    intro: interpolate(t.account.intro, values),
    text: [
      `${t.account.username}: ${input.username}`,
      `${t.account.company}: ${input.company}`,
      `${t.account.address}: ${input.signInUrl}`,
      '',
      t.account.password,
    ],
    html: html`<table style="border-collapse:collapse">
<tr><td style="padding:2px 12px 2px 0;color:#646a73">${t.account.username}</td><td><strong>${input.username}</strong></td></tr>
<tr><td style="padding:2px 12px 2px 0;color:#646a73">${t.account.company}</td><td>${input.company}</td></tr>
<tr><td style="padding:2px 12px 2px 0;color:#646a73">${t.account.address}</td><td><a href="${input.signInUrl}">${input.signInUrl}</a></td></tr>
</table>
<p>${t.account.password}</p>`,
  });
}

export interface CredentialsMail {
  name: string;
  username: string;
  company: string;
  /** `password_reset_self`: the person reset a forgotten password with a code (modules/password-reset). */
  change: 'password_reset' | 'factors_removed' | 'password_reset_self';
  signInUrl: string;
  at: Date;
}

/** Tells a person that an administrator changed their credentials. */
export function credentialsMail(lang: Language, to: string, input: CredentialsMail): MailMessage {
  const t = mailPhrases[lang];
  const values = {
    name: input.name,
    username: input.username,
    company: input.company,
    time: formatDate(input.at, lang),
    url: input.signInUrl,
  };
  const lines = [
    interpolate(t.credentials.when, values),
    interpolate(t.credentials.sessions, values),
    t.credentials.unexpected,
  ];
  return compose(lang, to, {
    subject: interpolate(t.credentials.subject, values),
    greeting: interpolate(t.greeting, values),
    intro: interpolate(t.credentials[input.change], values),
    text: lines,
    html: html`${lines.map((line) => html`<p>${line}</p>`)}`,
  });
}

/** Tells a directory person who asked to reset their password that their directory resets it. */
export function directoryResetMail(
  lang: Language,
  to: string,
  input: { name: string; username: string; company: string },
): MailMessage {
  const t = mailPhrases[lang];
  const lines = [t.directoryReset.action, t.directoryReset.ignore];
  return compose(lang, to, {
    subject: interpolate(t.directoryReset.subject, input),
    greeting: interpolate(t.greeting, input),
    intro: interpolate(t.directoryReset.intro, input),
    text: lines,
    html: html`${lines.map((line) => html`<p>${line}</p>`)}`,
  });
}

export interface CodeMail {
  code: string;
  minutes: number;
  purpose: CodePurpose;
  /** The company's name, when the code is for one company's sign-in. */
  company?: string;
}

/** A one-time code. The code leads the subject-free body so a phone's notification shows it. */
export function codeMail(lang: Language, to: string, input: CodeMail): MailMessage {
  const t = mailPhrases[lang].code;
  const subject = input.company
    ? interpolate(t.subjectAt, { subject: t.subject[input.purpose], company: input.company })
    : t.subject[input.purpose];
  const values = { code: input.code, minutes: input.minutes };
  const lines = [interpolate(t.intro, values), interpolate(t.validity, values), t.ignore];
  const text = [...lines, '', mailPhrases[lang].footer, ''].join('\n');
  const body = html`<p style="font-size:24px;letter-spacing:4px"><strong>${input.code}</strong></p>
${lines.map((line) => html`<p>${line}</p>`)}`;
  return { to, subject, text, html: page(lang, subject, body) };
}

export interface AddressChangedMail {
  name: string;
  username: string;
  /** Which of the person's addresses changed. */
  field: 'email' | 'phone';
  /** The new address, partly hidden (the mail may reach someone who no longer owns the old one). */
  address: string;
  at: Date;
}

/**
 * Tells the old address that the person changed their email (or, to their email, their phone)
 * in the user centre.
 */
export function addressChangedMail(lang: Language, to: string, input: AddressChangedMail): MailMessage {
  const t = mailPhrases[lang];
  const values = {
    name: input.name,
    username: input.username,
    address: input.address,
    time: formatDate(input.at, lang),
  };
  const lines = [
    input.field === 'email' ? t.addressChanged.proved : t.addressChanged.phoneProved,
    interpolate(t.addressChanged.when, values),
    t.addressChanged.unexpected,
  ];
  return compose(lang, to, {
    subject: t.addressChanged.subject[input.field],
    greeting: interpolate(t.greeting, values),
    intro: interpolate(t.addressChanged.intro[input.field], values),
    text: lines,
    html: html`${lines.map((line) => html`<p>${line}</p>`)}`,
  });
}
