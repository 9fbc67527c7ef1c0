import {
  type CallAtPath,
  type CallDef,
  type Language,
  type MemberRole,
  pathsOfCall,
} from '@tessera/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../lib/errors.ts';
import { translateValidation } from '../lib/i18n.ts';
import { ok } from './envelope.ts';
import { parseRequest } from './validation.ts';

export interface AuthSession {
  sessionId: string;
  accountId: string;
  username: string;
  variant: 'admin' | 'dev';
  isPlatformAdmin: boolean;
}

export interface UploadedFile {
  bytes: Buffer;
  filename: string;
  declaredType: string;
}

export interface CallContext<Body> {
  body: Body;
  lang: Language;
  ip: string;
  userAgent: string | null;
  /** Present on calls with auth `session`. */
  session: AuthSession;
  /** The console token the call was made with (calls with auth `session`). */
  rawToken: string;
  /** Present on calls with `tenant: true`: the company the caller administers and the caller's role. */
  tenant: { companyId: string; role: MemberRole };
  file: UploadedFile | undefined;
}

/** A programmatic access account calling with a client credentials token. */
export interface ApiCaller {
  apiAccountId: string;
  companyId: string;
}

export interface BinderDeps {
  authenticate(token: string): Promise<AuthSession | null>;
  /** The programmatic access account a bearer token belongs to (calls with `apiAccess`). */
  authenticateApiToken?(token: string): Promise<ApiCaller | null>;
  /** The caller's administrative role in the company, or undefined when not an administrator. */
  adminRoleIn(companyId: string, accountId: string): Promise<MemberRole | undefined>;
  validateResponses: boolean;
}

const tokenOf = (request: FastifyRequest): string | undefined => {
  const header = request.headers.access_token;
  if (typeof header === 'string' && header) return header;
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7);
  return undefined;
};

/**
 * Reads a multipart upload: the text fields (which must come before the file) become the body
 * the request schema checks, and exactly one file part, in the call's field, is read up to its limit.
 */
async function readUpload(
  request: FastifyRequest,
  upload: NonNullable<CallDef['upload']>,
): Promise<{ file: UploadedFile; fields: Record<string, string> }> {
  if (!request.isMultipart()) throw new AppError('request.unsupported_content_type');
  const fields: Record<string, string> = {};
  let file: UploadedFile | undefined;
  for await (const part of request.parts({ limits: { fileSize: upload.maxBytes, files: 1, fields: 20 } })) {
    if (part.type === 'field') {
      if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      continue;
    }
    if (part.fieldname !== upload.field || file) {
      await part.toBuffer();
      continue;
    }
    const bytes = await part.toBuffer();
    if (part.file.truncated)
      throw new AppError('upload.too_large', { limit: `${upload.maxBytes / 1024 / 1024} MiB` });
    file = { bytes, filename: part.filename, declaredType: part.mimetype };
  }
  if (!file || file.bytes.length === 0) throw new AppError(upload.missingReason ?? 'upload.missing_file');
  return { file, fields };
}

/** `filename*` per RFC 6266/5987, with an ASCII fallback for old clients. */
export const contentDisposition = (filename: string) => {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
};

/**
 * Binds a contract call to a handler, at its path and at each of its aliases (one route
 * handler for all). Authentication, the tenant check (the only place that reads `company_id`),
 * request validation and the envelope all happen here.
 */
export function createBinder(app: FastifyInstance, deps: BinderDeps) {
  /** Every bound path with its call, for the OpenAPI document and the tenant-wall test. */
  const bound: CallAtPath[] = [];
  const bind = function bind<C extends CallDef>(
    call: C,
    handler: (ctx: CallContext<z.output<C['request']>>) => Promise<z.input<C['response']>>,
  ) {
    const route = async (request: FastifyRequest, reply: FastifyReply) => {
      const lang = request.lang;
      let session: AuthSession | undefined;
      const token = tokenOf(request);
      let apiCaller: ApiCaller | null = null;
      if (call.auth === 'session') {
        session = token ? ((await deps.authenticate(token)) ?? undefined) : undefined;
        if (!session && token && deps.authenticateApiToken) {
          apiCaller = await deps.authenticateApiToken(token);
          if (apiCaller && !call.apiAccess) throw new AppError('api_account.call_not_allowed');
          // Audit events name the access account as the actor.
          if (apiCaller)
            session = {
              sessionId: '',
              accountId: `api:${apiCaller.apiAccountId}`,
              username: `api:${apiCaller.apiAccountId}`,
              variant: 'dev',
              isPlatformAdmin: false,
            };
        }
        if (!session) throw new AppError('auth.login_required');
      }
      let tenant: CallContext<unknown>['tenant'] | undefined;
      if (call.tenant && apiCaller) {
        // An access account acts in its own company only; naming another one finds nothing.
        const named = request.headers.company_id;
        if (typeof named === 'string' && named && named !== apiCaller.companyId)
          throw new AppError('company.not_found');
        tenant = { companyId: apiCaller.companyId, role: 'admin' };
      } else if (call.tenant && session) {
        const companyId = request.headers.company_id;
        if (typeof companyId !== 'string' || !companyId) {
          const message = translateValidation(lang, 'required', { field: 'company_id' });
          throw new AppError('request.invalid', {}, [{ field: 'company_id', message }], message);
        }
        const role =
          companyId.length <= 64 ? await deps.adminRoleIn(companyId, session.accountId) : undefined;
        // Another company's data is "not found", never "forbidden".
        if (!role) throw new AppError('company.not_found');
        tenant = { companyId, role };
      }
      const upload = call.upload ? await readUpload(request, call.upload) : undefined;
      const file = upload?.file;
      const body = parseRequest(call.request, upload ? upload.fields : request.body, lang) as z.output<
        C['request']
      >;
      const data = await handler({
        body,
        lang,
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        session: session as AuthSession,
        rawToken: token ?? '',
        tenant: tenant as CallContext<unknown>['tenant'],
        file,
      });
      if (deps.validateResponses) call.response.parse(data);
      if (call.download) {
        const download = data as { filename: string; contentType: string; bytes: Uint8Array };
        return reply
          .header('content-type', download.contentType)
          .header('content-disposition', contentDisposition(download.filename))
          .header('cache-control', 'no-store')
          .send(Buffer.from(download.bytes));
      }
      return ok(data);
    };
    for (const atPath of pathsOfCall(call)) {
      bound.push(atPath);
      app.post(atPath.path, route);
    }
  };
  return Object.assign(bind, { bound });
}

export type Bind = ReturnType<typeof createBinder>;
