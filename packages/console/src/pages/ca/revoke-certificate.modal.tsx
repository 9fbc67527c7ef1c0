import { type RevocationReason, revocationReasons } from '@tessera/contract/constants';
import { Form, Modal, Select, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import type { IssuedCertificate } from './ca-parts.tsx';

/** Asks before revoking a certificate, with the reason its CA's CRL will give. */
export function RevokeCertificateModal({
  target,
  onClose,
  onRevoked,
}: {
  target: IssuedCertificate | undefined;
  onClose(): void;
  onRevoked(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<{ reason: RevocationReason }>();

  useEffect(() => {
    if (target) form.resetFields();
  }, [form, target]);

  const { saving, submit } = useFormSubmit(
    form,
    target
      ? async ({ reason }) => {
          await callApi('/api/v1/manage/ca/certificate/revoke', {
            certificateId: target.certificateId,
            reason,
          });
          void message.success(t('ca.revoke.revoked'));
          onRevoked();
        }
      : undefined,
  );

  return (
    <Modal
      open={target !== undefined}
      title={t('ca.revoke.title', { subject: target?.username ?? target?.subject ?? '' })}
      okText={t('ca.revoke.submit')}
      okButtonProps={{ danger: true }}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Typography.Paragraph>{t('ca.revoke.content')}</Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        disabled={saving}
        initialValues={{ reason: 'unspecified' }}
        name="revoke"
      >
        <Form.Item name="reason" label={t('ca.revoke.reason')} style={{ marginBottom: 0 }}>
          <Select
            aria-label={t('ca.revoke.reason')}
            options={revocationReasons.map((value) => ({ value, label: t(`ca.reason.${value}`) }))}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
