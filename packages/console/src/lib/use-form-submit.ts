import type { FormInstance } from 'antd';
import { useState } from 'react';

/**
 * The submit of a dialog's form: validates the fields (invalid ones show their messages and
 * nothing is sent), then runs `save` with the values while `saving` is set (the dialog shows it
 * and the form is disabled). A failed save has been shown by the HTTP client; `onError` can mark
 * the fields it is about, and the form stays as it is. Without `save` (nothing to save for yet)
 * the submit does nothing.
 */
export function useFormSubmit<Values>(
  form: FormInstance<Values>,
  save: ((values: Values) => Promise<void>) | undefined,
  onError?: (error: unknown) => void,
) {
  const [saving, setSaving] = useState(false);

  const submit = async () => {
    if (!save) return;
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setSaving(true);
    try {
      await save(values);
    } catch (error) {
      onError?.(error);
    } finally {
      setSaving(false);
    }
  };

  return { saving, submit };
}
