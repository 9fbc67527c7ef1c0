import { CodeOutlined, ExportOutlined } from '@ant-design/icons';
import { type AppTemplate, appLimits, appTemplates } from '@tessera/contract/constants';
import { Card, Col, Flex, Form, Input, Modal, Row, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { BackButton } from '../../components/detail-nav.tsx';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import { appNameRules, isWebUrl } from './app-rules.ts';
import { APP_LIST_PATH, templateName } from './app-view.ts';
import { templateIcons } from './icons/template-icons.ts';
import { CreateAppModal } from './lazy-parts.ts';
import { useAppCreated } from './use-app-created.tsx';

/** /application/select-app (full set; hidden, highlights the list): the third-party catalogue. */
export function SelectAppPage() {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState<AppTemplate>();
  const [selfBuilt, setSelfBuilt] = useState(false);
  const { onCreated, secretModal } = useAppCreated();

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1400 }}>
      <BackButton to={APP_LIST_PATH}>{t('apps.catalogue.back')}</BackButton>
      <Card title={t('apps.catalogue.title')}>
        <Typography.Paragraph type="secondary">{t('apps.catalogue.intro')}</Typography.Paragraph>
        <Row gutter={[16, 16]} data-testid="catalogue">
          {appTemplates.map((template) => (
            <Col key={template.key} xs={24} sm={12} lg={8} xl={6}>
              <Card
                hoverable
                size="small"
                role="button"
                tabIndex={0}
                aria-label={templateName(t, template)}
                data-testid={`template-${template.key}`}
                onClick={() => setChosen(template)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' || event.key === ' ') {
                    event.preventDefault();
                    setChosen(template);
                  }
                }}
                style={{ height: '100%' }}
              >
                <Flex align="center" gap={12}>
                  <img
                    src={templateIcons[template.key]}
                    alt=""
                    width={44}
                    height={44}
                    style={{ flex: 'none' }}
                  />
                  <Flex vertical style={{ minWidth: 0 }}>
                    <Typography.Text strong>{templateName(t, template)}</Typography.Text>
                    <Typography.Text type="secondary">
                      {t(`apps.protocolName.${template.protocol}`)}
                    </Typography.Text>
                  </Flex>
                </Flex>
              </Card>
            </Col>
          ))}
          <Col xs={24} sm={12} lg={8} xl={6}>
            <Card
              hoverable
              size="small"
              role="button"
              tabIndex={0}
              data-testid="template-self-built"
              onClick={() => setSelfBuilt(true)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  setSelfBuilt(true);
                }
              }}
              style={{ height: '100%', borderStyle: 'dashed' }}
            >
              <Flex align="center" gap={12}>
                <Flex
                  align="center"
                  justify="center"
                  style={{ width: 44, height: 44, borderRadius: 9, background: '#f0f5ff', flex: 'none' }}
                >
                  <CodeOutlined style={{ fontSize: 22, color: '#1677ff' }} />
                </Flex>
                <Flex vertical style={{ minWidth: 0 }}>
                  <Typography.Text strong>{t('apps.catalogue.selfBuilt')}</Typography.Text>
                  <Typography.Text type="secondary">{t('apps.catalogue.selfBuiltHint')}</Typography.Text>
                </Flex>
              </Flex>
            </Card>
          </Col>
        </Row>
      </Card>
      {chosen ? (
        <TemplateModal
          template={chosen}
          onClose={() => setChosen(undefined)}
          onCreated={(created) => {
            setChosen(undefined);
            onCreated(created);
          }}
        />
      ) : null}
      <Suspense fallback={null}>
        {selfBuilt ? (
          <CreateAppModal
            onClose={() => setSelfBuilt(false)}
            onCreated={(created) => {
              setSelfBuilt(false);
              onCreated(created);
            }}
          />
        ) : null}
      </Suspense>
      {secretModal}
    </Flex>
  );
}

interface TemplateValues {
  name: string;
  baseUrl: string;
}

/** The name (pre-filled) and the address of the chosen catalogue application. */
function TemplateModal({
  template,
  onClose,
  onCreated,
}: {
  template: AppTemplate;
  onClose(): void;
  onCreated: ReturnType<typeof useAppCreated>['onCreated'];
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<TemplateValues>();
  const example = `https://${template.key === 'legacy_form' ? 'app' : template.key.replace(/_.*/, '')}.example.com`;
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      onCreated(
        await callApi('/api/v1/manage/app/create', {
          name: values.name.trim(),
          type: 'third_party',
          protocol: template.protocol,
          template: template.key,
          baseUrl: values.baseUrl.trim().replace(/\/+$/, ''),
        }),
      );
    },
    (error) => showFieldErrors(form, error, ['name', 'baseUrl']),
  );
  return (
    <Modal
      open
      title={
        <Flex align="center" gap={10}>
          <img src={templateIcons[template.key]} alt="" width={28} height={28} />
          {t('apps.catalogue.addTitle', { name: templateName(t, template) })}
        </Flex>
      }
      onCancel={onClose}
      onOk={submit}
      okText={t('apps.catalogue.submit')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      destroyOnHidden
      width={520}
    >
      <Form<TemplateValues>
        form={form}
        layout="vertical"
        disabled={saving}
        initialValues={{ name: templateName(t, template), baseUrl: '' }}
        onFinish={submit}
      >
        <Form.Item name="name" label={t('apps.catalogue.name')} validateFirst rules={appNameRules(t)}>
          <Input count={{ show: true, max: appLimits.nameMax }} />
        </Form.Item>
        <Form.Item
          name="baseUrl"
          label={t('apps.catalogue.baseUrl')}
          extra={
            template.protocol === 'form'
              ? t('apps.catalogue.baseUrlFormHint')
              : template.protocol === 'saml'
                ? t('apps.catalogue.baseUrlSamlHint', { example })
                : template.protocol === 'cas'
                  ? t('apps.catalogue.baseUrlCasHint', { example })
                  : t('apps.catalogue.baseUrlHint', { example })
          }
          validateFirst
          rules={[
            { required: true, whitespace: true, message: t('apps.catalogue.baseUrlRequired') },
            {
              validator: async (_rule, value: string) => {
                if (!isWebUrl(value.trim())) throw new Error(t('apps.catalogue.baseUrlInvalid'));
              },
            },
          ]}
        >
          <Input autoFocus placeholder={example} inputMode="url" />
        </Form.Item>
      </Form>
      {template.docsUrl ? (
        <Typography.Link href={template.docsUrl} target="_blank" rel="noreferrer">
          {t('apps.catalogue.docs')} <ExportOutlined />
        </Typography.Link>
      ) : null}
    </Modal>
  );
}
