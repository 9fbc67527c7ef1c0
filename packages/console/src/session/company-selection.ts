import type { CompanyListItem } from './session-storage.ts';

/**
 * Spec §4: the stored company stays selected while it is in the list; when the stored name is
 * missing or not in the list, the first company is selected. The stored id is compared first
 * because two companies may share a name.
 */
export function pickCompany(
  list: readonly CompanyListItem[],
  stored: { companyId: string | null; name: string | null },
): CompanyListItem | undefined {
  if (stored.companyId) {
    const byId = list.find((item) => item.companyId === stored.companyId);
    if (byId) return byId;
  }
  if (stored.name) {
    const byName = list.find((item) => item.name === stored.name);
    if (byName) return byName;
  }
  return list[0];
}
