import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import type { SamlAttributeMapping } from '../../db/schema-saml.ts';

/**
 * The values of an application's attributes for one person, as its mapping says: from the
 * account, from the person's departments and role in the app's company, or a fixed value. An
 * attribute without values (no phone number) is left out of the assertion.
 */
export async function attributeValues(
  db: Db,
  departmentPaths: (companyId: string, accountId: string) => Promise<string[]>,
  companyId: string,
  account: Account,
  mappings: readonly SamlAttributeMapping[],
): Promise<{ mapping: SamlAttributeMapping; values: string[] }[]> {
  const sources = new Set(mappings.map((m) => m.source));
  const departments = sources.has('departments') ? await departmentPaths(companyId, account.id) : [];
  const role = sources.has('roles')
    ? (
        await db
          .selectFrom('company_members')
          .select('role')
          .where('company_id', '=', companyId)
          .where('account_id', '=', account.id)
          .executeTakeFirst()
      )?.role
    : undefined;
  const valuesOf = (mapping: SamlAttributeMapping): string[] => {
    switch (mapping.source) {
      case 'username':
        return [account.username];
      case 'name':
        return [account.display_name ?? account.username];
      case 'email':
        return account.email ? [account.email] : [];
      case 'phone':
        return account.phone ? [account.phone] : [];
      case 'departments':
        return departments;
      case 'roles':
        return role ? [role] : [];
      case 'user_id':
        return [account.id];
      case 'fixed':
        return mapping.value ? [mapping.value] : [];
    }
  };
  return mappings.map((mapping) => ({ mapping, values: valuesOf(mapping) }));
}
