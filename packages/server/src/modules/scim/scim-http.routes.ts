import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidSyntax, notFound, scimErrorBody } from './scim-errors.ts';
import type { createScimGroupService } from './scim-groups.service.ts';
import { resourceTypeDocs, schemaDocs, serviceProviderConfig } from './scim-schemas.ts';
import type { ScimCaller, ScimTokenService } from './scim-tokens.service.ts';
import type { createScimUserService } from './scim-users.service.ts';

/**
 * The SCIM 2.0 endpoints of each company at `/scim/v2/<company id>/` (RFC 7644 §3): the bearer
 * token of the company in the path, bodies as application/scim+json (or application/json),
 * answers as application/scim+json, every failure as a SCIM error with its detail in the
 * caller's Accept-Language.
 */

const CONTENT_TYPE = 'application/scim+json; charset=utf-8';
/** A group PATCH of a few hundred members is ~50 KB; 1 MiB leaves room and stops floods early. */
const BODY_LIMIT = 1024 * 1024;

type Doc = Record<string, unknown>;
type Resources = ReturnType<typeof createScimUserService> | ReturnType<typeof createScimGroupService>;

declare module 'fastify' {
  interface FastifyRequest {
    scimCaller?: ScimCaller;
  }
}

export function scimHttpRoutes(
  app: FastifyInstance,
  deps: {
    tokens: ScimTokenService;
    users: ReturnType<typeof createScimUserService>;
    groups: ReturnType<typeof createScimGroupService>;
    documentationUri: string;
  },
) {
  return app.register(
    async (scope) => {
      // This scope's own JSON parser: its failures are SCIM errors, its limit SCIM's.
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser(
        ['application/scim+json', 'application/json'],
        { parseAs: 'string', bodyLimit: BODY_LIMIT },
        (_request, body, done) => {
          const text = String(body);
          if (!text.trim()) return done(null, {});
          try {
            done(null, JSON.parse(text));
          } catch {
            done(invalidSyntax('the body is not JSON'), undefined);
          }
        },
      );
      scope.setErrorHandler((error, request, reply) => {
        const { status, body } = scimErrorBody(error, request.lang);
        if (status >= 500) request.log.error({ err: error }, 'SCIM request failed');
        if (status === 401) reply.header('www-authenticate', 'Bearer realm="SCIM"');
        return reply.code(status).type(CONTENT_TYPE).send(body);
      });
      scope.setNotFoundHandler((request, reply) => {
        const { status, body } = scimErrorBody(notFound(), request.lang);
        return reply.code(status).type(CONTENT_TYPE).send(body);
      });
      scope.addHook('preHandler', async (request) => {
        const { companyId } = request.params as { companyId: string };
        request.scimCaller = await deps.tokens.authenticate(
          request.headers.authorization,
          companyId,
          request.ip,
        );
      });

      const caller = (request: FastifyRequest) => request.scimCaller as ScimCaller;
      const baseUrl = (request: FastifyRequest) => deps.tokens.baseUrlOf(caller(request).companyId);
      const send = (reply: FastifyReply, status: number, body: Doc) => {
        const version = (body.meta as Doc | undefined)?.version;
        if (typeof version === 'string') reply.header('etag', version);
        return reply.code(status).type(CONTENT_TYPE).send(body);
      };
      const bodyOf = (request: FastifyRequest) => {
        if (!request.body || typeof request.body !== 'object' || Array.isArray(request.body))
          throw invalidSyntax('a JSON object is expected');
        return request.body as Doc;
      };

      scope.get('/ServiceProviderConfig', async (request, reply) =>
        send(reply, 200, serviceProviderConfig(baseUrl(request), deps.documentationUri)),
      );
      scope.get('/ResourceTypes', async (request, reply) => {
        const list = resourceTypeDocs(baseUrl(request));
        return send(reply, 200, listOf(list));
      });
      scope.get('/ResourceTypes/:id', async (request, reply) => {
        const found = resourceTypeDocs(baseUrl(request)).find((d) => d.id === (request.params as Doc).id);
        if (!found) throw notFound();
        return send(reply, 200, found);
      });
      scope.get('/Schemas', async (request, reply) => send(reply, 200, listOf(schemaDocs(baseUrl(request)))));
      scope.get('/Schemas/:id', async (request, reply) => {
        const found = schemaDocs(baseUrl(request)).find((d) => d.id === (request.params as Doc).id);
        if (!found) throw notFound();
        return send(reply, 200, found);
      });

      const resource = (path: string, service: Resources) => {
        scope.get(`/${path}`, async (request, reply) =>
          send(reply, 200, await service.list(caller(request), request.query as Doc)),
        );
        // RFC 7644 §3.4.3: a search by POST to .search, with the query in the body.
        scope.post(`/${path}/.search`, async (request, reply) => {
          const body = bodyOf(request);
          const query = Object.fromEntries(
            Object.entries(body).map(([k, v]) => [
              k,
              Array.isArray(v) ? v.join(',') : v === undefined ? v : String(v),
            ]),
          );
          return send(reply, 200, await service.list(caller(request), query));
        });
        scope.get(`/${path}/:id`, async (request, reply) =>
          send(
            reply,
            200,
            await service.get(caller(request), (request.params as Doc).id as string, request.query as Doc),
          ),
        );
        scope.post(`/${path}`, async (request, reply) => {
          const created = await service.create(caller(request), request.lang, bodyOf(request));
          reply.header('location', (created.meta as Doc).location as string);
          return send(reply, 201, created);
        });
        scope.put(`/${path}/:id`, async (request, reply) =>
          send(
            reply,
            200,
            await service.replace(
              caller(request),
              request.lang,
              (request.params as Doc).id as string,
              bodyOf(request),
              request.headers['if-match'],
            ),
          ),
        );
        scope.patch(`/${path}/:id`, async (request, reply) =>
          send(
            reply,
            200,
            await service.patch(
              caller(request),
              request.lang,
              (request.params as Doc).id as string,
              request.body,
              request.headers['if-match'],
            ),
          ),
        );
        scope.delete(`/${path}/:id`, async (request, reply) => {
          await service.remove(
            caller(request),
            (request.params as Doc).id as string,
            request.headers['if-match'],
          );
          return reply.code(204).send();
        });
      };
      resource('Users', deps.users);
      resource('Groups', deps.groups);
    },
    { prefix: '/scim/v2/:companyId' },
  );
}

const listOf = (resources: Doc[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
