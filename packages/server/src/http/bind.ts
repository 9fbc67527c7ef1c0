import { Readable } from 'node:stream';
import {
  type CallAtPath,
  type CallDef,
  type ConsoleAccess,
  type ConsoleGrants,
  fullConsoleGrants,
  grantsAllow,
  type Language,
  type MemberRole,
  pathsOfCall,
  serverPhrases,
} from '@tessera/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../lib/errors.ts';
import { translateError, translateValidation } from '../lib/i18n.ts';
import type { ApiCaller, AppCaller } from './callers.ts';
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
  /**
   * Present on calls with `tenant: true`: the company the caller administers, the caller's role
   * and what it lets them do in the console (everything but for delegated administrators).
   */
  tenant: { companyId: string; role: MemberRole; grants: ConsoleGrants };
  /** Present on calls with auth `app`: the application that called with its client credentials. */
  app: AppCaller;
  file: UploadedFile | undefined;
}

export type { ApiCaller, AppCaller };

export interface BinderDeps {
  authenticate(token: string): Promise<AuthSession | null>;
  /** The programmatic access account a bearer token belongs to (calls with `apiAccess`). */
  authenticateApiToken?(token: string): Promise<ApiCaller | null>;
  /** The caller's role in the company and what it may do there, or undefined when it reaches no console there. */
  consoleStandingIn(
    companyId: string,
    accountId: string,
  ): Promise<{ role: MemberRole; grants: ConsoleGrants } | undefined>;
  /** The application behind HTTP Basic client credentials (calls with auth `app`); throws when there is none. */
  authenticateApp?(authorization: string | undefined, ip: string): Promise<AppCaller>;
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
 * Refuses a call that the caller's console role does not allow (spec §6), naming the permission
 * group and level it needs. Owners and administrators hold every group; a call that declares no
 * access is refused to custom roles.
 */
function assertAllowed(access: ConsoleAccess | undefined, grants: ConsoleGrants, lang: Language) {
  if (grantsAllow(grants, access)) return;
  const phrases = serverPhrases[lang];
  const needed =
    access && access !== 'console'
      ? {
          group: access.groups.map((group) => phrases.consoleGroups[group]).join(' / '),
          level: [
            phrases.consoleLevels[access.level],
            ...(access.ability ? [phrases.consoleLevels[access.ability]] : []),
          ].join(' / '),
        }
      : { group: '—', level: phrases.consoleLevels.manage };
  throw new AppError(
    'auth.group_forbidden',
    needed,
    undefined,
    translateError(lang, 'auth.group_forbidden', needed),
  );
}

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
        // A token of the other console is no token here: the call neither uses nor ends its session.
        if (!session || (call.console && session.variant !== call.console))
          throw new AppError('auth.login_required');
      }
      let app: AppCaller | undefined;
      if (call.auth === 'app') {
        if (!deps.authenticateApp) throw new AppError('app_client.invalid');
        app = await deps.authenticateApp(request.headers.authorization, request.ip);
      }
      let tenant: CallContext<unknown>['tenant'] | undefined;
      if (call.tenant && apiCaller) {
        // An access account acts in its own company only; naming another one finds nothing.
        const named = request.headers.company_id;
        if (typeof named === 'string' && named && named !== apiCaller.companyId)
          throw new AppError('company.not_found');
        tenant = { companyId: apiCaller.companyId, role: 'admin', grants: fullConsoleGrants };
      } else if (call.tenant && session) {
        const companyId = request.headers.company_id;
        if (typeof companyId !== 'string' || !companyId) {
          const message = translateValidation(lang, 'required', { field: 'company_id' });
          throw new AppError('request.invalid', {}, [{ field: 'company_id', message }], message);
        }
        const standing =
          companyId.length <= 64 ? await deps.consoleStandingIn(companyId, session.accountId) : undefined;
        // Another company's data is "not found", never "forbidden".
        if (!standing) throw new AppError('company.not_found');
        // Then what a delegated administrator's console role allows in this company (spec §6).
        if (standing.role === 'delegated_admin') assertAllowed(call.access, standing.grants, lang);
        tenant = { companyId, ...standing };
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
        app: app as AppCaller,
        file,
      });
      if (deps.validateResponses) call.response.parse(data);
      if (call.download) {
        const download = data as {
          filename: string;
          contentType: string;
          bytes?: Uint8Array;
          chunks?: AsyncIterable<Uint8Array>;
        };
        reply
          .header('content-type', download.contentType)
          .header('content-disposition', contentDisposition(download.filename))
          .header('cache-control', 'no-store');
        // A streamed file is sent as it is written; an error half-way ends the connection, so
        // the browser reports the download as failed rather than keeping a cut file.
        if (download.chunks) return reply.send(Readable.from(download.chunks));
        return reply.send(Buffer.from(download.bytes ?? new Uint8Array()));
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
