import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { departmentPathsOf } from '../department/department.repo.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import { samlRoutes } from './saml.routes.ts';
import { createSamlConfigService } from './saml-config.service.ts';
import { createSamlKeys } from './saml-keys.ts';
import { createSamlSlo, SAML_LOGOUT_RETURN_PATH } from './saml-slo.service.ts';
import { createSamlSso, SAML_CALLBACK_PATH } from './saml-sso.service.ts';
import { samlWebRoutes } from './saml-web.routes.ts';

/**
 * SAML applications: the identity provider's signing keys and single logout, which the OIDC
 * provider needs before it is built (SAML sign-ins are authorizations of internal clients that
 * come back to these addresses); then the browser endpoints and the console's calls.
 */
export function createSaml(deps: { db: Db; sealer: Sealer; publicUrl: string; issuer: string }) {
  const { db, sealer, publicUrl, issuer } = deps;
  const keys = createSamlKeys({ db, sealer });
  const slo = createSamlSlo({ db, sealer, keys, publicUrl, issuer });
  return {
    slo,
    clientUrls: {
      callback: `${publicUrl}${SAML_CALLBACK_PATH}`,
      logoutReturn: `${publicUrl}${SAML_LOGOUT_RETURN_PATH}`,
    },
    /** The browser endpoints: single sign-on and single logout. */
    webRoutes: (
      app: FastifyInstance,
      web: {
        tokenEndpoint: TokenEndpoint;
        accounts: Pick<AccountsRepo, 'findAccountById'>;
        secureCookies: boolean;
      },
    ) =>
      samlWebRoutes(app, {
        db,
        keys,
        sso: createSamlSso({
          db,
          sealer,
          keys,
          publicUrl,
          issuer,
          tokenEndpoint: web.tokenEndpoint,
          findAccount: web.accounts.findAccountById,
          departmentPaths: (companyId, accountId) => departmentPathsOf(db, companyId, accountId),
        }),
        slo,
        publicUrl,
        secureCookies: web.secureCookies,
      }),
    /** The console's calls: an application's SAML settings and the identity provider's keys. */
    routes: (bind: Bind, outbound: OutboundPolicy) =>
      samlRoutes(bind, createSamlConfigService({ db, keys, publicUrl, outbound })),
  };
}

export type Saml = ReturnType<typeof createSaml>;
