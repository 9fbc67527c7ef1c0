import { UploadOutlined } from '@ant-design/icons';
import { samlLimits } from '@tessera/contract/constants';
import { Alert, Button, Flex, Form, Input, Modal, Tabs, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showAppFieldErrors } from './app-field-errors.ts';
import type { SamlSettings } from './saml-view.ts';

type Source = 'upload' | 'paste' | 'url';

interface Values {
  xml: string;
  url: string;
}

/**
 * "Import metadata": the service provider's metadata from a file, pasted, or from its URL (the
 * server fetches it once, now). What it reads replaces the service provider's addresses and
 * certificates; the attribute mapping stays.
 */
export function SamlImportModal({
  appId,
  lastUrl,
  onClose,
  onImported,
}: {
  appId: string;
  lastUrl: string;
  onClose(): void;
  onImported(settings: SamlSettings): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<Values>();
  const [source, setSource] = useState<Source>(lastUrl ? 'url' : 'upload');
  const [file, setFile] = useState<{ name: string; xml: string }>();
  const [fileProblem, setFileProblem] = useState<string>();

  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const xml = source === 'upload' ? file?.xml : source === 'paste' ? values.xml : undefined;
      const url = source === 'url' ? values.url?.trim() : undefined;
      if (!xml?.trim() && !url) {
        setFileProblem(t('apps.saml.metadataRequired'));
        return;
      }
      const settings = await callApi('/api/v1/manage/app/saml/metadata/import', {
        appId,
        ...(xml ? { xml } : { url }),
      });
      void message.success(t('apps.saml.imported'));
      onImported(settings);
    },
    (error) => showAppFieldErrors(form, error, ['xml', 'url']),
  );

  const read = async (chosen: File) => {
    setFileProblem(undefined);
    if (chosen.size > samlLimits.metadataBytes) {
      setFile(undefined);
      setFileProblem(t('apps.saml.fileTooLarge'));
      return;
    }
    setFile({ name: chosen.name, xml: await chosen.text() });
  };

  return (
    <Modal
      open
      title={t('apps.saml.importTitle')}
      onCancel={onClose}
      onOk={submit}
      okText={t('apps.saml.importSubmit')}
      okButtonProps={{ 'data-testid': 'saml-import-submit' } as Record<`data-${string}`, string>}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      destroyOnHidden
      width={640}
    >
      <Typography.Paragraph type="secondary">{t('apps.saml.importIntro')}</Typography.Paragraph>
      <Form<Values> form={form} layout="vertical" disabled={saving} initialValues={{ xml: '', url: lastUrl }}>
        <Tabs
          activeKey={source}
          onChange={(key) => {
            setSource(key as Source);
            setFileProblem(undefined);
          }}
          items={[
            {
              key: 'upload',
              label: t('apps.saml.importUpload'),
              children: (
                <Flex vertical gap={8}>
                  <Upload
                    accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
                    maxCount={1}
                    showUploadList={false}
                    beforeUpload={(chosen) => {
                      void read(chosen);
                      return false;
                    }}
                  >
                    <Button icon={<UploadOutlined />}>{t('apps.saml.chooseFile')}</Button>
                  </Upload>
                  <Typography.Text type="secondary">
                    {file
                      ? t('apps.saml.fileChosen', {
                          name: file.name,
                          size: Math.max(1, Math.round(new Blob([file.xml]).size / 1024)),
                        })
                      : t('apps.saml.uploadHint')}
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              key: 'paste',
              label: t('apps.saml.importPaste'),
              children: (
                <Form.Item name="xml" style={{ marginBottom: 0 }}>
                  <Input.TextArea
                    autoSize={{ minRows: 8, maxRows: 16 }}
                    spellCheck={false}
                    placeholder={t('apps.saml.pastePlaceholder')}
                    aria-label={t('apps.saml.importPaste')}
                    style={{ fontFamily: 'monospace', fontSize: 12 }}
                    data-testid="saml-import-xml"
                  />
                </Form.Item>
              ),
            },
            {
              key: 'url',
              label: t('apps.saml.importUrl'),
              children: (
                <Form.Item
                  name="url"
                  extra={t('apps.saml.urlHint')}
                  rules={[{ max: samlLimits.urlMax }]}
                  style={{ marginBottom: 0 }}
                >
                  <Input
                    spellCheck={false}
                    inputMode="url"
                    placeholder="https://app.example.com/saml/metadata"
                    aria-label={t('apps.saml.importUrl')}
                    data-testid="saml-import-url"
                  />
                </Form.Item>
              ),
            },
          ]}
        />
      </Form>
      {fileProblem ? <Alert type="error" showIcon title={fileProblem} style={{ marginTop: 12 }} /> : null}
    </Modal>
  );
}
