import type { ConsoleGrants } from '@tessera/contract';
import { call, sessionFor, type TestContext } from './harness.ts';

/**
 * A delegated administrator of a company (spec §6): a console role of `grants` is created, a
 * person of the company given it, and a console session opened for them.
 */
export async function delegatedAdmin(
  ctx: TestContext,
  company: { token: string; companyId: string },
  username: string,
  grants: ConsoleGrants,
) {
  const asOwner = { token: company.token, companyId: company.companyId };
  const role = await call<{ roleId: string }>(
    ctx,
    '/api/v1/manage/console-role/create',
    { name: `${username} role`, grants },
    asOwner,
  );
  if (role.code !== 200) throw new Error(`console role not created: ${role.msg}`);
  const person = await call<{ userId: string }>(
    ctx,
    '/api/v1/manage/company/user/create',
    { username, role: 'delegated_admin', consoleRoleId: role.data.roleId, password: 'Sunny-Day-42' },
    asOwner,
  );
  if (person.code !== 200) throw new Error(`delegated administrator not created: ${person.msg}`);
  return { userId: person.data.userId, token: await sessionFor(ctx, person.data.userId) };
}
