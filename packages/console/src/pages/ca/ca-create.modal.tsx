import { caLimits, defaultKeyStrength } from '@tessera/contract/constants';
import { Form, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ApiRequest } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { maxTrimmed } from '../../lib/form-rules.ts';
import { CaNameField, KeyFields, useDialogForm, ValidityField } from './ca-parts.tsx';

type Values = Required<ApiRequest<'/api/v1/manage/ca/create'>>;
const fields = ['name', 'strength', 'commonName', 'validityYears'] as const;
const defaults: Partial<Values> = {
  algorithm: 'rsa',
  strength: defaultKeyStrength.rsa,
  validityYears: caLimits.caValidityYears.default,
};

/** Creates a certificate authority with a new key of an algorithm and length of spec §5. */
export function CaCreateModal({
  open,
  onClose,
  onSaved,
}: {
  open: boolean;
  onClose(): void;
  onSaved(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const { form, saving, submit } = useDialogForm<Values>(
    open,
    async (values) => {
      const created = await callApi('/api/v1/manage/ca/create', {
        ...values,
        name: values.name.trim(),
        commonName: values.commonName?.trim() || undefined,
        organization: values.organization?.trim() || undefined,
      });
      void message.success(t('ca.create.created', { name: created.name }));
      onSaved();
    },
    fields,
  );

  const tooLong = maxTrimmed(
    caLimits.subjectFieldMax,
    t('ca.create.tooLong', { max: caLimits.subjectFieldMax }),
  );

  return (
    <Modal
      open={open}
      title={t('ca.create.title')}
      okText={t('ca.create.submit')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Form<Values>
        form={form}
        layout="vertical"
        disabled={saving}
        onFinish={submit}
        initialValues={defaults}
        name="ca-create"
      >
        <CaNameField />
        <KeyFields algorithmName="algorithm" strengthName="strength" />
        <Form.Item
          name="commonName"
          label={t('ca.create.commonName')}
          extra={t('ca.create.commonNameHint')}
          rules={[tooLong]}
        >
          <Input maxLength={caLimits.subjectFieldMax} autoComplete="off" />
        </Form.Item>
        <Form.Item name="organization" label={t('ca.create.organization')} rules={[tooLong]}>
          <Input maxLength={caLimits.subjectFieldMax} autoComplete="off" />
        </Form.Item>
        <ValidityField
          name="validityYears"
          label={t('ca.create.validityYears')}
          unit={t('ca.create.years')}
          range={caLimits.caValidityYears}
          rangeMessage={t('ca.create.validityYearsRange', caLimits.caValidityYears)}
        />
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
