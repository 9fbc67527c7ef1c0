import { caLimits, defaultKeyStrength } from '@tessera/contract/constants';
import { Form, Input, InputNumber, Modal, Space } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import { KeyFields } from './ca-parts.tsx';

type Values = Required<ApiRequest<'/api/v1/manage/ca/create'>>;
const fields = ['name', 'strength', 'commonName', 'validityYears'] as const;
const { min, max } = caLimits.caValidityYears;
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
  const [form] = Form.useForm<Values>();

  useEffect(() => {
    if (open) form.resetFields();
  }, [form, open]);

  const { saving, submit } = useFormSubmit(
    form,
    open
      ? async (values) => {
          const created = await callApi('/api/v1/manage/ca/create', {
            ...values,
            name: values.name.trim(),
            commonName: values.commonName?.trim() || undefined,
            organization: values.organization?.trim() || undefined,
          });
          void message.success(t('ca.create.created', { name: created.name }));
          onSaved();
        }
      : undefined,
    (error) => showFieldErrors(form, error, fields),
  );

  const tooLong = (limit: number) => ({
    max: limit,
    transform: (value?: string) => value?.trim(),
    message: t('ca.create.tooLong', { max: limit }),
  });

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
        <Form.Item
          name="name"
          label={t('ca.create.name')}
          rules={[
            { required: true, whitespace: true, message: t('ca.create.nameRequired') },
            tooLong(caLimits.nameMax),
          ]}
        >
          <Input maxLength={caLimits.nameMax} autoComplete="off" />
        </Form.Item>
        <KeyFields algorithmName="algorithm" strengthName="strength" />
        <Form.Item
          name="commonName"
          label={t('ca.create.commonName')}
          extra={t('ca.create.commonNameHint')}
          rules={[tooLong(caLimits.subjectFieldMax)]}
        >
          <Input maxLength={caLimits.subjectFieldMax} autoComplete="off" />
        </Form.Item>
        <Form.Item
          name="organization"
          label={t('ca.create.organization')}
          rules={[tooLong(caLimits.subjectFieldMax)]}
        >
          <Input maxLength={caLimits.subjectFieldMax} autoComplete="off" />
        </Form.Item>
        <Form.Item label={t('ca.create.validityYears')} required style={{ marginBottom: 0 }}>
          <Space align="baseline">
            <Form.Item
              name="validityYears"
              noStyle
              rules={[
                {
                  type: 'integer',
                  min,
                  max,
                  required: true,
                  message: t('ca.create.validityYearsRange', { min, max }),
                },
              ]}
            >
              <InputNumber min={min} max={max} precision={0} aria-label={t('ca.create.validityYears')} />
            </Form.Item>
            <span>{t('ca.create.years')}</span>
          </Space>
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
