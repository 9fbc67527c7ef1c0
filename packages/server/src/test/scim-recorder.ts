import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A SCIM service that records what it is sent, for tests of the exact request bodies (PATCH
 * operations, PUT resources): it answers ServiceProviderConfig (PATCH supported or not, as the
 * test sets), an empty `userName eq` search, and takes every POST, PATCH, PUT and DELETE of
 * /Users with the bearer token it was given. It stores nothing.
 */
export interface RecordingScim {
  baseUrl: string;
  token: string;
  patchSupported: boolean;
  requests: { method: string; path: string; body: unknown }[];
  /** The bodies of the requests of a method, in order. */
  bodies(method: string): unknown[];
  /** The id given to the last account created. */
  lastId(): string;
  close(): Promise<void>;
}

export async function startRecordingScim(): Promise<RecordingScim> {
  const token = `recorder-${randomUUID()}`;
  let lastId = '';
  const state: RecordingScim = {
    baseUrl: '',
    token,
    patchSupported: true,
    requests: [],
    bodies: (method) => state.requests.filter((r) => r.method === method).map((r) => r.body),
    lastId: () => lastId,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const send = (res: import('node:http').ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/scim+json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { detail: 'wrong token' });
      const path = (req.url ?? '').replace(/^\/scim/, '');
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      if (req.method === 'GET' && path === '/ServiceProviderConfig')
        return send(res, 200, {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
          patch: { supported: state.patchSupported },
          filter: { supported: true, maxResults: 100 },
        });
      if (req.method === 'GET') return send(res, 200, { totalResults: 0, Resources: [] });
      state.requests.push({ method: req.method ?? '', path, body });
      if (req.method === 'POST') {
        lastId = randomUUID();
        return send(res, 201, { ...body, id: lastId });
      }
      if (req.method === 'DELETE') return send(res, 204);
      return send(res, 200, { ...body, id: path.split('/').pop() });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scim`;
  return state;
}
