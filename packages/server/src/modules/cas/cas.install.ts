import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { departmentPathsOf } from '../department/department.repo.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import { casRoutes } from './cas.routes.ts';
import { createCasConfigService } from './cas-config.service.ts';
import { CAS_CALLBACK_PATH, CAS_LOGOUT_RETURN_PATH, createCasLogin } from './cas-login.service.ts';
import { createCasSlo } from './cas-slo.ts';
import { createCasValidation } from './cas-validate.service.ts';
import { casWebRoutes } from './cas-web.routes.ts';

/**
 * CAS applications: single logout, which the OIDC provider needs before it is built (CAS
 * sign-ins are authorizations of internal clients that come back to these addresses); then the
 * CAS endpoints of each company and the console's calls.
 */
export function createCas(deps: {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  issuer: string;
  outbound: OutboundPolicy;
  log?: FastifyBaseLogger;
}) {
  const { db, sealer, publicUrl, issuer, outbound } = deps;
  const slo = createCasSlo({ db, outbound, log: deps.log });
  return {
    slo,
    clientUrls: {
      callback: `${publicUrl}${CAS_CALLBACK_PATH}`,
      logoutReturn: `${publicUrl}${CAS_LOGOUT_RETURN_PATH}`,
    },
    /** The CAS endpoints. */
    webRoutes: (
      app: FastifyInstance,
      web: {
        tokenEndpoint: TokenEndpoint;
        accounts: Pick<AccountsRepo, 'findAccountById'>;
        permissions(
          app: { appId: string; companyId: string },
          accountId: string,
        ): Promise<Record<string, string[]>>;
        secureCookies: boolean;
      },
    ) =>
      casWebRoutes(app, {
        login: createCasLogin({ db, sealer, publicUrl, issuer, tokenEndpoint: web.tokenEndpoint }),
        validation: createCasValidation({
          db,
          outbound,
          findAccount: web.accounts.findAccountById,
          departmentPaths: (companyId, accountId) => departmentPathsOf(db, companyId, accountId),
          permissions: web.permissions,
        }),
        secureCookies: web.secureCookies,
      }),
    /** The console's calls: an application's CAS settings. */
    routes: (bind: Bind) => casRoutes(bind, createCasConfigService({ db, publicUrl })),
  };
}

export type Cas = ReturnType<typeof createCas>;
