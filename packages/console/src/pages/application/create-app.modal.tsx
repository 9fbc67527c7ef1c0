import { AppstoreAddOutlined, RightOutlined } from '@ant-design/icons';
import { type AppProtocol, appLimits } from '@tessera/contract/constants';
import { Button, Flex, Form, Input, Modal, Radio, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useRouteSet } from '../../layout/use-route-set.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import { appNameRules } from './app-rules.ts';
import { type CreatedApp, SELECT_APP_PATH } from './app-view.ts';

interface Values {
  name: string;
  description?: string;
  protocol: AppProtocol;
}

/** "Add application": a self-built app (OIDC, SAML or form-fill); the full set also offers the catalogue. */
export function CreateAppModal({
  onClose,
  onCreated,
}: {
  onClose(): void;
  onCreated(created: CreatedApp): void;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const navigate = useNavigate();
  const full = useRouteSet() === 'full';
  const [form] = Form.useForm<Values>();
  const { saving, submit } = useFormSubmit(
    form,
    async (values) => {
      const created = await callApi('/api/v1/manage/app/create', {
        name: values.name.trim(),
        description: values.description?.trim() || null,
        type: 'self_built',
        protocol: values.protocol,
      });
      onCreated(created);
    },
    (error) => showFieldErrors(form, error, ['name', 'description', 'protocol']),
  );

  return (
    <Modal
      open
      title={t('apps.create.title')}
      onCancel={onClose}
      onOk={submit}
      okText={t('apps.create.submit')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      destroyOnHidden
      width={560}
    >
      {full ? (
        <Button
          block
          onClick={() => navigate(SELECT_APP_PATH)}
          style={{ height: 'auto', paddingBlock: 10, marginBottom: 20, textAlign: 'start' }}
        >
          <Flex align="center" gap={12} style={{ width: '100%' }}>
            <AppstoreAddOutlined style={{ fontSize: 22, color: '#1677ff' }} />
            <Flex vertical style={{ flex: 1, minWidth: 0 }}>
              <Typography.Text strong>{t('apps.create.fromCatalogue')}</Typography.Text>
              <Typography.Text type="secondary" style={{ whiteSpace: 'normal' }}>
                {t('apps.create.fromCatalogueHint')}
              </Typography.Text>
            </Flex>
            <RightOutlined />
          </Flex>
        </Button>
      ) : null}
      <Form<Values>
        form={form}
        layout="vertical"
        disabled={saving}
        initialValues={{ protocol: 'oidc' }}
        onFinish={submit}
        requiredMark
      >
        <Typography.Title level={5} style={{ marginTop: 0 }}>
          {t('apps.create.selfBuilt')}
        </Typography.Title>
        <Form.Item name="name" label={t('apps.create.name')} validateFirst rules={appNameRules(t)}>
          <Input
            autoFocus
            placeholder={t('apps.create.namePlaceholder')}
            count={{ show: true, max: appLimits.nameMax }}
          />
        </Form.Item>
        <Form.Item
          name="description"
          label={t('apps.create.description')}
          rules={[{ max: appLimits.descriptionMax }]}
        >
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 4 }}
            count={{ show: true, max: appLimits.descriptionMax }}
          />
        </Form.Item>
        <Form.Item name="protocol" label={t('apps.create.protocol')} style={{ marginBottom: 0 }}>
          <Radio.Group style={{ width: '100%' }}>
            <Flex vertical gap={8}>
              <Radio value="oidc">
                <Typography.Text>{t('apps.create.protocolOidc')}</Typography.Text>
                <br />
                <Typography.Text type="secondary">{t('apps.create.protocolOidcHint')}</Typography.Text>
              </Radio>
              <Radio value="form">
                <Typography.Text>{t('apps.create.protocolForm')}</Typography.Text>
                <br />
                <Typography.Text type="secondary">{t('apps.create.protocolFormHint')}</Typography.Text>
              </Radio>
              <Radio value="saml">
                <Typography.Text>{t('apps.create.protocolSaml')}</Typography.Text>
                <br />
                <Typography.Text type="secondary">{t('apps.create.protocolSamlHint')}</Typography.Text>
              </Radio>
              <Radio value="cas">
                <Typography.Text>{t('apps.create.protocolCas')}</Typography.Text>
                <br />
                <Typography.Text type="secondary">{t('apps.create.protocolCasHint')}</Typography.Text>
              </Radio>
              <Radio value="ldap">
                <Typography.Text>{t('apps.create.protocolLdap')}</Typography.Text>
                <br />
                <Typography.Text type="secondary">{t('apps.create.protocolLdapHint')}</Typography.Text>
              </Radio>
            </Flex>
          </Radio.Group>
        </Form.Item>
      </Form>
    </Modal>
  );
}
