import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Profile, SAML, type SamlConfig } from '@node-saml/node-saml';
import { generateSigningKey } from '../modules/saml/saml-certificates.ts';
import { certificatePem } from '../modules/saml/saml-signature.ts';

/**
 * A small SAML service provider for tests: @node-saml/node-saml (the library passport-saml and
 * many Node applications use) behind an HTTP server on 127.0.0.1. It signs its requests, can
 * decrypt assertions, keeps a session per browser (cookie `sp<port>`), and answers single logout.
 */
export interface TestServiceProvider {
  baseUrl: string;
  /**
   * With `application`: the SP's application, on another origin (another port of 127.0.0.1), to
   * which its ACS answers a valid response with a 303 (as many SPs do); `/app?ticket=` shows the
   * profile of that sign-in.
   */
  applicationUrl?: string;
  entityId: string;
  metadataUrl: string;
  metadata: string;
  /** PEM of the key pair the SP signs with (to forge or re-sign messages in attack tests). */
  signingKeyPem: string;
  signingCertPem: string;
  /** What the SP saw, in order: sign-ins (with the profile), refusals, logouts. */
  events: {
    kind: 'signed_in' | 'refused' | 'logged_out' | 'logout_response';
    profile?: Profile | null;
    error?: string;
    /** The SAMLResponse as it arrived (base64 decoded). */
    response?: string;
  }[];
  /** Points the SP at an identity provider (its endpoints and certificates). */
  useIdp(
    idp: { ssoUrl: string; sloUrl: string; certificates: string[]; entityId: string },
    options?: Partial<SamlConfig>,
  ): void;
  saml(): SAML;
  close(): Promise<void>;
}

const body = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
};

export async function startTestServiceProvider(
  options: { entityId?: string; application?: boolean } = {},
): Promise<TestServiceProvider> {
  const signing = await generateSigningKey('CN=Test SP signing');
  const encryption = await generateSigningKey('CN=Test SP encryption');
  const signingKeyPem = signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const signingCertPem = certificatePem(signing.certificate);
  const sessions = new Map<string, Profile>();
  const events: TestServiceProvider['events'] = [];
  let saml: SAML | undefined;
  let counter = 0;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const application = options.application ? await startApplication() : undefined;
  const entityId = options.entityId ?? `${baseUrl}/metadata`;
  // Cookies do not tell ports apart: each SP on 127.0.0.1 names its own.
  const cookieName = () => `sp${(server.address() as AddressInfo).port}`;
  const spConfig = {
    issuer: entityId,
    callbackUrl: `${baseUrl}/acs`,
    logoutCallbackUrl: `${baseUrl}/slo`,
    privateKey: signingKeyPem,
    publicCert: signingCertPem,
    decryptionPvk: encryption.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    signatureAlgorithm: 'sha256' as const,
    digestAlgorithm: 'sha256',
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    validateInResponseTo: 'ifPresent' as SamlConfig['validateInResponseTo'],
    audience: entityId,
    disableRequestedAuthnContext: true,
  };
  const metadata = new SAML({ ...spConfig, idpCert: signingCertPem }).generateServiceProviderMetadata(
    certificatePem(encryption.certificate),
    signingCertPem,
  );

  const sessionOf = (request: IncomingMessage) =>
    new RegExp(`(?:^|; )${cookieName()}=([^;]+)`).exec(request.headers.cookie ?? '')?.[1];
  const json = (
    response: ServerResponse,
    status: number,
    value: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(value));
  };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', baseUrl);
    const sp = saml as SAML;
    if (url.pathname === '/metadata') {
      response.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
      return response.end(metadata);
    }
    if (url.pathname === '/login') {
      const relay = url.searchParams.get('relay') ?? '';
      if (url.searchParams.get('binding') === 'post') {
        const form = await sp.getAuthorizeFormAsync(relay, undefined, {});
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end(form);
      }
      response.writeHead(302, { location: await sp.getAuthorizeUrlAsync(relay, undefined, {}) });
      return response.end();
    }
    if (url.pathname === '/acs' && request.method === 'POST') {
      try {
        const form = await body(request);
        const { profile } = await sp.validatePostResponseAsync(form);
        const id = `s${++counter}`;
        if (profile) sessions.set(id, profile);
        const received = Buffer.from(form.SAMLResponse ?? '', 'base64').toString('utf8');
        events.push({ kind: 'signed_in', profile, response: received });
        if (application) {
          response.writeHead(303, {
            location: `${application.url}/app?ticket=${id}`,
            'set-cookie': `${cookieName()}=${id}; Path=/; HttpOnly`,
          });
          return response.end();
        }
        return json(
          response,
          200,
          { profile, relayState: null },
          { 'set-cookie': `${cookieName()}=${id}; Path=/; HttpOnly` },
        );
      } catch (error) {
        events.push({ kind: 'refused', error: (error as Error).message });
        return json(response, 401, { error: (error as Error).message });
      }
    }
    if (url.pathname === '/me')
      return json(response, 200, { profile: sessions.get(sessionOf(request) ?? '') ?? null });
    if (url.pathname === '/logout') {
      const profile = sessions.get(sessionOf(request) ?? '');
      if (!profile) return json(response, 401, { error: 'not signed in' });
      response.writeHead(302, { location: await sp.getLogoutUrlAsync(profile, 'after-logout', {}) });
      return response.end();
    }
    if (url.pathname === '/slo') {
      const form = request.method === 'POST' ? await body(request) : undefined;
      const result = !form
        ? await sp.validateRedirectAsync(Object.fromEntries(url.searchParams), url.search.slice(1))
        : form.SAMLResponse
          ? await sp.validatePostResponseAsync(form)
          : await sp.validatePostRequestAsync(form);
      const profile = result.profile;
      if (!profile) {
        // A LogoutResponse: the SP-initiated logout came back.
        events.push({ kind: 'logout_response' });
        return json(response, 200, { loggedOut: true, relayState: url.searchParams.get('RelayState') });
      }
      for (const [id, signedIn] of sessions) if (signedIn.nameID === profile.nameID) sessions.delete(id);
      events.push({ kind: 'logged_out', profile });
      const relay = (form ? form.RelayState : url.searchParams.get('RelayState')) ?? '';
      response.writeHead(302, { location: await sp.getLogoutResponseUrlAsync(profile, relay, {}, true) });
      return response.end();
    }
    return json(response, 404, { error: 'not found' });
  }

  /** The application behind the SP: shows the profile of a sign-in by its ticket. */
  async function startApplication() {
    const app = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const profile =
        url.pathname === '/app' ? sessions.get(url.searchParams.get('ticket') ?? '') : undefined;
      json(response, profile ? 200 : 404, profile ? { application: true, profile } : { error: 'not found' });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => app.close(() => resolve())),
    };
  }

  return {
    baseUrl,
    applicationUrl: application?.url,
    entityId,
    metadataUrl: `${baseUrl}/metadata`,
    metadata,
    signingKeyPem,
    signingCertPem,
    events,
    useIdp(idp, extra = {}) {
      saml = new SAML({
        ...spConfig,
        entryPoint: idp.ssoUrl,
        logoutUrl: idp.sloUrl,
        idpIssuer: idp.entityId,
        idpCert: idp.certificates.map(certificatePem),
        ...extra,
      });
    },
    saml: () => saml as SAML,
    async close() {
      await application?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
