import SCIMMY from 'scimmy';
import { expect } from 'vitest';
import { call, type TestContext } from '../../test/harness.ts';

/**
 * What the SCIM tests share: a token made through the console call, requests as a SCIM client
 * sends them, and SCIMMY (a third-party implementation of RFC 7643) checking every resource we
 * answer against the RFC's schema definitions.
 */

export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

SCIMMY.Schemas.User.definition.extend(SCIMMY.Schemas.EnterpriseUser.definition, false);

type Doc = Record<string, unknown>;

export async function createToken(
  ctx: TestContext,
  company: { token: string; companyId: string },
  name = 'Entra provisioning',
  groupsAs: 'departments' | 'roles' = 'departments',
) {
  const created = await call<{ secret: string; tokenId: string }>(
    ctx,
    '/api/v1/manage/company/scim/token/create',
    { name, expiresInDays: 30, groupsAs },
    company,
  );
  if (created.code !== 200) throw new Error(`token not created: ${created.msg}`);
  return created.data;
}

export interface ScimAnswer {
  status: number;
  body: Doc;
  headers: Record<string, unknown>;
}

export function scimClient(ctx: TestContext, companyId: string, secret: string, ip = '127.0.0.1') {
  return async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer> => {
    const response = await ctx.tessera.app.inject({
      method,
      url: `/scim/v2/${companyId}${path}`,
      remoteAddress: ip,
      headers: {
        ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return {
      status: response.statusCode,
      body: response.body ? (response.json() as Doc) : {},
      headers: response.headers as Record<string, unknown>,
    };
  };
}

/** SCIMMY's coercion keeps what its schema defines: nothing of ours may be dropped or refused. */
export function assertValidUser(resource: Doc) {
  const coerced = SCIMMY.Schemas.User.definition.coerce(structuredClone(resource), 'out') as Doc;
  for (const key of Object.keys(resource)) expect(coerced, `SCIMMY kept ${key}`).toHaveProperty([key]);
  expect(coerced.userName).toBe(resource.userName);
}

export function assertValidGroup(resource: Doc) {
  const coerced = SCIMMY.Schemas.Group.definition.coerce(structuredClone(resource), 'out') as Doc;
  for (const key of Object.keys(resource)) expect(coerced, `SCIMMY kept ${key}`).toHaveProperty([key]);
}

export function assertScimError(answer: ScimAnswer, status: number, scimType?: string) {
  expect(answer.status).toBe(status);
  expect(answer.body.schemas).toEqual([ERROR]);
  expect(answer.body.status).toBe(String(status));
  if (scimType) expect(answer.body.scimType).toBe(scimType);
  expect(typeof answer.body.detail).toBe('string');
  expect(String(answer.headers['content-type'])).toContain('application/scim+json');
}
