import type { FastifyRequest } from 'fastify';
import { INTERACTION_PATH, OIDC_MOUNT } from '../modules/oidc/provider.ts';
import { SIGN_IN_LINK_PATH } from '../modules/portal/sign-in-link.routes.ts';

/**
 * What the server log says of a request. Fastify logs each request's address; addresses carry
 * secrets: authorization codes (`/dev/?code=`, an app's callback), ID tokens (`id_token_hint` of
 * a logout, with the person's name and email), sign-in link tokens (in the path). Only the
 * method, the address with those parts replaced, the host and the peer are written: never a
 * header (cookies, `authorization`, `access_token`) nor a body.
 */

const REDACTED = '[redacted]';

/** Query parameters that are secrets (or identify a person) wherever they appear. */
const secretParams = new Set([
  'code',
  // DingTalk's name for the authorisation code (authCode, compared in lower case).
  'authcode',
  'state',
  'token',
  'id_token',
  'id_token_hint',
  'access_token',
  'refresh_token',
  'client_secret',
  'code_verifier',
  'login_hint',
  'password',
  // CAS tickets (modules/cas): service, proxy and proxy-granting tickets and their IOUs.
  'ticket',
  'pgt',
  'pgtid',
  'pgtiou',
]);

/** The protocol paths: their whole query string is left out, whatever its parameters are called. */
const protocolPaths = [OIDC_MOUNT, INTERACTION_PATH];

const underPath = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

const paramName = (pair: string) => {
  const name = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
};

/** The request address as the log may show it. */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  let path = mark < 0 ? url : url.slice(0, mark);
  if (underPath(path, SIGN_IN_LINK_PATH)) path = `${SIGN_IN_LINK_PATH}/${REDACTED}`;
  if (mark < 0) return path;
  const query = url.slice(mark + 1);
  if (protocolPaths.some((prefix) => underPath(path, prefix))) return `${path}?${REDACTED}`;
  const kept = query
    .split('&')
    .map((pair) => (secretParams.has(paramName(pair)) ? `${pair.split('=', 1)[0]}=${REDACTED}` : pair));
  return `${path}?${kept.join('&')}`;
}

/** Fastify's request serializer (its own fields), with the address redacted. */
export const requestLogSerializer = (request: FastifyRequest) => ({
  method: request.method,
  url: redactUrl(request.url),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});
