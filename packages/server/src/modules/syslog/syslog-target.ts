import { AppError } from '../../lib/errors.ts';
import { createAddressPolicy, type OutboundPolicy, parseAddress } from '../../lib/outbound-address.ts';

/**
 * Where a company's syslog may go, judged by the shared outbound rule (lib/outbound-address.ts)
 * with syslog's own policy: private networks are allowed, since that is where syslog receivers
 * live; loopback, link-local and cloud metadata addresses only when the operator sets
 * TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS (a company administrator names the host: the server must not
 * become their way into its own machine, nor a port scanner of it through the delivery status).
 * The check runs where the settings are saved, for a clear message, and at every connection on
 * the address the name resolves to then, which is the address dialled (no second lookup that a
 * rebinding DNS server could answer differently).
 */
export function createSyslogAddressPolicy(allowLocalTargets: boolean): OutboundPolicy {
  return createAddressPolicy({
    networks: [],
    kinds: allowLocalTargets ? ['private', 'loopback', 'link-local', 'metadata'] : ['private'],
  });
}

const HOSTNAME =
  /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** An IP address in any spelling, or a DNS name (a name whose last label is a number is neither). */
function assertHostSyntax(host: string): void {
  if (parseAddress(host)) return;
  if (!HOSTNAME.test(host) || /(^|\.)\d+\.?$/.test(host)) throw new AppError('syslog.host_invalid');
}

const refused = (error: unknown) => (error as { code?: string }).code === 'EADDRREFUSED';

/** At saving: refuses a host that is, or resolves only to, refused addresses (a name that does not resolve yet may be saved). */
export async function assertTargetAllowed(policy: OutboundPolicy, host: string): Promise<void> {
  assertHostSyntax(host);
  try {
    await policy.resolve(host);
  } catch (error) {
    if (refused(error)) throw new AppError('syslog.host_not_allowed');
  }
}

/** At every connection: the address to dial, resolved once under the rule. */
export async function targetAddress(policy: OutboundPolicy, host: string): Promise<string> {
  assertHostSyntax(host);
  try {
    const [first] = await policy.resolve(host);
    if (!first) throw new Error(`the name ${host} has no address`);
    return first.address;
  } catch (error) {
    // Shown as the status's last error: a sentence, as the other delivery errors.
    if (refused(error))
      throw Object.assign(
        new Error(`${host} is a loopback, link-local or cloud metadata address: not sent`),
        {
          code: 'EADDRREFUSED',
        },
      );
    throw new Error(`the name ${host} cannot be resolved (${(error as Error).message})`);
  }
}
