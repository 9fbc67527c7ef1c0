import { useCallback } from 'react';
import { useConsole } from '../../app/console-context.ts';
import { useLoad } from '../../lib/use-load.ts';

/** The company's department tree, loaded once per screen; `reload` after a change. */
export function useDepartmentTree() {
  const { callApi } = useConsole();
  const load = useCallback(async () => (await callApi('/api/v1/manage/department/tree')).tree, [callApi]);
  const { data, loading, reload } = useLoad(load);
  return { tree: data, loading, reload };
}
