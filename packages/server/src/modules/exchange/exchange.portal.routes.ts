import { exchangeLimits, interpolate } from '@tessera/contract';
import {
  type AccountDevicesSection,
  type PageContext,
  portalPhrases,
  renderDevicePasswordPage,
  renderErrorPage,
  renderExchangeSignInPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { csrfOf, mfaFormSender, sendMfaPage } from '../mfa/mfa.portal.routes.ts';
import { userCentreContext } from '../portal/portal-brand.ts';
import type { OwnDeviceRefusal, OwnDevicesService } from './own-devices.service.ts';

const ACCOUNT_PATH = '/portal/account';
const DEVICES_PATH = '/portal/account/devices';
const actions = {
  reveal: `${DEVICES_PATH}/reveal`,
  newPassword: `${DEVICES_PATH}/password`,
  approve: `${DEVICES_PATH}/approve`,
  status: `${DEVICES_PATH}/status`,
  remove: `${DEVICES_PATH}/remove`,
};
const signInPath = (companyId: string) => `/portal/account/exchange/${encodeURIComponent(companyId)}`;

type FormRequest = FastifyRequest<{ Body: Record<string, string | undefined> }>;
type SignedIn = (request: FastifyRequest) => Promise<{ sessionId: string; account: Account } | undefined>;

/** The Exchange devices section of the user centre's account page (see device-pages.ts). */
export function accountDevicesSection(deps: { devices: OwnDevicesService; sealer: Sealer }) {
  return async (account: Account, sessionId: string): Promise<AccountDevicesSection> => {
    const companies = await deps.devices.overview(account);
    return {
      companies: companies.map(({ personal, ownUsername, ...company }) => ({
        ...company,
        ownSignIn: personal ? { username: ownUsername, href: signInPath(company.companyId) } : undefined,
      })),
      csrfToken: csrfOf(deps.sealer, sessionId),
      actions,
      showCompany: companies.length > 1,
    };
  };
}

/**
 * The user centre's device forms: show a new password once, make a new one, approve, disable,
 * enable and remove one's own devices, and save one's own Exchange sign-in. Every form carries
 * the session's CSRF token (the one the MFA forms use).
 */
export function exchangePortalRoutes(
  app: FastifyInstance,
  deps: { devices: OwnDevicesService; sealer: Sealer; signedIn: SignedIn },
) {
  const pageContext = (request: FastifyRequest, currentUrl = ACCOUNT_PATH) =>
    userCentreContext(request, currentUrl);
  const submitted = (request: FormRequest, reply: FastifyReply) =>
    mfaFormSender(request, reply, {
      sealer: deps.sealer,
      signedIn: deps.signedIn,
      pageContext: pageContext(request),
    });
  const deviceIdOf = (request: FormRequest) => String(request.body?.deviceId ?? '').slice(0, 64);

  const refused = (request: FastifyRequest, reply: FastifyReply, why: OwnDeviceRefusal) => {
    const t = portalPhrases[request.lang].devices;
    return sendMfaPage(
      reply,
      why === 'not_found' ? 404 : 403,
      renderErrorPage(pageContext(request), { message: why === 'not_found' ? t.notFound : t.notAllowed }),
    );
  };
  const showPassword = (
    request: FastifyRequest,
    reply: FastifyReply,
    shown: { name: string; password: string | null },
  ) =>
    sendMfaPage(
      reply,
      200,
      renderDevicePasswordPage(pageContext(request), {
        deviceName: shown.name,
        password: shown.password,
        backHref: `${ACCOUNT_PATH}#devices`,
      }),
    );

  app.post(actions.reveal, async (request: FormRequest, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const shown = await deps.devices.reveal(current.account.id, deviceIdOf(request));
    if (shown.refused) return refused(request, reply, shown.refused);
    return showPassword(request, reply, shown);
  });

  for (const [path, approving] of [
    [actions.newPassword, false],
    [actions.approve, true],
  ] as const) {
    app.post(path, async (request: FormRequest, reply) => {
      const current = await submitted(request, reply);
      if (!current) return reply;
      const issued = await deps.devices.issue(current.account.id, deviceIdOf(request), request.ip, approving);
      if (issued.refused) return refused(request, reply, issued.refused);
      return showPassword(request, reply, issued);
    });
  }

  app.post(actions.status, async (request: FormRequest, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const status = request.body?.status === 'disabled' ? 'disabled' : 'enabled';
    const refusal = await deps.devices.manage(current.account.id, deviceIdOf(request), request.ip, {
      status,
    });
    if (refusal) return refused(request, reply, refusal);
    return reply.redirect(`${ACCOUNT_PATH}?notice=${status}#devices`, 303);
  });

  app.post(actions.remove, async (request: FormRequest, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const refusal = await deps.devices.manage(current.account.id, deviceIdOf(request), request.ip, 'remove');
    if (refusal) return refused(request, reply, refusal);
    return reply.redirect(`${ACCOUNT_PATH}?notice=removed#devices`, 303);
  });

  signInRoutes(app, { ...deps, pageContext, submitted, refused });
}

/** The person's own Exchange sign-in (credential mode personal). */
function signInRoutes(
  app: FastifyInstance,
  deps: {
    devices: OwnDevicesService;
    sealer: Sealer;
    signedIn: SignedIn;
    pageContext(request: FastifyRequest, currentUrl?: string): PageContext;
    submitted(request: FormRequest, reply: FastifyReply): ReturnType<typeof mfaFormSender>;
    refused(request: FastifyRequest, reply: FastifyReply, why: OwnDeviceRefusal): FastifyReply;
  },
) {
  type Params = { Params: { companyId: string } };
  const page = (
    request: FastifyRequest<Params>,
    sessionId: string,
    target: { id: string; name: string },
    fields: { username: string; passwordSaved: boolean; errors?: { username?: string; password?: string } },
  ) =>
    renderExchangeSignInPage(deps.pageContext(request, signInPath(target.id)), {
      companyName: target.name,
      action: signInPath(target.id),
      deleteAction: `${signInPath(target.id)}/delete`,
      csrfToken: csrfOf(deps.sealer, sessionId),
      backHref: `${ACCOUNT_PATH}#devices`,
      ...fields,
    });

  app.get<Params>('/portal/account/exchange/:companyId', async (request, reply) => {
    const current = await deps.signedIn(request);
    if (!current) return reply.redirect(ACCOUNT_PATH, 303);
    const target = await deps.devices.signInTarget(current.account.id, request.params.companyId);
    if (!target) return deps.refused(request, reply, 'not_found');
    return sendMfaPage(
      reply,
      200,
      page(request, current.sessionId, target, {
        username: target.username ?? '',
        passwordSaved: Boolean(target.username),
      }),
    );
  });

  app.post<Params & { Body: Record<string, string | undefined> }>(
    '/portal/account/exchange/:companyId',
    async (request, reply) => {
      const current = await deps.submitted(request, reply);
      if (!current) return reply;
      const target = await deps.devices.signInTarget(current.account.id, request.params.companyId);
      if (!target) return deps.refused(request, reply, 'not_found');
      const t = portalPhrases[request.lang].devices;
      const max = exchangeLimits.serviceUsernameMax;
      const username = String(request.body?.username ?? '').trim();
      const password = String(request.body?.password ?? '');
      const saved = Boolean(target.username);
      const errors = {
        username: !username
          ? t.usernameRequired
          : username.length > max
            ? interpolate(t.tooLong, { max })
            : undefined,
        password:
          !password && !saved
            ? t.passwordRequired
            : password.length > max
              ? interpolate(t.tooLong, { max })
              : undefined,
      };
      if (errors.username || errors.password) {
        const fields = { username: username.slice(0, max), passwordSaved: saved, errors };
        return sendMfaPage(reply, 400, page(request, current.sessionId, target, fields));
      }
      await deps.devices.saveSignIn({ accountId: current.account.id, ip: request.ip }, target.id, {
        username,
        password: password || null,
      });
      return reply.redirect(`${ACCOUNT_PATH}?notice=signin-saved#devices`, 303);
    },
  );

  app.post<Params & { Body: Record<string, string | undefined> }>(
    '/portal/account/exchange/:companyId/delete',
    async (request, reply) => {
      const current = await deps.submitted(request, reply);
      if (!current) return reply;
      const target = await deps.devices.signInTarget(current.account.id, request.params.companyId);
      if (!target) return deps.refused(request, reply, 'not_found');
      await deps.devices.removeSignIn({ accountId: current.account.id, ip: request.ip }, target.id);
      return reply.redirect(`${ACCOUNT_PATH}?notice=signin-removed#devices`, 303);
    },
  );
}
