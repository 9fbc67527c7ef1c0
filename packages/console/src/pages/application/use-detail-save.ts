import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showAppFieldErrors } from './app-field-errors.ts';

/**
 * The save of a tab's form on the application detail: `save` sends the values and takes in the
 * answer, then "Saved" is said; a refusal marks the fields it names among `fields`.
 */
export function useDetailSave<Values>(
  form: FormInstance<Values>,
  fields: readonly string[],
  save: (values: Values) => Promise<void>,
) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  return useFormSubmit(
    form,
    async (values) => {
      await save(values);
      void message.success(t('apps.detail.saved'));
    },
    (error) => showAppFieldErrors(form, error, fields),
  );
}
