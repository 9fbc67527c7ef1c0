import { type SignatureMfaType, signatureFactorLimits, signatureMfaTypes } from '@tessera/contract/constants';
import { grantsAllow } from '@tessera/contract/shell-constants';
import { Form, Input, Modal, Select, Typography } from 'antd';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole, useSession } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';
import { mfaTypeKey } from '../safety/safety-rules.ts';
import type { OrgUser } from './org-types.ts';
import { showFieldErrors } from './server-errors.ts';

interface BindKeyValues {
  type: SignatureMfaType;
  name?: string;
  keyId?: string;
  publicKey?: string;
  certificateId?: string;
  certificate?: string;
}

const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const FIELDS = ['type', 'name', 'keyId', 'publicKey', 'certificateId', 'certificate'] as const;

/**
 * Binds a UKEY (KeyId, public key or certificate) or soft-lock key to a user (spec §3 MFA types).
 * The server checks the key; the key proves itself when the person first signs in with it.
 */
export function BindKeyModal({
  user,
  open,
  onClose,
  onBound,
}: {
  user: Pick<OrgUser, 'userId' | 'username' | 'name'>;
  open: boolean;
  onClose(): void;
  onBound(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const { grants } = useSession();
  const [form] = Form.useForm<BindKeyValues>();
  const type = Form.useWatch('type', form) ?? 'ukey_pubkey';
  const typeName = (kind: SignatureMfaType) => t(`org.mfa.type.${mfaTypeKey[kind]}` as 'org.mfa.type.otp');

  // The user's valid certificates, for those who may read the CA screen.
  const readsCertificates = grants ? grantsAllow(grants, { groups: ['security'], level: 'read' }) : false;
  const loadCertificates = useCallback(
    async () =>
      open && type === 'ukey_cert' && readsCertificates
        ? (await callApi('/api/v1/manage/ca/certificate/list', { userId: user.userId, status: 'valid' })).list
        : [],
    [callApi, open, type, readsCertificates, user.userId],
  );
  const { data: certificates } = useLoad(loadCertificates);
  const certificateOptions = useMemo(
    () =>
      (certificates ?? []).map((c) => ({
        value: c.certificateId,
        label: `${c.caName} · ${c.algorithm.toUpperCase()} ${c.strength} · ${c.serialNumber.slice(0, 16)} · ${formatDate(c.notAfter)}`,
      })),
    [certificates],
  );

  const close = () => {
    form.resetFields();
    onClose();
  };
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const bound = await callApi('/api/v1/manage/mfa/admin/user/bind', {
        userId: user.userId,
        type: values.type,
        name: values.name ?? '',
        ...(values.type === 'ukey_keyid' || values.type === 'soft_lock' ? { keyId: values.keyId } : {}),
        ...(values.type === 'ukey_cert'
          ? values.certificateId
            ? { certificateId: values.certificateId }
            : { certificate: values.certificate }
          : { publicKey: values.publicKey }),
      });
      void message.success(t('org.mfa.keyBound', { name: bound.name }));
      form.resetFields();
      onBound();
    },
    (error) => showFieldErrors(form, error, FIELDS),
  );

  const needsKeyId = type === 'ukey_keyid' || type === 'soft_lock';
  return (
    <Modal
      open={open}
      title={t('org.mfa.bindKeyTitle', { user: user.name || user.username })}
      okText={t('org.mfa.bindKey')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={close}
      forceRender
    >
      <Typography.Paragraph type="secondary">{t('org.mfa.bindKeyIntro')}</Typography.Paragraph>
      <Form<BindKeyValues>
        form={form}
        layout="vertical"
        initialValues={{ type: 'ukey_pubkey' }}
        disabled={saving}
        onFinish={submit}
        name="bind-key"
      >
        <Form.Item name="type" label={t('org.mfa.keyType')} rules={[{ required: true }]}>
          <Select options={signatureMfaTypes.map((kind) => ({ value: kind, label: typeName(kind) }))} />
        </Form.Item>
        <Form.Item name="name" label={t('org.mfa.keyName')}>
          <Input maxLength={signatureFactorLimits.nameMax} placeholder={t('org.mfa.keyNamePlaceholder')} />
        </Form.Item>
        {needsKeyId && (
          <Form.Item
            name="keyId"
            label={type === 'soft_lock' ? t('org.mfa.softLockId') : t('org.mfa.keyId')}
            rules={[
              { required: true, whitespace: true, message: t('org.mfa.keyIdRequired') },
              { pattern: KEY_ID_PATTERN, message: t('org.mfa.keyIdPattern') },
            ]}
          >
            <Input maxLength={signatureFactorLimits.keyIdMax} autoComplete="off" spellCheck={false} />
          </Form.Item>
        )}
        {type === 'ukey_cert' ? (
          <CertificateFields options={certificateOptions} showList={readsCertificates} />
        ) : (
          <Form.Item
            name="publicKey"
            label={t('org.mfa.publicKey')}
            rules={[{ required: true, whitespace: true, message: t('org.mfa.publicKeyRequired') }]}
            style={{ marginBottom: 0 }}
          >
            <Input.TextArea
              rows={5}
              spellCheck={false}
              maxLength={signatureFactorLimits.pemMax}
              placeholder="-----BEGIN PUBLIC KEY-----"
              style={{ fontFamily: 'monospace', fontSize: 12 }}
            />
          </Form.Item>
        )}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}

/** A certificate issued to the user (chosen from the list) or one pasted as PEM: one of the two. */
function CertificateFields({
  options,
  showList,
}: {
  options: { value: string; label: string }[];
  showList: boolean;
}) {
  const { t } = useTranslation();
  const oneOfTwo = ({ getFieldValue }: { getFieldValue(name: string): unknown }) => ({
    validator: async () => {
      const chosen = getFieldValue('certificateId');
      const pasted = String(getFieldValue('certificate') ?? '').trim();
      if (!chosen && !pasted) throw new Error(t('org.mfa.certificateRequired'));
    },
  });
  return (
    <>
      {showList && (
        <Form.Item name="certificateId" label={t('org.mfa.certificateIssued')}>
          <Select allowClear options={options} />
        </Form.Item>
      )}
      <Form.Item
        name="certificate"
        label={showList ? t('org.mfa.certificatePem') : t('org.mfa.certificate')}
        dependencies={['certificateId']}
        rules={[oneOfTwo]}
        style={{ marginBottom: 0 }}
      >
        <Input.TextArea
          rows={5}
          spellCheck={false}
          maxLength={signatureFactorLimits.pemMax}
          placeholder="-----BEGIN CERTIFICATE-----"
          style={{ fontFamily: 'monospace', fontSize: 12 }}
        />
      </Form.Item>
    </>
  );
}
