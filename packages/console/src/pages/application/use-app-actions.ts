import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import type { AppSummary } from './app-view.ts';

/**
 * The actions on one application that the list and the detail share: enable, disable (asks
 * first) and delete (asks first). Each resolves to the outcome, or undefined when nothing changed
 * (the HTTP client has shown why, such as an app that is not configured yet, or the person said no).
 */
export function useAppActions() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const ask = useDangerConfirm();
  const confirm = (title: string, content: string, okText: string) => ask({ title, content, okText });

  async function setStatus(app: Pick<AppSummary, 'appId' | 'name'>, status: 'opened' | 'disabled') {
    if (
      status === 'disabled' &&
      !(await confirm(
        t('apps.list.disableTitle', { name: app.name }),
        t('apps.list.disableContent'),
        t('apps.list.disable'),
      ))
    )
      return undefined;
    try {
      const changed = await callApi('/api/v1/manage/app/status', { appId: app.appId, status });
      void message.success(
        t(status === 'opened' ? 'apps.list.enabled' : 'apps.list.disabledDone', { name: app.name }),
      );
      return changed;
    } catch {
      return undefined;
    }
  }

  async function remove(app: Pick<AppSummary, 'appId' | 'name'>): Promise<boolean> {
    if (
      !(await confirm(
        t('apps.list.deleteTitle', { name: app.name }),
        t('apps.list.deleteContent'),
        t('apps.list.delete'),
      ))
    )
      return false;
    try {
      await callApi('/api/v1/manage/app/del', { appId: app.appId });
      void message.success(t('apps.list.deleted', { name: app.name }));
      return true;
    } catch {
      return false;
    }
  }

  return { setStatus, remove };
}
