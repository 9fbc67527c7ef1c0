import type { Language } from '@tessera/contract';
import { portalPhrases, renderSignInPage } from '@tessera/portal';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import { PORTAL_ASSETS_PATH } from '../oidc/provider-responses.ts';
import { companyAddress, PORTAL_CLIENT_ID as PORTAL_CLIENT_NAME_KEY } from '../portal/portal.routes.ts';

/**
 * The brand of a company's sign-in pages: logo, background image, primary colour, title, bottom
 * info bar (an ICP filing line, say, with its link) and default language. Uploads are checked by
 * their bytes, limited in size, and SVG is sanitised (modules/files).
 */
export interface Actor {
  accountId: string;
  ip: string;
}

export interface BrandPatch {
  primaryColor?: string | null;
  title?: string | null;
  footerText?: string | null;
  footerLink?: string | null;
  defaultLanguage?: Language;
  removeLogo?: boolean;
  removeBackground?: boolean;
}

/** What the sign-in pages need of a brand (packages/portal PageContext.brand). */
export interface PageBrand {
  companyId: string;
  title: string;
  logoUrl: string | null;
  stylesheetUrl: string;
  footer: { text: string; link: string | null } | null;
  defaultLanguage: Language;
  /** The short code of the company's user centre address, /portal/c/<code>/. */
  companyCode: string;
}

async function findBrand(db: Db, companyId: string) {
  return db
    .selectFrom('companies as c')
    .leftJoin('company_brand as b', 'b.company_id', 'c.id')
    .select([
      'c.id',
      'c.name',
      'c.code',
      'c.icon_file_id',
      'c.default_language',
      'b.logo_file_id',
      'b.background_file_id',
      'b.primary_color',
      'b.title',
      'b.footer_text',
      'b.footer_link',
      'b.updated_at',
    ])
    .where('c.id', '=', companyId)
    .executeTakeFirst();
}

type BrandRow = NonNullable<Awaited<ReturnType<typeof findBrand>>>;

const toDetail = (row: BrandRow) => ({
  logo: fileUrl(row.logo_file_id),
  background: fileUrl(row.background_file_id),
  primaryColor: row.primary_color,
  title: row.title,
  footerText: row.footer_text,
  footerLink: row.footer_link,
  defaultLanguage: row.default_language,
  companyIcon: fileUrl(row.icon_file_id),
  companyName: row.name,
  companyCode: row.code,
});

export const BRAND_STYLESHEET_PATH = '/portal/brand';

/** The form of a company code (migration 25 gives ten hex characters; the column allows this). */
export const COMPANY_CODE_PATTERN = /^[a-z0-9][a-z0-9-]{2,31}$/;

/** A darker shade of a #rrggbb colour (hover and pressed states). */
export function darken(hex: string, amount = 0.15): string {
  const value = Number.parseInt(hex.slice(1), 16);
  const channel = (shift: number) => Math.round(((value >> shift) & 255) * (1 - amount));
  return `#${[16, 8, 0].map((shift) => channel(shift).toString(16).padStart(2, '0')).join('')}`;
}

/** The stylesheet of a brand's primary colour and background image (sign-in pages and preview alike). */
function stylesheetOf(primaryColor: string | null, backgroundFileId: string | null): string {
  const rules: string[] = [];
  if (primaryColor && /^#[0-9a-f]{6}$/.test(primaryColor))
    rules.push(`:root{--primary:${primaryColor};--primary-dark:${darken(primaryColor)}}`);
  const background = fileUrl(backgroundFileId);
  if (background) rules.push(`body{background:#f5f7fa url("${background}") center/cover no-repeat fixed}`);
  return `${rules.join('\n')}\n`;
}

export interface PreviewDraft {
  primaryColor?: string | null;
  title?: string | null;
  footerText?: string | null;
  footerLink?: string | null;
  lang: Language;
}

export function createBrandService(deps: {
  db: Db;
  /** Whether the sign-in page offers a passkey (modules/mfa), for the preview to show what it shows. */
  passkeyOffered?: () => Promise<boolean>;
  /** Whether the company's sign-in page offers "Forgot password?" (modules/password-reset), likewise. */
  forgotPasswordOffered?: (companyId: string) => Promise<boolean>;
}) {
  const { db } = deps;

  async function detail(companyId: string, from: Db = db) {
    const row = await findBrand(from, companyId);
    if (!row) throw new AppError('company.not_found');
    return toDetail(row);
  }

  async function ensureRow(trx: Db, companyId: string) {
    await trx
      .insertInto('company_brand')
      .values({
        company_id: companyId,
        logo_file_id: null,
        background_file_id: null,
        primary_color: null,
        title: null,
        footer_text: null,
        footer_link: null,
      })
      .onConflict((oc) => oc.column('company_id').doNothing())
      .execute();
  }

  async function update(actor: Actor, companyId: string, patch: BrandPatch) {
    return db.transaction().execute(async (trx) => {
      const before = await detail(companyId, trx);
      await ensureRow(trx, companyId);
      const row = await findBrand(trx, companyId);
      const set = {
        ...(patch.primaryColor !== undefined
          ? { primary_color: patch.primaryColor?.toLowerCase() ?? null }
          : {}),
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.footerText !== undefined ? { footer_text: patch.footerText } : {}),
        ...(patch.footerLink !== undefined ? { footer_link: patch.footerLink } : {}),
        ...(patch.removeLogo ? { logo_file_id: null } : {}),
        ...(patch.removeBackground ? { background_file_id: null } : {}),
        updated_at: sql<Date>`now()`,
      };
      await trx.updateTable('company_brand').set(set).where('company_id', '=', companyId).execute();
      if (patch.defaultLanguage)
        await trx
          .updateTable('companies')
          .set({ default_language: patch.defaultLanguage })
          .where('id', '=', companyId)
          .execute();
      const removed = [
        patch.removeLogo ? row?.logo_file_id : null,
        patch.removeBackground ? row?.background_file_id : null,
      ];
      for (const fileId of removed)
        if (fileId)
          await trx
            .deleteFrom('files')
            .where('id', '=', fileId)
            .where('company_id', '=', companyId)
            .execute();
      const after = await detail(companyId, trx);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'brand.update',
        targetType: 'company',
        targetId: companyId,
        before,
        after,
        ip: actor.ip,
      });
      return after;
    });
  }

  async function uploadImage(
    actor: Actor,
    companyId: string,
    which: 'logo' | 'background',
    bytes: Buffer,
    allowed: readonly string[],
  ) {
    const image = await acceptImage(bytes, allowed);
    return db.transaction().execute(async (trx) => {
      await ensureRow(trx, companyId);
      const row = await findBrand(trx, companyId);
      const column = which === 'logo' ? 'logo_file_id' : 'background_file_id';
      const previous = row?.[column];
      const fileId = await insertFile(trx, companyId, image.contentType, image.bytes);
      await trx
        .updateTable('company_brand')
        .set({ [column]: fileId, updated_at: sql<Date>`now()` })
        .where('company_id', '=', companyId)
        .execute();
      if (previous)
        await trx
          .deleteFrom('files')
          .where('id', '=', previous)
          .where('company_id', '=', companyId)
          .execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: `brand.${which}`,
        targetType: 'company',
        targetId: companyId,
        before: { [which]: fileUrl(previous ?? null) },
        after: { [which]: fileUrl(fileId), contentType: image.contentType, bytes: image.bytes.length },
        ip: actor.ip,
      });
      return detail(companyId, trx);
    });
  }

  /**
   * The brand the sign-in pages show for a company, or null when it has none set. `always`: the
   * company's own name and logo even then (its user centre address names the company itself).
   */
  async function pageBrand(companyId: string, options: { always?: boolean } = {}): Promise<PageBrand | null> {
    const row = await findBrand(db, companyId);
    if (!row || (!row.updated_at && !options.always)) return null;
    const version = new Date(row.updated_at ?? 0).getTime().toString(36);
    return {
      companyId,
      title: row.title ?? row.name,
      logoUrl: fileUrl(row.logo_file_id) ?? fileUrl(row.icon_file_id),
      stylesheetUrl: `${BRAND_STYLESHEET_PATH}/${companyId}/${version}.css`,
      footer: row.footer_text ? { text: row.footer_text, link: row.footer_link } : null,
      defaultLanguage: row.default_language,
      companyCode: row.code,
    };
  }

  /** The brand's stylesheet: the primary colour and the background image, no script needed. */
  async function stylesheet(companyId: string): Promise<string | null> {
    const row = await findBrand(db, companyId);
    return row ? stylesheetOf(row.primary_color, row.background_file_id) : null;
  }

  /**
   * The sign-in page of the company's user centre address with values not saved yet, drawn by
   * the page's own code (the console's brand preview): what people will see, nothing more.
   */
  async function preview(companyId: string, draft: PreviewDraft): Promise<{ html: string }> {
    const row = await findBrand(db, companyId);
    if (!row) throw new AppError('company.not_found');
    const color = draft.primaryColor?.toLowerCase() ?? '';
    const link = draft.footerLink && /^https?:\/\/[^\s]+$/i.test(draft.footerLink) ? draft.footerLink : null;
    const address = companyAddress(row.code);
    const html = renderSignInPage(
      {
        lang: draft.lang,
        currentUrl: address,
        assetsBase: PORTAL_ASSETS_PATH,
        brand: {
          title: draft.title ?? row.name,
          logoUrl: fileUrl(row.logo_file_id) ?? fileUrl(row.icon_file_id),
          stylesheetUrl: '',
          inlineStylesheet: stylesheetOf(/^#[0-9a-f]{6}$/.test(color) ? color : null, row.background_file_id),
          footer: draft.footerText ? { text: draft.footerText, link } : null,
        },
      },
      {
        action: address,
        abortAction: address,
        csrfToken: '',
        clientName: portalPhrases[draft.lang].clients[PORTAL_CLIENT_NAME_KEY] ?? '',
        passkey: (await deps.passkeyOffered?.()) ? { action: address, options: '{}' } : undefined,
        forgotPasswordHref: (await deps.forgotPasswordOffered?.(companyId)) ? address : undefined,
      },
    );
    return { html };
  }

  /** The brand of the company whose user centre address carries this code, or null for no such company. */
  async function pageBrandOfCode(code: string): Promise<PageBrand | null> {
    if (!COMPANY_CODE_PATTERN.test(code)) return null;
    const company = await db.selectFrom('companies').select('id').where('code', '=', code).executeTakeFirst();
    return company ? pageBrand(company.id, { always: true }) : null;
  }

  return { detail, update, uploadImage, pageBrand, pageBrandOfCode, stylesheet, preview };
}

export type BrandService = ReturnType<typeof createBrandService>;
