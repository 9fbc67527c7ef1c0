import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';

/**
 * Text messages (one-time codes by SMS). The platform administrator configures the provider
 * (Alibaba Cloud SMS or Tencent Cloud SMS) with its access key, sign name and code template, and
 * sends a test message; a company may set its own sign name and template, approved under the
 * platform's provider account, so that its people see the company's name.
 */

export const smsProviders = ['aliyun', 'tencent'] as const;
export type SmsProvider = (typeof smsProviders)[number];

export const smsLimits = {
  fieldMax: 128,
  secretMax: 256,
  urlMax: 512,
  phoneMax: 32,
} as const;

const text = (max: number, required: 'sms.field_required' | null) =>
  z
    .string({ error: 'sms.field_required' })
    .trim()
    .max(max, { error: 'sms.field_too_long' })
    .refine((value) => required === null || value.length > 0, { error: 'sms.field_required' });

/** Empty means "none" (the platform's, or the provider's documented address). */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: 'sms.field_too_long' })
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .default(null);

/** The platform's provider as the console shows it: never the secret, only whether one is stored. */
export const platformSmsSettings = z.object({
  /** Null: no provider (codes cannot go by SMS). */
  provider: z.enum(smsProviders).nullable(),
  accessKeyId: z.string(),
  secretSet: z.boolean(),
  /** Alibaba: RegionId (cn-hangzhou); Tencent: X-TC-Region (ap-guangzhou). */
  region: z.string(),
  /** Tencent's SmsSdkAppId; empty for Alibaba. */
  appId: z.string(),
  signName: z.string(),
  /** Alibaba's TemplateCode (SMS_123456789) or Tencent's TemplateId (1234567). */
  templateId: z.string(),
  /** Whether the template has a second variable for the minutes the code lives. */
  templateMinutes: z.boolean(),
  /** The API's base address; null: the provider's documented one. */
  baseUrl: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export const platformSms = defineCall({
  path: '/api/v1/manage/platform/sms',
  summary: "The installation's SMS provider settings, without the secret (platform administrators)",
  tag: 'Platform',
  auth: 'session',
  tenant: false,
  request: emptyRequest,
  response: platformSmsSettings,
});

export const updatePlatformSms = defineCall({
  path: '/api/v1/manage/platform/sms/update',
  summary:
    'Set the SMS provider, its access key (the secret is sealed at rest and kept when left empty), region, sign name and code template; provider null turns SMS off (platform administrators; audited)',
  tag: 'Platform',
  auth: 'session',
  tenant: false,
  request: z.object({
    provider: z.enum(smsProviders, { error: 'sms.provider_invalid' }).nullable(),
    accessKeyId: text(smsLimits.fieldMax, null).default(''),
    /** Empty keeps the stored secret. */
    accessKeySecret: z.string().max(smsLimits.secretMax, { error: 'sms.field_too_long' }).default(''),
    region: text(smsLimits.fieldMax, null).default(''),
    appId: text(smsLimits.fieldMax, null).default(''),
    signName: text(smsLimits.fieldMax, null).default(''),
    templateId: text(smsLimits.fieldMax, null).default(''),
    templateMinutes: z.boolean().default(false),
    baseUrl: optionalText(smsLimits.urlMax),
  }),
  response: platformSmsSettings,
});

export const testPlatformSms = defineCall({
  path: '/api/v1/manage/platform/sms/test',
  summary:
    "Send a test code message to a phone number through the stored provider settings (platform administrators); a refusal names the provider's error code",
  tag: 'Platform',
  auth: 'session',
  tenant: false,
  request: z.object({
    phone: z
      .string({ error: 'sms.phone_invalid' })
      .trim()
      .regex(/^\+?\d[\d\s-]{4,24}$/, { error: 'sms.phone_invalid' })
      .transform((phone) => phone.replace(/[\s-]/g, '')),
  }),
  response: z.object({
    /** The provider's id of the accepted message (Alibaba BizId, Tencent SerialNo). */
    messageId: z.string(),
  }),
});

/** A company's own sign name and template, and what applies when it has none. */
export const companySmsSettings = z.object({
  /** Whether the platform has a provider: without one, nothing is sent whatever is set here. */
  platformConfigured: z.boolean(),
  provider: z.enum(smsProviders).nullable(),
  signName: z.string().nullable(),
  templateId: z.string().nullable(),
  /** What the company's messages use when it sets nothing. */
  platformSignName: z.string(),
  platformTemplateId: z.string(),
});

export const companySms = defineCall({
  path: '/api/v1/manage/company/sms/conf',
  summary: "The company's own SMS sign name and code template, and the platform's defaults",
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'read' },
  request: emptyRequest,
  response: companySmsSettings,
});

export const updateCompanySms = defineCall({
  path: '/api/v1/manage/company/sms/update',
  summary:
    "Set the company's own SMS sign name and code template (approved under the platform's provider account); empty uses the platform's (audited)",
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({
    signName: optionalText(smsLimits.fieldMax),
    templateId: optionalText(smsLimits.fieldMax),
  }),
  response: companySmsSettings,
});
