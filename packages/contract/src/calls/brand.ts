import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';
import { brandImageTypes, brandLimits, languages, UPLOAD_FILE_FIELD } from '../constants.ts';

/**
 * Brand of a company's sign-in pages (spec §2 /brand/index; §3 Company logo, background, bottom
 * info bar, default language): applied to the sign-in, second-factor, password-change and user
 * centre pages whenever the sign-in is for one of the company's applications or its console.
 */

export const brandDetail = z.object({
  logo: z.string().nullable(),
  background: z.string().nullable(),
  primaryColor: z.string().nullable(),
  title: z.string().nullable(),
  footerText: z.string().nullable(),
  footerLink: z.string().nullable(),
  defaultLanguage: z.enum(languages),
  /** The company's logo, shown when no sign-in logo is set. */
  companyIcon: z.string().nullable(),
  companyName: z.string(),
  /** The short code of the company's user centre address, /portal/c/<code>/, which wears this brand. */
  companyCode: z.string(),
});

const optional = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional();

export const getBrand = defineCall({
  path: '/api/v1/manage/brand/detail',
  summary: "The company's sign-in page brand",
  tag: 'Brand',
  auth: 'session',
  tenant: true,
  access: { groups: ['branding'], level: 'read' },
  request: emptyRequest,
  response: brandDetail,
});

const brandFields = {
  primaryColor: z
    .string()
    .trim()
    .transform((value) => (value === '' ? null : value))
    .pipe(z.string().regex(brandLimits.colorPattern, { error: 'brand.color_invalid' }).nullable())
    .nullable()
    .optional(),
  title: optional(brandLimits.titleMax),
  footerText: optional(brandLimits.footerTextMax),
  footerLink: z
    .string()
    .trim()
    .max(brandLimits.footerLinkMax, { error: 'brand.link_invalid' })
    .transform((value) => (value === '' ? null : value))
    .pipe(z.url({ protocol: /^https?$/, error: 'brand.link_invalid' }).nullable())
    .nullable()
    .optional(),
};

export const updateBrand = defineCall({
  path: '/api/v1/manage/brand/update',
  summary:
    'Set the primary colour, title, bottom info bar and default language (its one place: company/update refuses it); remove the logo or background',
  tag: 'Brand',
  auth: 'session',
  tenant: true,
  access: { groups: ['branding'], level: 'manage' },
  request: z.object({
    ...brandFields,
    defaultLanguage: z.enum(languages).optional(),
    removeLogo: z.boolean().optional(),
    removeBackground: z.boolean().optional(),
  }),
  response: brandDetail,
});

export const previewBrand = defineCall({
  path: '/api/v1/manage/brand/preview',
  summary:
    "The sign-in page of the company's user centre address as it would look with these values (the stored logo and background), rendered by the page's own code; nothing is saved",
  tag: 'Brand',
  auth: 'session',
  tenant: true,
  access: { groups: ['branding'], level: 'read' },
  // Values being typed: a colour or link that is not complete yet is left out of the page, not refused.
  request: z.object({
    primaryColor: z.string().trim().max(20).nullable().optional(),
    title: optional(brandLimits.titleMax),
    footerText: optional(brandLimits.footerTextMax),
    footerLink: z.string().trim().max(brandLimits.footerLinkMax).nullable().optional(),
    lang: z.enum(languages),
  }),
  response: z.object({ html: z.string() }),
});

export const uploadBrandLogo = defineCall({
  path: '/api/v1/manage/brand/logo',
  summary: 'Upload the sign-in page logo (multipart field "file"; png, jpeg, svg or webp, at most 512 KiB)',
  tag: 'Brand',
  auth: 'session',
  tenant: true,
  access: { groups: ['branding'], level: 'manage' },
  request: z.object({}),
  response: brandDetail,
  upload: { field: UPLOAD_FILE_FIELD, maxBytes: brandLimits.logoBytes, types: brandImageTypes },
});

export const uploadBrandBackground = defineCall({
  path: '/api/v1/manage/brand/background',
  summary:
    'Upload the sign-in page background image (multipart field "file"; png, jpeg, svg or webp, at most 2 MiB)',
  tag: 'Brand',
  auth: 'session',
  tenant: true,
  access: { groups: ['branding'], level: 'manage' },
  request: z.object({}),
  response: brandDetail,
  upload: { field: UPLOAD_FILE_FIELD, maxBytes: brandLimits.backgroundBytes, types: brandImageTypes },
});
