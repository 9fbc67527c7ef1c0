import { useCallback } from 'react';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { AppOption, Resource } from './permission-types.ts';

/** The company's applications (the first hundred, by name), for the pickers of the screen. */
export function useAppOptions() {
  const { callApi } = useConsole();
  const load = useCallback(async () => {
    const { list } = await callApi('/api/v1/manage/app/list', { page: 1, pageSize: 100 });
    return list.map((app): AppOption => ({ value: app.appId, label: app.name }));
  }, [callApi]);
  return useLoad(load).data ?? [];
}

/** The resources of one application (none until one is chosen), for the pickers. */
export function useAppResources(appId: string | undefined) {
  const { callApi } = useConsole();
  const load = useCallback(async (): Promise<Resource[]> => {
    if (!appId) return [];
    const out: Resource[] = [];
    for (let page = 1; ; page++) {
      const { list, total } = await callApi('/api/v1/manage/permission/resource/list', {
        appId,
        page,
        pageSize: 100,
      });
      out.push(...list);
      if (out.length >= total || list.length === 0) return out;
    }
  }, [callApi, appId]);
  return useLoad(load).data ?? [];
}

/** The company's roles (the first hundred), for the subject picker. */
export function useRoleOptions(keyword: string) {
  const { callApi } = useConsole();
  const load = useCallback(async () => {
    const { list } = await callApi('/api/v1/manage/permission/role/list', {
      page: 1,
      pageSize: 100,
      keyword: keyword || undefined,
    });
    return list.map((role): AppOption => ({ value: role.roleId, label: role.name }));
  }, [callApi, keyword]);
  return useLoad(load).data ?? [];
}
