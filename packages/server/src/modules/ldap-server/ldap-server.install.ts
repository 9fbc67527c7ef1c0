import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { LdapServerConfig } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import type { SignInService } from '../signin/signin.service.ts';
import { createLdapBinds } from './ldap-bind.ts';
import { ldapConfigRoutes } from './ldap-config.routes.ts';
import { createLdapConfigService } from './ldap-config.service.ts';
import { createDirectoryQueries } from './ldap-directory.repo.ts';
import { createLdapNames } from './ldap-names.ts';
import { createSearch } from './ldap-search.ts';
import { createLdapServer } from './ldap-server.ts';
import { fixedTls, installationTls } from './ldap-tls.ts';

/** The LDAP server of a running instance: its ports. */
export interface RunningLdap {
  port: number;
  ldapsPort: number | null;
  /** The installation's certificate when the operator gave none (LDAPS and StartTLS use it). */
  installationCertificate: Awaited<ReturnType<typeof installationTls>> | null;
}

/** The names an installation certificate is issued for when the configuration names none. */
export const DEFAULT_CERTIFICATE_NAMES = ['localhost', '127.0.0.1'];

/**
 * The read-only LDAP directory (issue 32): started with the process when the configuration
 * gives it a port. The console's calls (the LDAP tab of an application) are in ldap-config.
 */
export function createLdapDirectory(deps: {
  db: Db;
  sealer: Sealer;
  signIn: SignInService;
  mfa: Pick<MfaService, 'requirementIn' | 'boundFactors'>;
  log: FastifyBaseLogger;
  config: LdapServerConfig | undefined;
  version: string;
}) {
  const { config } = deps;
  const names = createLdapNames(config?.suffix ?? 'dc=tessera');
  let server: ReturnType<typeof createLdapServer> | null = null;
  return {
    names,
    /** The console's calls: an application's LDAP settings and service account secret. */
    routes: (bind: Bind) => ldapConfigRoutes(bind, createLdapConfigService({ db: deps.db, names })),
    async start(): Promise<RunningLdap | null> {
      if (!config || config.port === null) return null;
      // The operator's certificate, or one the installation CA issues (and renews) for the
      // server's names: StartTLS is always offered, LDAPS where a port is given.
      const installation =
        config.certFile && config.keyFile
          ? null
          : await installationTls({
              db: deps.db,
              sealer: deps.sealer,
              names: config.certificateNames ?? DEFAULT_CERTIFICATE_NAMES,
              log: deps.log,
            });
      const tls =
        installation ??
        fixedTls(await readFile(config.certFile as string), await readFile(config.keyFile as string));
      server = createLdapServer({
        binds: createLdapBinds({ db: deps.db, signIn: deps.signIn, mfa: deps.mfa }),
        search: createSearch({ queries: createDirectoryQueries(deps.db, names), names }),
        names,
        log: deps.log,
        tls,
        version: deps.version,
      });
      try {
        const ports = await server.start({
          host: config.host,
          port: config.port,
          ldapsPort: config.ldapsPort,
        });
        return { ...ports, installationCertificate: installation };
      } catch (error) {
        await server.close();
        throw new Error(
          `the LDAP server cannot listen on ${config.host}:${config.port} (${(error as Error).message}); set TESSERA_LDAP_PORT`,
        );
      }
    },
    async close() {
      await server?.close();
    },
  };
}

export type LdapDirectory = ReturnType<typeof createLdapDirectory>;
