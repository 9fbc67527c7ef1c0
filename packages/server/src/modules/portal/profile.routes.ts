import fastifyMultipart from '@fastify/multipart';
import { type CodeChannel, type Language, photoLimits, userLimits } from '@tessera/contract';
import {
  type PageContext,
  portalPhrases,
  profilePhrases,
  renderAddressCodePage,
  renderErrorPage,
  renderProfilePage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import { type Sealer, safeEqual } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError, translateValidation } from '../../lib/i18n.ts';
import { fileUrl } from '../files/files.ts';
import { userCentreContext } from './portal-brand.ts';
import {
  type AddressIntent,
  type AddressRequest,
  CODE_MINUTES,
  type OwnProfileService,
} from './profile.service.ts';

const ACCOUNT_PATH = '/portal/account';
export const PROFILE_PATH = '/portal/account/profile';
const PHOTO_PATH = '/portal/account/profile/photo';
const ADDRESS_PATH = '/portal/account/profile/address';
const CONFIRM_PATH = '/portal/account/profile/address/confirm';
const CODE_REQUEST_PURPOSE = 'portal-address-code';

type SignedIn = { sessionId: string; account: Account };
type FormBody = Record<string, string | undefined>;

export interface ProfileRoutesDeps {
  profile: OwnProfileService;
  sealer: Sealer;
  signedIn(request: FastifyRequest): Promise<SignedIn | undefined>;
  startSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

/** A localised message for a refusal; anything else is not the person's to read. */
function messageOf(lang: Language, error: unknown): string {
  if (!(error instanceof AppError)) throw error;
  // The console's wording speaks of "this person": here the person reads it about themselves.
  if (error.reason === 'user.directory_managed') return profilePhrases[lang].directoryRefused;
  return error.localisedMessage ?? translateError(lang, error.reason, error.params);
}

/**
 * The user centre's page of the person's own details (profile.service.ts has the rules): name
 * and nickname, photo (multipart, in a scope of its own), and the email and phone verified or
 * changed with a code. Every form carries the session's CSRF token; the code page carries the
 * sealed request its code belongs to, bound to this session.
 */
export function profileRoutes(app: FastifyInstance, deps: ProfileRoutesDeps) {
  const csrfFor = (sessionId: string) => deps.sealer.hmac('portal-profile', sessionId);
  const pageContext = (request: FastifyRequest, path: string): PageContext =>
    userCentreContext(request, path);
  const send = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).type('text/html; charset=utf-8').send(body);
  const backWith = (reply: FastifyReply, notice: string) =>
    reply.redirect(`${PROFILE_PATH}?notice=${encodeURIComponent(notice)}`, 303);

  async function showProfile(
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    extra: { notice?: string; error?: string; typed?: { email?: string; phone?: string } } = {},
  ) {
    const { account } = current;
    const notices = profilePhrases[request.lang].notices;
    const html = renderProfilePage(pageContext(request, PROFILE_PATH), {
      actions: { names: PROFILE_PATH, photo: PHOTO_PATH, address: ADDRESS_PATH },
      backHref: ACCOUNT_PATH,
      csrfToken: csrfFor(current.sessionId),
      account: {
        name: account.display_name,
        nickname: account.nickname,
        photoUrl: fileUrl(account.photo_file_id),
        email: account.email,
        phone: account.phone,
        emailVerified: Boolean(account.email_verified_at),
        phoneVerified: Boolean(account.phone_verified_at),
      },
      directory: await deps.profile.directoryOf(account.id),
      channels: await deps.profile.channels(account),
      notice: extra.notice && Object.hasOwn(notices, extra.notice) ? notices[extra.notice] : undefined,
      error: extra.error,
      typed: extra.typed,
    });
    return send(reply, extra.error ? 400 : 200, html);
  }

  /** The signed-in person whose form carries their session's CSRF token; otherwise answered here. */
  async function formSender(request: FastifyRequest, reply: FastifyReply, csrf: unknown) {
    const current = await deps.signedIn(request);
    if (!current) {
      reply.redirect(ACCOUNT_PATH, 303);
      return undefined;
    }
    if (typeof csrf !== 'string' || !safeEqual(csrf, csrfFor(current.sessionId))) {
      send(
        reply,
        403,
        renderErrorPage(pageContext(request, PROFILE_PATH), {
          message: portalPhrases[request.lang].signIn.sessionExpired,
        }),
      );
      return undefined;
    }
    return current;
  }

  app.get<{ Querystring: { notice?: string } }>(PROFILE_PATH, async (request, reply) => {
    const current = await deps.signedIn(request);
    if (!current) return deps.startSignIn(request, reply);
    return showProfile(request, reply, current, { notice: request.query.notice });
  });

  app.post<{ Body: FormBody }>(PROFILE_PATH, async (request, reply) => {
    const current = await formSender(request, reply, request.body?.csrf);
    if (!current) return reply;
    const text = (name: 'name' | 'nickname') => {
      const value = (request.body?.[name] ?? '').trim();
      const max = name === 'name' ? userLimits.nameMax : userLimits.nicknameMax;
      if (value.length > max) {
        const message = translateValidation(request.lang, 'too_long', { field: name, max });
        throw new AppError('request.invalid', {}, [{ field: name, message }], message);
      }
      return value || null;
    };
    try {
      const names = { name: text('name'), nickname: text('nickname') };
      await deps.profile.updateNames(current.account, names, request.ip);
    } catch (error) {
      return showProfile(request, reply, current, { error: messageOf(request.lang, error) });
    }
    return backWith(reply, 'names_saved');
  });

  // The photo comes as multipart/form-data, read in this scope only (the pages read form bodies).
  app.register(async (upload) => {
    await upload.register(fastifyMultipart, {
      // A file over the limit is cut and marked, and refused below with the page's own message.
      throwFileSizeLimit: false,
      limits: { fileSize: photoLimits.bytes, files: 1, fields: 4 },
    });
    upload.post(PHOTO_PATH, async (request, reply) => {
      if (!request.isMultipart()) return reply.redirect(PROFILE_PATH, 303);
      let csrf: string | undefined;
      let photo: { bytes: Buffer; truncated: boolean } | undefined;
      // The CSRF field comes before the file (the form's order); a file before it is not read.
      for await (const part of request.parts()) {
        if (part.type === 'field') {
          if (part.fieldname === 'csrf' && typeof part.value === 'string') csrf = part.value;
        } else if (part.fieldname === 'photo' && csrf !== undefined && !photo) {
          const bytes = await part.toBuffer();
          photo = { bytes, truncated: part.file.truncated };
        } else {
          part.file.resume();
        }
      }
      const current = await formSender(request, reply, csrf);
      if (!current) return reply;
      try {
        if (!photo || photo.bytes.length === 0) throw new AppError('upload.missing_file');
        if (photo.truncated)
          throw new AppError('upload.too_large', { limit: `${photoLimits.bytes / 1024 / 1024} MiB` });
        await deps.profile.updatePhoto(current.account, photo.bytes, request.ip);
      } catch (error) {
        return showProfile(request, reply, current, { error: messageOf(request.lang, error) });
      }
      return backWith(reply, 'photo_saved');
    });
  });

  const sealRequest = (sessionId: string, value: AddressRequest) =>
    deps.sealer.seal(JSON.stringify({ ...value, sessionId }), CODE_REQUEST_PURPOSE);
  const openRequest = (sessionId: string, sealed: unknown): AddressRequest | undefined => {
    if (typeof sealed !== 'string' || sealed.length > 2048) return undefined;
    try {
      const value = JSON.parse(deps.sealer.open(sealed, CODE_REQUEST_PURPOSE));
      return value.sessionId === sessionId ? (value as AddressRequest) : undefined;
    } catch {
      return undefined;
    }
  };

  const showCodePage = (
    request: FastifyRequest,
    reply: FastifyReply,
    current: SignedIn,
    codeRequest: AddressRequest & { minutes: number; sealed?: string },
    error?: string,
  ) =>
    send(
      reply,
      error ? 400 : 200,
      renderAddressCodePage(pageContext(request, PROFILE_PATH), {
        action: CONFIRM_PATH,
        resendAction: ADDRESS_PATH,
        cancelHref: PROFILE_PATH,
        csrfToken: csrfFor(current.sessionId),
        request: codeRequest.sealed ?? sealRequest(current.sessionId, codeRequest),
        channel: codeRequest.channel,
        intent: codeRequest.intent,
        address: codeRequest.address,
        minutes: codeRequest.minutes,
        error,
      }),
    );

  app.post<{ Body: FormBody }>(ADDRESS_PATH, async (request, reply) => {
    const current = await formSender(request, reply, request.body?.csrf);
    if (!current) return reply;
    const channel: CodeChannel = request.body?.channel === 'sms' ? 'sms' : 'email';
    const intent: AddressIntent = request.body?.intent === 'verify' ? 'verify' : 'change';
    const typed = request.body?.address ?? '';
    try {
      const issued = await deps.profile.requestCode(
        current.account,
        { channel, intent, typed },
        request.lang,
      );
      return showCodePage(request, reply, current, issued);
    } catch (error) {
      return showProfile(request, reply, current, {
        error: messageOf(request.lang, error),
        typed: intent === 'change' ? { [channel === 'email' ? 'email' : 'phone']: typed.slice(0, 64) } : {},
      });
    }
  });

  app.post<{ Body: FormBody }>(CONFIRM_PATH, async (request, reply) => {
    const current = await formSender(request, reply, request.body?.csrf);
    if (!current) return reply;
    const codeRequest = openRequest(current.sessionId, request.body?.request);
    if (!codeRequest)
      return showProfile(request, reply, current, { error: translateError(request.lang, 'code.expired') });
    const code = (request.body?.code ?? '').slice(0, 16);
    try {
      const outcome = await deps.profile.confirmCode(
        current.account,
        codeRequest,
        code,
        request.ip,
        request.lang,
      );
      return backWith(reply, outcome);
    } catch (error) {
      const message = messageOf(request.lang, error);
      // A wrong code may be typed again on the same page; anything else starts over.
      if (error instanceof AppError && error.reason === 'code.wrong')
        return showCodePage(
          request,
          reply,
          current,
          { ...codeRequest, minutes: CODE_MINUTES, sealed: request.body?.request },
          message,
        );
      return showProfile(request, reply, current, { error: message });
    }
  });
}
