import { z } from 'zod';
import { type CallAtPath, envelope, errorData } from './call.ts';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' });

/** The OpenAPI 3 document of the given calls (one entry per path), generated from their contract schemas. */
export function buildOpenApiDocument(
  calls: readonly CallAtPath[],
  info: { version: string; serverUrl: string },
) {
  const paths: Record<string, unknown> = {};
  for (const call of calls) {
    const requestBody = call.upload
      ? {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: [call.upload.field],
                properties: {
                  // Text fields first: the server reads them before the file.
                  ...((jsonSchema(call.request, 'input') as { properties?: object }).properties ?? {}),
                  [call.upload.field]: { type: 'string', format: 'binary' },
                },
              },
            },
          },
        }
      : { required: false, content: { 'application/json': { schema: jsonSchema(call.request, 'input') } } };
    // A call open to programmatic access accounts also takes their bearer token instead of the
    // console's access_token header; the company is then the account's own.
    const parameters = [
      ...(call.auth === 'session'
        ? [{ name: 'access_token', in: 'header', required: !call.apiAccess, schema: { type: 'string' } }]
        : []),
      ...(call.tenant
        ? [{ name: 'company_id', in: 'header', required: !call.apiAccess, schema: { type: 'string' } }]
        : []),
    ];
    paths[call.path] = {
      post: {
        summary: call.summary,
        ...(call.aliasOf
          ? {
              description: `Another path of ${call.aliasOf}: the same request, rules and answer.`,
              'x-alias-of': call.aliasOf,
            }
          : {}),
        tags: [call.tag],
        parameters,
        ...(call.apiAccess
          ? {
              'x-api-access': true,
              security: [{ consoleToken: [] }, { apiAccountToken: [] }],
            }
          : {}),
        ...(call.auth === 'app' ? { security: [{ appClient: [] }, { appClientToken: [] }] } : {}),
        requestBody,
        responses: {
          '200': {
            description: 'Success: code 200 and the data',
            content: call.download
              ? { [call.download.contentType]: { schema: { type: 'string', format: 'binary' } } }
              : { 'application/json': { schema: jsonSchema(envelope(call.response), 'output') } },
          },
          default: {
            description: 'Error: code mirrors the HTTP status; data.reason names the error',
            content: { 'application/json': { schema: jsonSchema(envelope(errorData), 'output') } },
          },
        },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Tessera API',
      version: info.version,
      description:
        "Every call is POST with a JSON body and answers with the envelope { code, msg, data }. Console calls carry the access_token header; company calls also carry company_id. Calls marked x-api-access are also open to programmatic access accounts of an application: get a token with the client credentials grant at /oidc/token (HTTP Basic client id and secret) and send it as Authorization: Bearer; the company is the account's own. The permission decision calls (/api/v1/app/permission/*) are made by an application with its own client id and secret (HTTP Basic), or with the token it gets for itself with them by the client credentials grant. A path marked x-alias-of is another path of the call it names (spec §7 lists some calls under two paths): the same request, rules and answer.",
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        consoleToken: { type: 'apiKey', in: 'header', name: 'access_token' },
        apiAccountToken: {
          type: 'oauth2',
          flows: { clientCredentials: { tokenUrl: `${info.serverUrl}/oidc/token`, scopes: {} } },
        },
        // The permission decision API: an application's own client id and secret, or the token
        // it gets for itself with them (client credentials grant).
        appClient: { type: 'http', scheme: 'basic' },
        appClientToken: {
          type: 'oauth2',
          flows: { clientCredentials: { tokenUrl: `${info.serverUrl}/oidc/token`, scopes: {} } },
        },
      },
    },
    paths,
  };
}
