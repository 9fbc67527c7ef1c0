import type { PageBrand, PageContext } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { wearPageBrand } from '../oidc/interaction-page.ts';
import { PORTAL_ASSETS_PATH } from '../oidc/provider.ts';

type CompanyBrand = PageBrand & { companyId: string; companyCode: string; defaultLanguage: 'en' | 'zh' };

/**
 * The company address a browser came through last (`/portal/c/<code>/`): the user centre's other
 * pages (My apps, password, second factors, passkeys, devices...) and a sign-in they start keep
 * that company's look. It names a look only, never who may enter.
 */
export const BRAND_COOKIE = 'tessera_portal_company';

/** User-centre pages that wear a brand; the company address sets its own, the rest are files and hand-overs. */
const wearsBrand = (url: string) =>
  url.startsWith('/portal/') &&
  !url.startsWith('/portal/c/') &&
  !url.startsWith('/portal/callback') &&
  !url.startsWith('/portal/brand/') &&
  !/^\/portal\/[^/?]+\.(?:css|js|svg|png|ico)(?:\?|$)/.test(url);

export interface PortalBrandDeps {
  /** The brand of the company a code names (modules/brand); null for no such company. */
  brandOfCode?(code: string): Promise<CompanyBrand | null>;
  /** The brand a company saved, null while it has none (modules/brand). */
  savedBrandOf?(companyId: string): Promise<CompanyBrand | null>;
  /** The account signed in to the user centre in this browser, if any. */
  signedInAccountId(request: FastifyRequest): Promise<string | undefined>;
  companiesOf(accountId: string): Promise<{ id: string; code: string }[]>;
  cookieOptions: { path: string; httpOnly: boolean; sameSite: 'lax'; secure: boolean };
}

/**
 * Every user-centre page wears a company's brand: the company of the address the browser came
 * through (while the signed-in person belongs to it), otherwise the saved brand of the signed-in
 * person's company when they belong to one company only. A person of several companies who came
 * through no address sees the platform's look, as does someone signed out.
 */
export function portalBrand(app: FastifyInstance, deps: PortalBrandDeps) {
  const addressCode = (request: FastifyRequest) => {
    const code = request.cookies[BRAND_COOKIE];
    return code && code.length <= 64 ? code : undefined;
  };

  async function brandOfRequest(request: FastifyRequest): Promise<CompanyBrand | null> {
    const code = addressCode(request);
    const accountId = await deps.signedInAccountId(request);
    if (!accountId) return code && deps.brandOfCode ? deps.brandOfCode(code) : null;
    const companies = await deps.companiesOf(accountId);
    const ofAddress = companies.find((company) => company.code === code);
    if (ofAddress && deps.brandOfCode) return deps.brandOfCode(ofAddress.code);
    const [only] = companies;
    return only && companies.length === 1 && deps.savedBrandOf ? deps.savedBrandOf(only.id) : null;
  }

  app.addHook('preHandler', async (request) => {
    if (request.method !== 'GET' && request.method !== 'POST') return;
    if (request.brand || !wearsBrand(request.url)) return;
    wearPageBrand(request, await brandOfRequest(request));
  });

  return {
    /** Remembers the company address the browser came through. */
    remember(reply: FastifyReply, code: string) {
      reply.setCookie(BRAND_COOKIE, code, { ...deps.cookieOptions, maxAge: 365 * 24 * 3600 });
    },
    /** The company code a sign-in started from another user-centre page carries (its sign-in page's look). */
    addressCode,
  };
}

/** The page context of a user-centre page: the person's language and the brand the page wears. */
export const userCentreContext = (request: FastifyRequest, currentUrl = request.url): PageContext => ({
  lang: request.lang,
  currentUrl,
  assetsBase: PORTAL_ASSETS_PATH,
  brand: request.brand,
});
