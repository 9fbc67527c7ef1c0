import type { CallDef, Language, MemberRole } from '@tessera/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

export interface BinderDeps {
  authenticate(token: string): Promise<AuthSession | null>;
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

async function readUpload(
  request: FastifyRequest,
  upload: NonNullable<CallDef['upload']>,
): Promise<UploadedFile> {
  if (!request.isMultipart()) throw new AppError('request.unsupported_content_type');
  const part = await request.file({ limits: { fileSize: upload.maxBytes, files: 1 } });
  if (!part || part.fieldname !== upload.field) throw new AppError('upload.missing_file');
  const bytes = await part.toBuffer();
  if (part.file.truncated)
    throw new AppError('upload.too_large', { limit: `${upload.maxBytes / 1024 / 1024} MiB` });
  if (bytes.length === 0) throw new AppError('upload.missing_file');
  return { bytes, filename: part.filename, declaredType: part.mimetype };
}

/**
 * Binds a contract call to a handler. Authentication, the tenant check (the only place that
 * reads `company_id`), request validation and the envelope all happen here.
 */
export function createBinder(app: FastifyInstance, deps: BinderDeps) {
  /** Every bound call, for the OpenAPI document and the tenant-wall test. */
  const bound: CallDef[] = [];
  const bind = function bind<C extends CallDef>(
    call: C,
    handler: (ctx: CallContext<z.output<C['request']>>) => Promise<z.input<C['response']>>,
  ) {
    bound.push(call);
    app.post(call.path, async (request) => {
      const lang = request.lang;
      let session: AuthSession | undefined;
      const token = tokenOf(request);
      if (call.auth === 'session') {
        session = token ? ((await deps.authenticate(token)) ?? undefined) : undefined;
        if (!session) throw new AppError('auth.login_required');
      }
      let tenant: CallContext<unknown>['tenant'] | undefined;
      if (call.tenant && session) {
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
      const file = call.upload ? await readUpload(request, call.upload) : undefined;
      const body = parseRequest(call.request, call.upload ? {} : request.body, lang) as z.output<
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
      return ok(data);
    });
  };
  return Object.assign(bind, { bound });
}

export type Bind = ReturnType<typeof createBinder>;
