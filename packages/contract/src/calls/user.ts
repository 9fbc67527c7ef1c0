import { z } from 'zod';
import { defineCall, downloadFile, emptyRequest, entityId, optionalText, paging } from '../call.ts';
import {
  importLimits,
  importTaskStatuses,
  languages,
  memberRoles,
  passwordClasses,
  photoLimits,
  photoTypes,
  userLimits,
  userSortFields,
  userStatuses,
} from '../constants.ts';
import { username } from './company.ts';

/**
 * Users of a company (spec §3 User, §7 Users). A person has one account (what they sign in
 * with) and one user record in each company they belong to. A company manages the profile and
 * password of the accounts it created ("managed" users); of a person who came from elsewhere
 * (the developer who created the company, for instance) it manages only the record: status,
 * departments, removal.
 */

const id = entityId;

export const email = z
  .string()
  .trim()
  .max(userLimits.emailMax)
  .transform((value) => (value === '' ? null : value.toLowerCase()))
  .pipe(z.email({ error: 'user.email_invalid' }).nullable())
  .nullable()
  .optional();

/** Digits with an optional leading +; spaces and hyphens are dropped. */
export const phone = z
  .string()
  .trim()
  .max(userLimits.phoneMax + 10)
  .transform((value) => (value === '' ? null : value.replace(/[\s-]/g, '')))
  .pipe(
    z
      .string()
      .regex(/^\+?[0-9]{5,20}$/, { error: 'user.phone_invalid' })
      .nullable(),
  )
  .nullable()
  .optional();

const password = z.string().min(1, { error: 'user.password_required' }).max(userLimits.passwordMax);

type Passwords = { password: string; confirmPassword: string };

/** Spec §5: the two passwords must match ('Entered Passwords Differ'). */
const withConfirmation = <T extends z.ZodRawShape>(shape: T) =>
  z
    .object({ ...shape, password, confirmPassword: z.string().max(userLimits.passwordMax) })
    .refine((value) => (value as Passwords).password === (value as Passwords).confirmPassword, {
      error: 'user.password_mismatch',
      path: ['confirmPassword'],
    });

export const departmentRef = z.object({ departmentId: z.string(), name: z.string() });

export const user = z.object({
  userId: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  nickname: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  /** When the person proved the email theirs with a code (null: not verified); a change clears it. */
  emailVerifiedAt: z.string().nullable(),
  /** The same for the phone. */
  phoneVerifiedAt: z.string().nullable(),
  photo: z.string().nullable(),
  status: z.enum(userStatuses),
  role: z.enum(memberRoles),
  isOwner: z.boolean(),
  /** The company created this account: it manages the profile and the password. */
  managed: z.boolean(),
  mustChangePassword: z.boolean(),
  loginCount: z.number().int(),
  lastLoginAt: z.string().nullable(),
  /** Failures since the last successful sign-in. */
  failedCount: z.number().int(),
  lastFailedAt: z.string().nullable(),
  /** Until when an automatic lock-out lasts, if one is in force. */
  lockedUntil: z.string().nullable(),
  departments: z.array(departmentRef),
  createdAt: z.string(),
});

export const userFilter = z.object({
  keyword: z.string().trim().max(userLimits.keywordMax).optional(),
  status: z.enum(userStatuses).optional(),
  departmentId: id.optional(),
  /** With departmentId: also people of its sub departments (default true). */
  includeSubDepartments: z.boolean().default(true),
});

export const listUsers = defineCall({
  path: '/api/v1/manage/user/list',
  summary: 'Users of the current company: paged, sorted, searched by name/username/email/phone, filtered',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user', 'department', 'authority', 'app'], level: 'read' },
  apiAccess: true,
  request: userFilter
    .extend({
      ...paging,
      sortBy: z.enum(userSortFields).default('createdAt'),
      sortOrder: z.enum(['asc', 'desc']).default('desc'),
    })
    .default({ page: 1, pageSize: 20, includeSubDepartments: true, sortBy: 'createdAt', sortOrder: 'desc' }),
  response: z.object({ list: z.array(user), total: z.number().int() }),
});

const profile = {
  name: optionalText(userLimits.nameMax),
  nickname: optionalText(userLimits.nicknameMax),
  email,
  phone,
};

export const createUser = defineCall({
  path: '/api/v1/manage/user/create',
  summary:
    'Create a user of the current company (a new account the company manages), with a password or invited by email',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  apiAccess: true,
  request: z
    .object({
      username,
      ...profile,
      password: z.string().max(userLimits.passwordMax),
      confirmPassword: z.string().max(userLimits.passwordMax),
      /**
       * Instead of a password: the person is mailed a sign-in link (send-login-url) and chooses
       * their own password there. Needs mail on the platform and an email address.
       */
      invite: z.boolean().default(false),
      departmentIds: z.array(id).max(50).optional(),
      /** The sign-in page makes the person choose a new password first (default true). */
      mustChangePassword: z.boolean().default(true),
    })
    .superRefine((value, context) => {
      if (value.invite) {
        if (value.password || value.confirmPassword)
          context.addIssue({ code: 'custom', path: ['password'], message: 'user.invite_password' });
      } else if (!value.password)
        context.addIssue({ code: 'custom', path: ['password'], message: 'user.password_required' });
      else if (value.password !== value.confirmPassword)
        context.addIssue({ code: 'custom', path: ['confirmPassword'], message: 'user.password_mismatch' });
    }),
  response: user.extend({
    /** Where the invitation went; null when one was asked for and could not be sent (send it again from the list). */
    invitedTo: z.string().nullable().optional(),
  }),
});

/** The company's password rules (its safety settings) as the forms that set a password show them. */
export const passwordRulesCall = defineCall({
  path: '/api/v1/manage/user/password-rules',
  summary: "The company's password rules, shown by the forms that set a password before they are sent",
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  request: emptyRequest,
  response: z.object({
    minLength: z.number().int(),
    maxLength: z.number().int(),
    classes: z.array(z.enum(passwordClasses)),
    forbidUsername: z.boolean(),
    forbidCommon: z.boolean(),
  }),
});

export const createDevUser = defineCall({
  path: '/api/v1/manage/user/admin/create-dev-user',
  summary:
    'Create a developer account, who can sign in to the developer console and create companies (platform administrators, admin console)',
  tag: 'User',
  auth: 'session',
  tenant: false,
  request: withConfirmation({ username, ...profile }),
  response: z.object({ userId: z.string(), username: z.string() }),
});

export const updateUser = defineCall({
  path: '/api/v1/manage/user/update',
  summary: 'Change a user: profile (managed users only), departments, forced password change',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  apiAccess: true,
  request: z.object({
    userId: id,
    ...profile,
    departmentIds: z.array(id).max(50).optional(),
    mustChangePassword: z.boolean().optional(),
  }),
  response: user,
});

export const deleteUser = defineCall({
  path: '/api/v1/manage/user/del',
  summary: 'Remove a user from the company; a managed account that belongs nowhere else is deleted',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  apiAccess: true,
  request: z.object({ userId: id }),
  response: z.object({ userId: z.string() }),
});

export const userDetail = defineCall({
  path: '/api/v1/manage/user/detail',
  summary: 'One user of the current company',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  apiAccess: true,
  request: z.object({ userId: id }),
  response: user,
});

export const setUserStatus = defineCall({
  path: '/api/v1/manage/user/status',
  summary: 'Enable, disable or lock a user; enabling also lifts an automatic lock-out',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  apiAccess: true,
  request: z.object({ userId: id, status: z.enum(userStatuses) }),
  response: user,
});

export const resetUserPassword = defineCall({
  path: '/api/v1/manage/user/password/reset',
  summary: "Set a managed user's password (the company's password rules apply); ends their sessions",
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage', ability: 'resetCredentials' },
  request: withConfirmation({ userId: id, mustChangePassword: z.boolean().default(true) }),
  response: user,
});

export const uploadUserPhoto = defineCall({
  path: '/api/v1/manage/user/photo',
  summary:
    'Upload a managed user\'s photo (multipart: text field "userId", then file "file"; png, jpeg, gif or webp, at most 2 MiB)',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  request: z.object({ userId: id }),
  response: user,
  upload: { field: 'file', maxBytes: photoLimits.bytes, types: photoTypes },
});

export const sendSignInLink = defineCall({
  path: '/api/v1/manage/user/send-login-url',
  summary: 'Email the user a single-use sign-in link (24 hours)',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage', ability: 'resetCredentials' },
  request: z.object({ userId: id }),
  response: z.object({ sentTo: z.string(), expiresAt: z.string() }),
});

export const sendAccountEmail = defineCall({
  path: '/api/v1/manage/user/email',
  summary: 'Email the user their account: username, company and the sign-in address',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage', ability: 'resetCredentials' },
  request: z.object({ userId: id }),
  response: z.object({ sentTo: z.string() }),
});

export const loginRecord = z.object({
  time: z.string(),
  result: z.enum(['success', 'failure']),
  cause: z.string().nullable(),
  /** Localised text of the cause. */
  causeText: z.string().nullable(),
  clientId: z.string().nullable(),
  /** The name of the company's application signed in to, where the client id is one of its applications. */
  appName: z.string().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
});

export const userLog = defineCall({
  path: '/api/v1/manage/user/log',
  summary: "A user's recent sign-ins, newest first",
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  request: z.object({ userId: id, ...paging }),
  response: z.object({ list: z.array(loginRecord), total: z.number().int() }),
});

export const selfDetails = defineCall({
  path: '/api/v1/manage/user/self-details',
  summary: 'The signed-in person: nickname and photo for the top bar',
  tag: 'User',
  auth: 'session',
  tenant: false,
  request: emptyRequest,
  response: z.object({
    userId: z.string(),
    username: z.string(),
    name: z.string().nullable(),
    nickname: z.string().nullable(),
    photo: z.string().nullable(),
  }),
});

export const importRowError = z.object({
  /** Row number as shown by the spreadsheet program (the header is row 1). */
  row: z.number().int(),
  field: z.string().nullable(),
  message: z.string(),
});

export const importTask = z.object({
  taskId: z.string(),
  status: z.enum(importTaskStatuses),
  /** While the task waits for its turn: its place among the company's unfinished imports (1: next). */
  queuePosition: z.number().int().nullable(),
  fileName: z.string().nullable(),
  total: z.number().int(),
  created: z.number().int(),
  errors: z.array(importRowError),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

export const createImportTask = defineCall({
  path: '/api/v1/manage/user/batch-task/create',
  summary: 'Start importing users from an .xlsx file (multipart field "file"); all rows or none are stored',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  request: z.object({}),
  response: z.object({ taskId: z.string() }),
  upload: { field: 'file', maxBytes: importLimits.fileBytes, types: [importLimits.xlsxType] },
});

export const importTaskCall = defineCall({
  path: '/api/v1/manage/user/batch-task',
  summary:
    'An import task: importing (with its place in the queue while it waits), success, or failed with the reason of every refused row',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  request: z.object({ taskId: id }),
  response: importTask,
});

export const importTemplate = defineCall({
  path: '/api/v1/manage/user/batch-task/template',
  summary: 'The .xlsx import template, with headers and an example row in the chosen language',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  request: z.object({ language: z.enum(languages).default('en') }).default({ language: 'en' }),
  response: downloadFile,
  download: { contentType: importLimits.xlsxType },
});

export const exportUsers = defineCall({
  path: '/api/v1/manage/user/export',
  summary:
    'The (filtered) user list as .xlsx; cells that a spreadsheet would run as formulas are neutralised',
  tag: 'User',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  request: userFilter
    .extend({ language: z.enum(languages).default('en') })
    .default({ includeSubDepartments: true, language: 'en' }),
  response: downloadFile,
  download: { contentType: importLimits.xlsxType },
});
