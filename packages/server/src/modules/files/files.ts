import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';

const startsWith = (bytes: Buffer, signature: number[], offset = 0) =>
  signature.every((byte, i) => bytes[offset + i] === byte);

/** The real type of an image, from its first bytes (the declared type is not trusted). */
export function sniffImageType(bytes: Buffer): string | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // GIF87a / GIF89a
  if (
    startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) &&
    [0x37, 0x39].includes(bytes[4] ?? 0) &&
    bytes[5] === 0x61
  )
    return 'image/gif';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) {
    return 'image/webp';
  }
  const head = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head))
    return 'image/svg+xml';
  return undefined;
}

/** Removes scripts, event handlers, foreign content and external references from an SVG. */
export async function sanitizeSvg(source: string): Promise<string> {
  // jsdom costs ~90 MB of memory: it is loaded on the first SVG upload, not at start.
  const [{ default: createDOMPurify }, { JSDOM }] = await Promise.all([import('dompurify'), import('jsdom')]);
  const window = new JSDOM('').window;
  const purify = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
  // The XML prolog and doctype cannot stand inside the document DOMPurify parses into.
  const body = source
    .replace(/^\uFEFF/, '')
    .replace(/^\s*<\?xml[^>]*\?>/i, '')
    .replace(/<!DOCTYPE[^>]*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  const clean = purify.sanitize(body, {
    USE_PROFILES: { svg: true, svgFilters: true },
    // SVG is XML: parse it as such, so a self-closing element cannot swallow what follows.
    PARSER_MEDIA_TYPE: 'application/xhtml+xml',
    FORBID_TAGS: ['foreignObject', 'script', 'use', 'image', 'a'],
    FORBID_ATTR: ['href', 'xlink:href'],
  });
  window.close();
  if (!/<svg[\s>]/i.test(clean))
    throw new AppError('upload.unsupported_type', { allowed: 'PNG, JPEG, SVG, WebP' });
  return clean;
}

/** Checks an uploaded image against the allowed types, sanitising SVG; returns what to store. */
export async function acceptImage(bytes: Buffer, allowed: readonly string[]) {
  const type = sniffImageType(bytes);
  const allowedNames = allowed
    .map((t) => t.replace('image/', '').replace('+xml', '').toUpperCase())
    .join(', ');
  if (!type || !allowed.includes(type))
    throw new AppError('upload.unsupported_type', { allowed: allowedNames });
  if (type === 'image/svg+xml') {
    return { contentType: type, bytes: Buffer.from(await sanitizeSvg(bytes.toString('utf8')), 'utf8') };
  }
  return { contentType: type, bytes };
}

export async function insertFile(db: Db, companyId: string | null, contentType: string, bytes: Buffer) {
  const id = newId();
  await db
    .insertInto('files')
    .values({ id, company_id: companyId, content_type: contentType, bytes })
    .execute();
  return id;
}

export const fileUrl = (id: string | null) => (id ? `/api/v1/files/${id}` : null);

export const findFile = (db: Db, id: string) =>
  db.selectFrom('files').select(['content_type', 'bytes']).where('id', '=', id).executeTakeFirst();
