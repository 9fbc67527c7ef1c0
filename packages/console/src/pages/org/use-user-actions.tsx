import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import type { OrgUser } from './org-types.ts';
import { displayName, type StatusAction, statusOfAction } from './user-status.ts';

/**
 * The actions on one user that the list and the detail screen share: status changes (disabling
 * and locking ask first), the sign-in link, the account email and deletion (asks first). Each
 * resolves to the changed user, or undefined when nothing changed (the HTTP client has shown
 * why, or the person said no).
 */
export function useUserActions() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message, modal } = useFeedback();

  const confirm = (title: string, content: string | undefined, okText: string, danger: boolean) =>
    new Promise<boolean>((resolve) => {
      modal.confirm({
        title,
        content,
        okText,
        okButtonProps: { danger },
        cancelText: t('common.cancel'),
        onOk: () => resolve(true),
        onCancel: () => resolve(false),
      });
    });

  async function changeStatus(user: OrgUser, action: StatusAction): Promise<OrgUser | undefined> {
    const name = displayName(user);
    if (action === 'disable' || action === 'lock') {
      const ok = await confirm(
        t(`org.statusConfirm.${action}`, { name }),
        undefined,
        t(`org.statusAction.${action}`),
        true,
      );
      if (!ok) return undefined;
    }
    try {
      const changed = await callApi('/api/v1/manage/user/status', {
        userId: user.userId,
        status: statusOfAction[action],
      });
      void message.success(t(`org.statusDone.${action}`, { name }));
      return changed;
    } catch {
      return undefined;
    }
  }

  async function sendSignInLink(user: OrgUser) {
    try {
      const { sentTo } = await callApi('/api/v1/manage/user/send-login-url', { userId: user.userId });
      void message.success(t('org.users.linkSent', { email: sentTo }));
    } catch {
      // Shown by the HTTP client (no email address, mail not configured…).
    }
  }

  async function sendAccountEmail(user: OrgUser) {
    try {
      const { sentTo } = await callApi('/api/v1/manage/user/email', { userId: user.userId });
      void message.success(t('org.detail.accountEmailSent', { email: sentTo }));
    } catch {
      // Shown by the HTTP client.
    }
  }

  async function remove(user: OrgUser): Promise<boolean> {
    const name = displayName(user);
    const ok = await confirm(
      t('org.users.deleteTitle', { name }),
      user.managed ? t('org.users.deleteManaged') : t('org.users.deleteMember'),
      t('org.users.delete'),
      true,
    );
    if (!ok) return false;
    try {
      await callApi('/api/v1/manage/user/del', { userId: user.userId });
      void message.success(t('org.users.deleted', { name }));
      return true;
    } catch {
      return false;
    }
  }

  return { changeStatus, sendSignInLink, sendAccountEmail, remove };
}
