import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { samlLimits } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import { type OutboundPolicy, refusalMessage } from '../../lib/outbound-address.ts';

/**
 * Fetches a service provider's metadata once, when an administrator asks (never on a schedule),
 * without letting the URL reach inside: the host is resolved first under the installation's
 * outbound rule (lib/outbound-address.ts) and the connection goes to a checked address (no second
 * lookup a rebinding DNS server could answer differently). At most 3 redirects (each checked),
 * 10 s, 512 KiB.
 */

async function checkedAddress(url: URL, outbound: OutboundPolicy) {
  try {
    const [first] = await outbound.resolve(url.hostname);
    return first as { address: string; family: number };
  } catch (error) {
    if ((error as { code?: string }).code === 'EADDRREFUSED') {
      const { reason, params } = refusalMessage(error);
      throw new AppError(reason, params);
    }
    throw new AppError('saml.fetch_failed', { reason: 'DNS' });
  }
}

function get(url: URL, address: { address: string; family: number }, deadline: number) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml', 'user-agent': 'Tessera' },
      timeout: Math.max(1, deadline - Date.now()),
      lookup: (_host, _options, callback) => callback(null, address.address, address.family),
    });
    req.on('timeout', () => req.destroy(new AppError('saml.fetch_failed', { reason: 'timeout' })));
    req.on('error', (error) =>
      reject(
        error instanceof AppError ? error : new AppError('saml.fetch_failed', { reason: error.message }),
      ),
    );
    req.on('response', resolve);
    req.end();
  });
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > samlLimits.metadataBytes) {
      response.destroy();
      throw new AppError('saml.metadata_too_large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function fetchMetadata(address: string, outbound: OutboundPolicy): Promise<string> {
  const deadline = Date.now() + 10_000;
  let url = new URL(address);
  for (let hop = 0; hop <= 3; hop++) {
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
      throw new AppError('saml.url_invalid');
    const response = await get(url, await checkedAddress(url, outbound), deadline);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      url = new URL(response.headers.location, url);
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new AppError('saml.fetch_failed', { reason: `HTTP ${status}` });
    }
    return readBody(response);
  }
  throw new AppError('saml.fetch_failed', { reason: 'too many redirects' });
}
