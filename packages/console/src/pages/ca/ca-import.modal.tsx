import { PaperClipOutlined, UploadOutlined } from '@ant-design/icons';
import { caFileTypes, caLimits } from '@tessera/contract/constants';
import { Button, Flex, Form, Input, Modal, Typography, Upload } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { CaNameField, useDialogForm } from './ca-parts.tsx';

interface Values {
  name: string;
  file: File;
  password?: string;
}
const fields = ['name', 'file', 'password'] as const;

/**
 * The file as the server takes it: browsers name PEM and PKCS#12 files by many types
 * (application/x-x509-ca-cert for .crt, none at all for .key); the server reads the content.
 */
const asCaFile = (file: File) =>
  (caFileTypes as readonly string[]).includes(file.type)
    ? file
    : new File([file], file.name, { type: 'application/octet-stream' });

/** Imports a certificate authority from its CA file (spec §5: required): certificate and key, PEM or PKCS#12. */
export function CaImportModal({
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
  const { uploadFile } = useConsole();
  const { form, saving, submit } = useDialogForm<Values>(
    open,
    async (values) => {
      const imported = await uploadFile('/api/v1/manage/ca/import', asCaFile(values.file), {
        fields: { name: values.name.trim(), password: values.password ?? '' },
      });
      void message.success(t('ca.import.imported', { name: imported.name }));
      onSaved();
    },
    fields,
  );

  return (
    <Modal
      open={open}
      title={t('ca.import.title')}
      okText={t('ca.import.submit')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Form<Values> form={form} layout="vertical" disabled={saving} onFinish={submit} name="ca-import">
        <CaNameField />
        <Form.Item
          name="file"
          label={t('ca.import.file')}
          extra={t('ca.import.fileHint')}
          rules={[{ required: true, message: t('ca.import.fileRequired') }]}
        >
          <FileField />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('ca.import.password')}
          extra={t('ca.import.passwordHint')}
          style={{ marginBottom: 0 }}
        >
          <Input.Password maxLength={caLimits.passwordMax} autoComplete="off" />
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}

/** One file, kept in the form (nothing is sent until the form is). */
function FileField({ value, onChange }: { value?: File; onChange?(file: File | undefined): void }) {
  const { t } = useTranslation();
  return (
    <Flex gap={8} align="center" wrap>
      <Upload
        accept=".pem,.crt,.cer,.key,.p12,.pfx"
        showUploadList={false}
        maxCount={1}
        beforeUpload={(file) => {
          onChange?.(file);
          return Upload.LIST_IGNORE;
        }}
      >
        <Button icon={<UploadOutlined />}>{t('ca.import.choose')}</Button>
      </Upload>
      {value && (
        <Typography.Text data-testid="ca-file-name" style={{ overflowWrap: 'anywhere' }}>
          <PaperClipOutlined /> {value.name}
        </Typography.Text>
      )}
    </Flex>
  );
}
