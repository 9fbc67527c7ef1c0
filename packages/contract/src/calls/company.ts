import { z } from 'zod';
import { defineCall, emptyRequest, paging } from '../call.ts';
import {
  COMPANY_NAME_MAX_LENGTH,
  languages,
  memberRoles,
  USERNAME_PATTERN,
  uploadLimits,
} from '../constants.ts';

export const companyName = z
  .string({ error: 'company.name_required' })
  .trim()
  .min(1, { error: 'company.name_required' })
  .max(COMPANY_NAME_MAX_LENGTH, { error: 'company.name_too_long' });

export const companyListItem = z.object({
  companyId: z.string(),
  name: z.string(),
  icon: z.string().nullable(),
  isOwner: z.boolean(),
});

export const companyDetail = z.object({
  companyId: z.string(),
  name: z.string(),
  key: z.string(),
  /** The short code of the company's user centre address, /portal/c/<code>/ (never changes). */
  code: z.string(),
  icon: z.string().nullable(),
  /** Written by brand/update only (company/update refuses it). */
  defaultLanguage: z.enum(languages),
  ownerUsername: z.string(),
  createdAt: z.string(),
});

export const companyMember = z.object({
  userId: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  role: z.enum(memberRoles),
  /** The custom console role of a delegated administrator. */
  consoleRole: z.object({ roleId: z.string(), name: z.string() }).nullable(),
  isOwner: z.boolean(),
  createdAt: z.string(),
});

export const myCompanies = defineCall({
  path: '/api/v1/manage/company/my/list',
  summary: 'Companies the signed-in person belongs to',
  tag: 'Company',
  auth: 'session',
  tenant: false,
  aliases: [
    {
      path: '/api/v1/manage/user/company',
      summary:
        "The signed-in person's companies, exactly as company/my/list answers: spec §7 shows no payload for this path, and the one company list it describes (§3: companyId, name, icon, isOwner) is that one",
    },
  ],
  request: emptyRequest,
  response: z.object({ list: z.array(companyListItem).nullable() }),
});

export const createCompany = defineCall({
  path: '/api/v1/manage/company/create',
  summary: 'Create a company; the creator becomes its owner (developer console only)',
  tag: 'Company',
  auth: 'session',
  tenant: false,
  request: z.object({ name: companyName }),
  response: companyDetail,
});

export const companyDetailCall = defineCall({
  path: '/api/v1/manage/company/detail',
  summary: 'The current company',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: 'console',
  aliases: [
    {
      path: '/api/v1/manage/company/dev',
      summary:
        'The current company as the developer console (/dev) shows it, exactly as company/detail answers: spec §7 shows no payload for this path, and the developer console is where companies are created and managed',
    },
  ],
  request: emptyRequest,
  response: companyDetail,
});

export const updateCompany = defineCall({
  path: '/api/v1/manage/company/update',
  summary:
    'Rename the current company. The default language is set by brand/update alone: this call refuses it (company.default_language_on_brand) and still answers it in the company',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({ name: companyName.optional(), defaultLanguage: z.enum(languages).optional() }),
  response: companyDetail,
});

export const iconTypes = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'] as const;

export const updateCompanyIcon = defineCall({
  path: '/api/v1/manage/company/update/icon',
  summary: 'Upload the company logo (multipart field "file"; png, jpeg, svg or webp, at most 1 MiB)',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({}),
  response: z.object({ icon: z.string() }),
  upload: { field: 'file', maxBytes: uploadLimits.iconBytes, types: iconTypes },
});

export const companyMembers = defineCall({
  path: '/api/v1/manage/company/user',
  summary:
    'Members and administrators of the current company, paged and searchable; with adminsOnly, the administrators alone (owner, administrators, external administrators and holders of a console role)',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'read' },
  request: z
    .object({
      ...paging,
      keyword: z.string().trim().max(100).optional(),
      /** Leave out plain members (the company settings' Administrators card). Absent: everyone, as before. */
      adminsOnly: z.boolean().optional(),
    })
    .default({ page: 1, pageSize: 20 }),
  response: z.object({ list: z.array(companyMember), total: z.number().int() }),
});

export const username = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(USERNAME_PATTERN, { error: 'member.username_invalid' });

/** The roles a person can be given (the owner is whoever created the company). */
const givenRole = z.enum(['admin', 'external_admin', 'delegated_admin', 'member']);
const roleWithConsoleRole = <T extends { role: z.infer<typeof givenRole>; consoleRoleId?: string }>(
  input: T,
) => input.role !== 'delegated_admin' || Boolean(input.consoleRoleId);
const consoleRoleRequired = { error: 'console_role.required', path: ['consoleRoleId'] };

export const createCompanyMember = defineCall({
  path: '/api/v1/manage/company/user/create',
  summary:
    'Add an administrator or member to the current company by creating their account (username and email must be free)',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z
    .object({
      username,
      role: givenRole,
      /** The console role a delegated administrator gets (required for that role only). */
      consoleRoleId: z.string().trim().min(1).max(64).optional(),
      password: z.string().max(30).optional(),
      // Checked by the service so that the message names the password rule.
      email: z.email().max(254).optional(),
    })
    .refine(roleWithConsoleRole, consoleRoleRequired),
  response: companyMember,
});

export const setCompanyMemberRole = defineCall({
  path: '/api/v1/manage/company/user/role',
  summary:
    "Change the role of a person of the current company: administrator, external administrator, a custom console role (delegated_admin with consoleRoleId) or back to member. The owner's role never changes",
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z
    .object({
      userId: z.string().min(1).max(64),
      role: givenRole,
      consoleRoleId: z.string().trim().min(1).max(64).optional(),
    })
    .refine(roleWithConsoleRole, consoleRoleRequired),
  response: companyMember,
});

export const deleteCompanyMember = defineCall({
  path: '/api/v1/manage/company/user/del',
  summary: 'Remove a person from the current company',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({ userId: z.string().min(1).max(64) }),
  response: z.object({ userId: z.string() }),
});

export const resetCompanyKey = defineCall({
  path: '/api/v1/manage/company/key/reset',
  summary: 'Replace the company key with a new one; the old key stops working at once',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: emptyRequest,
  response: companyDetail,
});
