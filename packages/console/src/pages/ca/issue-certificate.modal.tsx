import { caLimits, defaultKeyStrength } from '@tessera/contract/constants';
import { Flex, Form, Input, Modal, Radio } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import { UserPicker } from '../org/user-picker.tsx';
import { type CertificateAuthority, KeyFields, ValidityField } from './ca-parts.tsx';
import { IssuedCertificateModal } from './issued-certificate.modal.tsx';

type Method = 'csr' | 'generated';
type Values = Required<Omit<ApiRequest<'/api/v1/manage/ca/certificate/issue'>, 'caId'>> & { method: Method };
export type Issued = ApiResponse<'/api/v1/manage/ca/certificate/issue'>;
const fields = ['userId', 'csr', 'keyStrength', 'validityDays'] as const;

/**
 * Issues a certificate of this CA to a person: from their CSR, or for a key pair made on the
 * server and handed out once as PKCS#12 with a one-time password.
 */
export function IssueCertificateModal({
  authority,
  open,
  onClose,
  onIssued,
}: {
  authority: CertificateAuthority;
  open: boolean;
  onClose(): void;
  onIssued(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<Values>();
  const method: Method = Form.useWatch('method', form) ?? 'generated';
  const [issued, setIssued] = useState<Issued>();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue({
      method: 'generated',
      keyAlgorithm: authority.algorithm,
      keyStrength: defaultKeyStrength[authority.algorithm],
      validityDays: caLimits.certificateValidityDays.default,
    });
  }, [form, open, authority.algorithm]);

  const { saving, submit } = useFormSubmit(
    form,
    open
      ? async ({ method: chosen, csr, keyAlgorithm, keyStrength, ...values }) => {
          const answer = await callApi('/api/v1/manage/ca/certificate/issue', {
            caId: authority.caId,
            ...values,
            ...(chosen === 'csr' ? { csr: csr.trim() } : { keyAlgorithm, keyStrength }),
          });
          void message.success(t('ca.issue.issued'));
          setIssued(answer);
          onClose();
          onIssued();
        }
      : undefined,
    (error) => showFieldErrors(form, error, fields),
  );

  return (
    <>
      <Modal
        open={open}
        title={t('ca.issue.title')}
        okText={t('ca.issue.submit')}
        cancelText={t('common.cancel')}
        confirmLoading={saving}
        onOk={submit}
        onCancel={onClose}
        forceRender
        width={600}
      >
        <Form<Values> form={form} layout="vertical" disabled={saving} name="issue-certificate">
          <Form.Item
            name="userId"
            label={t('ca.issue.person')}
            rules={[{ required: true, message: t('ca.issue.personRequired') }]}
          >
            <UserPicker aria-label={t('ca.issue.person')} />
          </Form.Item>
          <Form.Item name="method" label={t('ca.issue.method')}>
            <Radio.Group>
              <Flex vertical gap={8}>
                {(['generated', 'csr'] as const).map((value) => (
                  <Radio key={value} value={value}>
                    {t(`ca.issue.methods.${value}`)}
                  </Radio>
                ))}
              </Flex>
            </Radio.Group>
          </Form.Item>
          {method === 'csr' ? (
            <Form.Item
              name="csr"
              label={t('ca.issue.csr')}
              rules={[{ required: true, whitespace: true, message: t('ca.issue.csrRequired') }]}
            >
              <Input.TextArea
                rows={6}
                maxLength={caLimits.csrChars}
                placeholder="-----BEGIN CERTIFICATE REQUEST-----"
                style={{ fontFamily: 'monospace', fontSize: 12 }}
              />
            </Form.Item>
          ) : (
            <KeyFields algorithmName="keyAlgorithm" strengthName="keyStrength" />
          )}
          <ValidityField
            name="validityDays"
            label={t('ca.issue.validityDays')}
            unit={t('ca.issue.days')}
            range={caLimits.certificateValidityDays}
            rangeMessage={t('ca.issue.validityDaysRange', caLimits.certificateValidityDays)}
          />
        </Form>
      </Modal>
      {issued && <IssuedCertificateModal issued={issued} onClose={() => setIssued(undefined)} />}
    </>
  );
}
