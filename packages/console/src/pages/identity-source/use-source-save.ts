import type { IdentitySourceType } from '@tessera/contract/constants';
import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import { type SourceDetail, type SourceInput, sourcePath } from './source-view.ts';

/**
 * Saving a source's form: creates it (then opens its own screen, where the callback address and
 * the sync appear) or updates it (an empty secret keeps the stored one); a refused save marks the
 * fields the server names.
 */
export function useSourceSave<T extends IdentitySourceType, Values extends object>(options: {
  type: T;
  form: FormInstance<Values>;
  sourceId: string | undefined;
  fields: readonly string[];
  toInput(values: Values): Omit<SourceInput<T>, 'type'>;
  onSaved(detail: SourceDetail): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const navigate = useNavigate();
  return useFormSubmit(
    options.form,
    async (values: Values) => {
      const input = { ...options.toInput(values), type: options.type } as SourceInput<T>;
      if (options.sourceId) {
        const saved = await callApi('/api/v1/manage/identity-source/update', {
          ...input,
          sourceId: options.sourceId,
        });
        options.onSaved(saved);
        void message.success(t('sources.form.saved'));
        return;
      }
      const created = await callApi('/api/v1/manage/identity-source/create', input);
      void message.success(t('sources.form.created', { name: created.name }));
      navigate(sourcePath(created.type, created.sourceId), { replace: true });
    },
    (error) => showFieldErrors(options.form, error, options.fields),
  );
}
