import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import SCIMMY from 'scimmy';
import SCIMMYRouters from 'scimmy-routers';

/**
 * A real SCIM 2.0 service provider for tests: SCIMMY (schema validation, filters, PATCH, PUT)
 * behind scimmy-routers on Express, with a small in-memory store of Users, on a free port of
 * 127.0.0.1. SCIMMY's resource declarations are global to the process: one peer per test file.
 *
 * - `users` is the store (by id); `requests` records every request (method, path, body,
 *   authorization) so tests can check what was sent, and that the token went nowhere else.
 * - `failNext(status, times, method?)` answers the next requests with a SCIM error instead.
 * - userName is unique (409 `uniqueness`, as RFC 7644 §3.3 says).
 */

export interface ScimPeerRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

export interface ScimPeer {
  baseUrl: string;
  token: string;
  users: Map<string, Record<string, unknown>>;
  requests: ScimPeerRequest[];
  failNext(status: number, times?: number, method?: string): void;
  /** Adds a user directly to the store (an account that already exists there). */
  seed(user: Record<string, unknown>): string;
  close(): Promise<void>;
}

type Stored = Record<string, unknown> & { id: string; userName: string };

export async function startScimPeer(options: { token?: string } = {}): Promise<ScimPeer> {
  const token = options.token ?? `peer-${randomUUID()}`;
  const users = new Map<string, Stored>();
  /** Lowercase userName -> user (userName is not case-exact: RFC 7643 §4.1.1). */
  const byUserName = new Map<string, Stored>();
  const requests: ScimPeerRequest[] = [];
  const faults: { status: number; method?: string }[] = [];

  SCIMMY.Config.set({
    patch: true,
    filter: 200,
    sort: false,
    bulk: false,
    etag: false,
    changePassword: false,
  });
  const User = SCIMMY.Resources.User as typeof SCIMMY.Resources.User & {
    extend(schema: unknown, required?: boolean): unknown;
  };
  if (!SCIMMY.Resources.declared('User')) {
    User.extend(SCIMMY.Schemas.EnterpriseUser, false);
    SCIMMY.Resources.declare(User);
  }
  User.ingress((resource, instance) => {
    const record = JSON.parse(JSON.stringify(instance)) as Stored;
    delete (record as { meta?: unknown }).meta;
    const clash = [...users.values()].find(
      (user) =>
        user.userName.toLowerCase() === String(record.userName).toLowerCase() && user.id !== resource.id,
    );
    if (clash) throw new SCIMMY.Types.Error(409, 'uniqueness', `userName ${record.userName} is taken`);
    if (resource.id) {
      if (!users.has(resource.id)) throw new SCIMMY.Types.Error(404, null as never, `no user ${resource.id}`);
      record.id = resource.id;
    } else record.id = randomUUID();
    const stored = {
      ...record,
      meta: { resourceType: 'User', created: new Date(), lastModified: new Date() },
    };
    const previous = users.get(record.id);
    if (previous) byUserName.delete(previous.userName.toLowerCase());
    users.set(record.id, stored as Stored);
    byUserName.set(String(record.userName).toLowerCase(), stored as Stored);
    return stored;
  });
  User.egress((resource) => {
    if (resource.id) {
      const user = users.get(resource.id);
      if (!user) throw new SCIMMY.Types.Error(404, null as never, `no user ${resource.id}`);
      return user;
    }
    // `userName eq` (how a client looks for an account before creating it) by an index, as a
    // real service would: a scan per lookup would make a 10 000-person benchmark time the peer.
    const [only, ...more] = (resource.filter ?? []) as unknown as Record<string, unknown[]>[];
    const wanted = only && !more.length && Object.keys(only).length === 1 ? only.userName : undefined;
    if (wanted?.[0] === 'eq' && typeof wanted[1] === 'string') {
      const found = byUserName.get(wanted[1].toLowerCase());
      return found ? [found] : [];
    }
    const all = [...users.values()];
    return resource.filter ? resource.filter.match(all) : all;
  });
  User.degress((resource) => {
    const user = resource.id ? users.get(resource.id) : undefined;
    if (!user) throw new SCIMMY.Types.Error(404, null as never, `no user ${resource.id}`);
    users.delete(user.id);
    byUserName.delete(user.userName.toLowerCase());
  });

  const app = express();
  app.use(express.json({ type: ['application/json', 'application/scim+json'] }));
  app.use((req, res, next) => {
    requests.push({
      method: req.method,
      path: req.originalUrl,
      body: req.body,
      authorization: req.headers.authorization,
    });
    const fault = faults[0];
    if (fault && (!fault.method || fault.method === req.method)) {
      faults.shift();
      res
        .status(fault.status)
        .type('application/scim+json')
        .json({
          schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
          status: String(fault.status),
          detail: `planted failure ${fault.status}`,
        });
      return;
    }
    next();
  });
  app.use(
    '/scim/v2',
    new SCIMMYRouters({
      type: 'bearer',
      handler: (req: { headers: Record<string, unknown> }) => {
        if (req.headers.authorization !== `Bearer ${token}`) throw new Error('wrong token');
        return 'provisioner';
      },
    }) as unknown as express.Router,
  );

  const server = await new Promise<import('node:http').Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/scim/v2`,
    token,
    users: users as Map<string, Record<string, unknown>>,
    requests,
    failNext(status, times = 1, method) {
      for (let i = 0; i < times; i++) faults.push({ status, method });
    },
    seed(user) {
      const id = randomUUID();
      const stored = {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        ...user,
        id,
      } as unknown as Stored;
      users.set(id, stored);
      byUserName.set(stored.userName.toLowerCase(), stored);
      return id;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
