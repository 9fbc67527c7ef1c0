import { session as calls, consoleVariants } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { SessionService } from './session.service.ts';

export function sessionRoutes(bind: Bind, service: SessionService) {
  bind(calls.ssoConfig, async ({ body }) => service.ssoConfig(body.variant));
  for (const variant of consoleVariants) {
    bind(calls.oidcToken[variant], async ({ body }) =>
      service.exchangeCode(variant, body.code, body.codeVerifier),
    );
    bind(calls.oidcRefresh[variant], async ({ session, rawToken }) => service.refresh(session, rawToken));
    bind(calls.logout[variant], async ({ session }) => service.logout(session));
  }
}
