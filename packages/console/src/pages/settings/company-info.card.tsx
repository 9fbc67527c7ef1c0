import { EyeInvisibleOutlined, EyeOutlined, ReloadOutlined } from '@ant-design/icons';
import { COMPANY_NAME_MAX_LENGTH } from '@tessera/contract/constants';
import { Avatar, Button, Card, Flex, Form, Grid, Input, Skeleton, Space, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole, useSession } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { ImageUpload } from '../../components/image-upload.tsx';
import { companyNameRules } from '../../lib/company-name-rules.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useLoad } from '../../lib/use-load.ts';
import { PortalAddress } from '../brand/portal-address.tsx';
import { logoAccept, logoProblem } from './logo-file.ts';

type CompanyDetail = ApiResponse<'/api/v1/manage/company/detail'>;

interface InfoValues {
  name?: string;
}

const MASK = '•'.repeat(24);

/** Name, id, key, logo and user centre address of the selected company; its default language, set on the brand page. */
export function CompanyInfoCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const load = useCallback(() => callApi('/api/v1/manage/company/detail'), [callApi]);
  const { data: detail, setData: setDetail, loading } = useLoad(load);
  return (
    <Card title={t('settings.basicTitle')} data-testid="company-info">
      {detail ? (
        <CompanyInfoForm detail={detail} onChange={setDetail} />
      ) : (
        <Skeleton active loading={loading} paragraph={{ rows: 5 }} />
      )}
    </Card>
  );
}

function CompanyInfoForm({
  detail,
  onChange,
}: {
  detail: CompanyDetail;
  onChange(detail: CompanyDetail): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi, store } = useConsole();
  const [form] = Form.useForm<InfoValues>();
  const [saving, setSaving] = useState(false);
  const narrow = !(Grid.useBreakpoint().sm ?? true);

  useEffect(() => {
    form.setFieldsValue({ name: detail.name });
  }, [form, detail.name]);

  const onFinish = async ({ name = '' }: InfoValues) => {
    setSaving(true);
    try {
      const updated = await callApi('/api/v1/manage/company/update', { name: name.trim() });
      onChange(updated);
      store.companyChanged(updated.companyId, { name: updated.name });
      void message.success(t('settings.saved'));
    } catch {
      // The HTTP client has shown the error; the form keeps what was typed.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Form<InfoValues>
      form={form}
      layout={narrow ? 'vertical' : 'horizontal'}
      labelCol={narrow ? undefined : { flex: '160px' }}
      labelWrap
      // Grows from nothing: a long hint under a field wraps instead of pushing the field under its label.
      wrapperCol={narrow ? undefined : { flex: '1 1 0' }}
      style={{ maxWidth: 760 }}
      initialValues={{ name: detail.name }}
      onFinish={onFinish}
      disabled={saving}
    >
      <Form.Item name="name" label={t('company.nameLabel')} rules={companyNameRules(t)} validateFirst>
        <Input count={{ show: true, max: COMPANY_NAME_MAX_LENGTH }} />
      </Form.Item>
      <Form.Item label={t('settings.companyId')}>
        <Typography.Text copyable code data-testid="settings-company-id">
          {detail.companyId}
        </Typography.Text>
      </Form.Item>
      <Form.Item label={t('settings.companyKey')} extra={t('settings.keyHint')}>
        <CompanyKey detail={detail} onChange={onChange} />
      </Form.Item>
      <Form.Item label={t('settings.logo')} extra={t('settings.logoHint')}>
        <Logo detail={detail} onChange={onChange} />
      </Form.Item>
      <Form.Item label={t('settings.portalAddress')} extra={t('settings.portalAddressHint')}>
        <PortalAddress code={detail.code} />
      </Form.Item>
      {/* Set with the rest of the sign-in pages' look: the brand page is its one place. */}
      <Form.Item label={t('settings.defaultLanguage')}>
        <Flex wrap align="center" gap={8} data-testid="settings-default-language">
          <Typography.Text>{t(`common.languageName.${detail.defaultLanguage}`)}</Typography.Text>
          <Link to="/brand/index">{t('settings.defaultLanguageOnBrand')}</Link>
        </Flex>
      </Form.Item>
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('settings.save')}
        </Button>
      </Form.Item>
    </Form>
  );
}

function CompanyKey({ detail, onChange }: { detail: CompanyDetail; onChange(detail: CompanyDetail): void }) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const confirm = useDangerConfirm();
  const { callApi } = useConsole();
  const [shown, setShown] = useState(false);

  const regenerate = () =>
    // A refusal is shown by the HTTP client; the old key stays.
    void confirm({
      title: t('settings.regenerateTitle'),
      content: t('settings.regenerateContent'),
      okText: t('settings.regenerateKey'),
      onOk: async () => {
        onChange(await callApi('/api/v1/manage/company/key/reset'));
        void message.success(t('settings.regenerated'));
      },
    });

  return (
    <Flex wrap align="center" gap={8}>
      <Typography.Text
        code
        copyable={{ text: detail.key }}
        data-testid="company-key"
        style={{ fontFamily: 'monospace', wordBreak: 'break-all' }}
      >
        {shown ? detail.key : MASK}
      </Typography.Text>
      <Space size={4}>
        <Button
          size="small"
          icon={shown ? <EyeInvisibleOutlined /> : <EyeOutlined />}
          onClick={() => setShown(!shown)}
          aria-pressed={shown}
        >
          {shown ? t('settings.hideKey') : t('settings.showKey')}
        </Button>
        <Button size="small" danger icon={<ReloadOutlined />} onClick={regenerate}>
          {t('settings.regenerateKey')}
        </Button>
      </Space>
    </Flex>
  );
}

function Logo({ detail, onChange }: { detail: CompanyDetail; onChange(detail: CompanyDetail): void }) {
  const { t } = useTranslation();
  const { uploadFile, store } = useConsole();
  const { company } = useSession();
  return (
    <Flex align="center" gap={16}>
      <Avatar
        size={56}
        shape="square"
        src={detail.icon ?? undefined}
        alt={company?.name}
        style={{ background: detail.icon ? 'transparent' : undefined }}
      >
        {detail.name.slice(0, 1).toUpperCase()}
      </Avatar>
      <ImageUpload
        accept={logoAccept}
        problemOf={logoProblem}
        send={async (file) => {
          const { icon } = await uploadFile('/api/v1/manage/company/update/icon', file);
          onChange({ ...detail, icon });
          store.companyChanged(detail.companyId, { icon });
        }}
        uploaded="settings.logoUpdated"
      >
        {t('settings.uploadLogo')}
      </ImageUpload>
    </Flex>
  );
}
