import type { CompanyCreationMode, SetupItemKey } from '@tessera/contract';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { LicenseService } from '../license/license.service.ts';
import { companyCreationMode, setCompanyCreationMode } from './platform-settings.repo.ts';

export interface PlatformActor {
  accountId: string;
  isPlatformAdmin: boolean;
  ip: string;
}

type SetupConfig = Pick<Config, 'publicUrl'> &
  Partial<Pick<Config, 'mail' | 'outboundNetworks' | 'trustedProxies' | 'metricsToken' | 'radius'>>;

interface SetupItem {
  key: SetupItemKey;
  state: 'ok' | 'attention' | 'off';
  value: string | null;
  variables: string[];
}

/** The host of the SMTP URL: its credentials are never shown. */
const smtpHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

const isLocalHost = (url: string) => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);

/**
 * The installation's setup for its platform administrator (the platform console's setup page)
 * and the one setting stored in the database, who may create companies.
 */
export function createPlatformService(deps: {
  db: Db;
  config: SetupConfig;
  /** Where the data lives: what a backup must hold. */
  storage: 'postgres' | 'pglite';
  licenses: Pick<LicenseService, 'info'>;
  /** Whether RADIUS is listening, and on which port (the configured port may be 0: any free one). */
  radiusPort: () => number | null;
}) {
  const { db, config } = deps;
  const assertPlatformAdmin = (actor: PlatformActor) => {
    if (!actor.isPlatformAdmin) throw new AppError('platform.platform_admin_only');
  };

  async function setupItems(): Promise<SetupItem[]> {
    const { publicUrl, trustedProxies } = config;
    const outboundNetworks = config.outboundNetworks ?? [];
    const smtpUrl = config.mail?.smtpUrl;
    const user = (await deps.licenses.info()).Info[0];
    const radiusPort = deps.radiusPort();
    const mode = await companyCreationMode(db);
    return [
      {
        key: 'publicUrl',
        // People's browsers and applications use this address: plain http is for a trial on this machine.
        state: publicUrl.startsWith('https://') ? 'ok' : 'attention',
        value: publicUrl,
        variables: ['TESSERA_PUBLIC_URL'],
      },
      {
        key: 'mail',
        state: smtpUrl ? 'ok' : 'off',
        value: smtpUrl ? `${smtpHost(smtpUrl)} (${config.mail?.from})` : null,
        variables: ['TESSERA_SMTP_URL', 'TESSERA_MAIL_FROM'],
      },
      {
        key: 'outboundNetworks',
        state: outboundNetworks === 'all' || outboundNetworks.length ? 'ok' : 'attention',
        value: outboundNetworks === 'all' ? 'all' : outboundNetworks.join(', ') || null,
        variables: ['TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
      },
      {
        key: 'trustedProxies',
        state: trustedProxies === undefined ? (isLocalHost(publicUrl) ? 'off' : 'attention') : 'ok',
        value: trustedProxies === undefined ? null : String(trustedProxies),
        variables: ['TESSERA_TRUSTED_PROXIES'],
      },
      {
        key: 'metrics',
        state: config.metricsToken ? 'ok' : 'off',
        value: config.metricsToken ? `${publicUrl}/metrics` : null,
        variables: ['TESSERA_METRICS_TOKEN'],
      },
      {
        key: 'radius',
        state: radiusPort === null ? 'off' : 'ok',
        value: radiusPort === null ? null : `udp ${config.radius?.host ?? '0.0.0.0'}:${radiusPort}`,
        variables: ['TESSERA_RADIUS_PORT', 'TESSERA_RADIUS_HOST'],
      },
      {
        key: 'licence',
        state: user?.status === 'normal' ? 'ok' : 'attention',
        value: user ? `${user.status}${user.expiresAt ? ` (${user.expiresAt.slice(0, 10)})` : ''}` : null,
        variables: ['TESSERA_LICENSE_PUBLIC_KEY'],
      },
      {
        key: 'backups',
        // What to back up: the PostgreSQL database, or the embedded database's folder (with the
        // master key file, unless the key comes from TESSERA_MASTER_KEY).
        state: deps.storage === 'postgres' ? 'ok' : 'attention',
        value: deps.storage === 'postgres' ? 'PostgreSQL' : 'PGlite',
        variables: ['DATABASE_URL', 'TESSERA_DATA_DIR', 'TESSERA_MASTER_KEY'],
      },
      { key: 'companyCreation', state: 'ok', value: mode, variables: [] },
    ];
  }

  return {
    async setup(actor: PlatformActor) {
      assertPlatformAdmin(actor);
      return { items: await setupItems() };
    },

    async companyCreation(actor: PlatformActor) {
      const mode = await companyCreationMode(db);
      return { mode, mayCreate: mode === 'everyone' || actor.isPlatformAdmin };
    },

    async setCompanyCreation(actor: PlatformActor, mode: CompanyCreationMode) {
      assertPlatformAdmin(actor);
      await db.transaction().execute(async (trx) => {
        const before = await companyCreationMode(trx);
        if (before === mode) return;
        await setCompanyCreationMode(trx, mode);
        await insertAuditEvent(trx, {
          companyId: null,
          actorAccountId: actor.accountId,
          action: 'platform.company_creation.update',
          targetType: 'platform',
          targetId: null,
          before: { companyCreation: before },
          after: { companyCreation: mode },
          ip: actor.ip,
        });
      });
      return { mode, mayCreate: true };
    },

    /** Refuses a company's creation to a person the installation does not let create one. */
    async assertMayCreateCompany(actor: { isPlatformAdmin: boolean }, from: Db = db) {
      if (actor.isPlatformAdmin) return;
      if ((await companyCreationMode(from)) === 'platform_admins')
        throw new AppError('company.create_platform_only');
    },
  };
}

export type PlatformService = ReturnType<typeof createPlatformService>;
