import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { DepartmentService } from '../department/department.service.ts';
import type { RoleService } from '../permission/role.service.ts';
import type { UserService } from '../user/user.service.ts';
import { scimTokenRoutes } from './scim.routes.ts';
import { createScimGroupService } from './scim-groups.service.ts';
import { scimHttpRoutes } from './scim-http.routes.ts';
import { createScimTokenService } from './scim-tokens.service.ts';
import { createScimUserService } from './scim-users.service.ts';

/** SCIM 2.0 inbound (issue 31): the console's token calls and the `/scim/v2/<company id>/` endpoints. */
export function installScim(
  app: FastifyInstance,
  bind: Bind,
  deps: {
    db: Db;
    publicUrl: string;
    users: UserService;
    departments: DepartmentService;
    roles: RoleService;
  },
) {
  const tokens = createScimTokenService({ db: deps.db, publicUrl: deps.publicUrl });
  scimTokenRoutes(bind, tokens);
  const baseUrlOf = tokens.baseUrlOf;
  return scimHttpRoutes(app, {
    tokens,
    users: createScimUserService({ db: deps.db, users: deps.users, baseUrlOf }),
    groups: createScimGroupService({
      db: deps.db,
      departments: deps.departments,
      roles: deps.roles,
      baseUrlOf,
    }),
    documentationUri: `${deps.publicUrl}/api-docs`,
  });
}
