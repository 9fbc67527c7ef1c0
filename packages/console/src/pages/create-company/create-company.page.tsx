import { BankOutlined } from '@ant-design/icons';
import { COMPANY_NAME_MAX_LENGTH } from '@tessera/contract/constants';
import { Button, Card, Form, Input, Result, Skeleton, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConsole, useSession } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { companyNameRules } from '../../lib/company-name-rules.ts';
import { useLoad } from '../../lib/use-load.ts';
import { HOME_PATH, SETUP_PATH } from '../../session/navigation.guard.ts';

interface CreateCompanyValues {
  name?: string;
}

/**
 * Spec §2 /create-company: for people without a company; creation only in the developer console,
 * and only by platform administrators where the installation says so (then the page says whom to
 * ask instead of showing a form the person cannot use).
 */
export function CreateCompanyPage() {
  const { variant, callApi } = useConsole();
  const creation = useLoad(
    useCallback(
      () =>
        variant === 'dev' ? callApi('/api/v1/manage/platform/company-creation') : Promise.resolve(undefined),
      [callApi, variant],
    ),
  );
  if (variant !== 'dev') return <CreatedInDeveloperConsole />;
  if (!creation.data)
    return <Skeleton active loading={creation.loading} style={{ maxWidth: 520, margin: '48px auto 0' }} />;
  return creation.data.mayCreate ? <CreateCompanyForm /> : <CreatedByPlatformAdministrator />;
}

function CreatedByPlatformAdministrator() {
  const { t } = useTranslation();
  return (
    <Card style={{ maxWidth: 640, margin: '48px auto 0' }} data-testid="company-creation-platform-only">
      <Result
        icon={<BankOutlined />}
        title={t('setup.platformOnlyTitle')}
        subTitle={t('setup.platformOnlyIntro')}
      />
    </Card>
  );
}

function CreateCompanyForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { message } = useFeedback();
  const { callApi, session } = useConsole();
  const { companies } = useSession();
  const [submitting, setSubmitting] = useState(false);

  const onFinish = async ({ name = '' }: CreateCompanyValues) => {
    setSubmitting(true);
    try {
      const created = await callApi('/api/v1/manage/company/create', { name: name.trim() });
      await session.loadCompanies(created.companyId);
      void message.success(t('company.created', { name: created.name }));
      navigate(HOME_PATH, { replace: true });
    } catch {
      // The HTTP client has shown the error; keep the form for another try.
      setSubmitting(false);
    }
  };

  return (
    <Card style={{ maxWidth: 520, margin: '48px auto 0' }}>
      <Typography.Title level={3} style={{ marginTop: 0 }}>
        {t('company.createTitle')}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t('company.createIntro')}</Typography.Paragraph>
      <Form<CreateCompanyValues>
        layout="vertical"
        requiredMark={false}
        onFinish={onFinish}
        disabled={submitting}
      >
        <Form.Item name="name" label={t('company.nameLabel')} rules={companyNameRules(t)} validateFirst>
          <Input
            autoFocus
            prefix={<BankOutlined />}
            placeholder={t('company.namePlaceholder')}
            count={{ show: true, max: COMPANY_NAME_MAX_LENGTH }}
          />
        </Form.Item>
        <Form.Item style={{ paddingTop: 12, marginBottom: 0 }}>
          <Button type="primary" htmlType="submit" loading={submitting} block>
            {t('company.createSubmit')}
          </Button>
          {companies ? (
            <Button type="link" block style={{ marginTop: 8 }} onClick={() => navigate(HOME_PATH)}>
              {t('common.backHome')}
            </Button>
          ) : null}
        </Form.Item>
      </Form>
    </Card>
  );
}

function CreatedInDeveloperConsole() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Card style={{ maxWidth: 640, margin: '48px auto 0' }}>
      <Result
        icon={<BankOutlined />}
        title={t('company.adminTitle')}
        subTitle={t('company.adminIntro')}
        extra={[
          <Button key="dev" type="primary" href="/dev/">
            {t('company.openDevConsole')}
          </Button>,
          <Button key="setup" onClick={() => navigate(SETUP_PATH)}>
            {t('setup.openSetup')}
          </Button>,
        ]}
      />
    </Card>
  );
}
