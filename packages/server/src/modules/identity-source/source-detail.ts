import type { Sealer } from '../../lib/crypto.ts';
import type * as repo from './identity-source.repo.ts';
import { openOidcSecret } from './oidc/oidc-secret.ts';
import { samlSourceView } from './saml-source/saml-source-settings.ts';
import { callbackUrlOf } from './scan/scan-settings.ts';
import { secretPurpose } from './source-settings.ts';
import { upstreamUrlsOf } from './upstream/upstream-settings.ts';

/** What a source's detail screen shows, by kind: its settings without secrets, and what to give the provider. */
export function sourceDetailOf<Base>(
  deps: { publicUrl: string; sealer: Sealer },
  source: repo.AnySource,
  base: Base,
) {
  const { sealer } = deps;
  const common = { name: source.name, enabled: source.enabled };
  const callbackUrl = callbackUrlOf(deps.publicUrl, source.id);
  const secretSet = Boolean(source.secret_sealed);
  switch (source.type) {
    case 'ldap':
      return {
        ...base,
        type: source.type,
        settings: {
          ...source.settings,
          ...common,
          syncIntervalMinutes: source.sync_interval_minutes,
          bindPasswordSet: secretSet,
        },
      };
    case 'dingtalk':
      return {
        ...base,
        type: source.type,
        callbackUrl,
        settings: {
          ...source.settings,
          ...common,
          syncIntervalMinutes: source.sync_interval_minutes,
          secretSet,
        },
      };
    case 'weixin':
      return {
        ...base,
        type: source.type,
        callbackUrl,
        settings: { ...source.settings, ...common, secretSet },
      };
    case 'work_weixin':
      return {
        ...base,
        type: source.type,
        callbackUrl,
        settings: {
          ...source.settings,
          ...common,
          syncIntervalMinutes: source.sync_interval_minutes,
          secretSet,
        },
      };
    case 'oidc':
      return {
        ...base,
        type: source.type,
        ...upstreamUrlsOf(deps.publicUrl, source.id),
        settings: {
          ...source.settings,
          ...common,
          secretSet: Boolean(
            openOidcSecret(sealer, source.secret_sealed, secretPurpose(source.id)).clientSecret,
          ),
        },
      };
    case 'saml': {
      const view = samlSourceView(deps.publicUrl, source.id, source.settings);
      return { ...base, type: source.type, ...view, settings: { ...view.settings, ...common } };
    }
  }
}
