import { useTranslation } from 'react-i18next';
import { useFeedback } from '../app/feedback.ts';

interface DangerConfirm {
  title: string;
  content: string;
  okText: string;
  /** Run inside the dialog (its button shows the wait); a failure has been shown by the HTTP client. */
  onOk?: () => Promise<void>;
}

/**
 * Asks before a destructive step, with a red button. Resolves to whether it went ahead: true
 * when the person said yes (and `onOk`, when given, worked), false when they said no or `onOk`
 * failed.
 */
export function useDangerConfirm() {
  const { t } = useTranslation();
  const { modal } = useFeedback();
  return ({ title, content, okText, onOk }: DangerConfirm) =>
    new Promise<boolean>((resolve) => {
      modal.confirm({
        title,
        content,
        okText,
        okButtonProps: { danger: true },
        cancelText: t('common.cancel'),
        onOk: async () => {
          try {
            await onOk?.();
            resolve(true);
          } catch {
            resolve(false);
          }
        },
        onCancel: () => resolve(false),
      });
    });
}
