import type { PageBrand, PageContext } from '@tessera/portal';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INTERACTION_PATH, PORTAL_ASSETS_PATH } from './provider.ts';

/**
 * The HTML pages of a sign-in and its neighbours (the portal, upstream identity sources): their
 * company's brand and language, their context for rendering, and sending them.
 */

/** A company's brand on a page, with the language its pages speak unless the person chose one. */
export type PageBrandWithLanguage = PageBrand & { defaultLanguage: 'en' | 'zh' };

declare module 'fastify' {
  interface FastifyRequest {
    /** The brand of the company a sign-in is for (set for interaction pages; see brandOfInteraction). */
    brand?: PageBrandWithLanguage;
  }
}

/**
 * The address a page's language link reloads: its own for a page that was fetched; for the answer
 * to a form (a refused password, a step's error) the interaction's page, which shows where the
 * sign-in stands (the form's own address takes POST only).
 */
function reloadableUrl(request: FastifyRequest): string {
  const uid = (request.params as { uid?: unknown } | undefined)?.uid;
  if (request.method === 'GET' || typeof uid !== 'string') return request.url;
  return `${INTERACTION_PATH}/${encodeURIComponent(uid)}`;
}

/** A page wears a company's brand, in its default language unless the person chose one (the lang cookie or a ?lang= link). */
export function wearPageBrand(request: FastifyRequest, brand: PageBrandWithLanguage | null | undefined) {
  if (!brand) return;
  request.brand = brand;
  const chosen = (request.query as Record<string, unknown> | undefined)?.lang;
  if (!request.cookies.lang && typeof chosen !== 'string') request.lang = brand.defaultLanguage;
}

export const pageContext = (request: FastifyRequest): PageContext => ({
  lang: request.lang,
  currentUrl: reloadableUrl(request),
  assetsBase: PORTAL_ASSETS_PATH,
  brand: request.brand,
});

export const sendPage = (reply: FastifyReply, status: number, body: string) =>
  reply.status(status).type('text/html; charset=utf-8').send(body);
