import { BankOutlined } from '@ant-design/icons';
import { type CallResponse, company as companyCalls } from '@tessera/contract';
import { Avatar, Card, Descriptions, type DescriptionsProps, Flex, Grid, Skeleton, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole, useSession } from '../../app/console-context.ts';

type CompanyDetail = CallResponse<typeof companyCalls.companyDetailCall>;

/** A plain landing page until the dashboard statistics exist: who you are and which company. */
export function DashboardPage() {
  const { t, i18n } = useTranslation();
  const { callApi } = useConsole();
  const { company, username } = useSession();
  const narrow = !(Grid.useBreakpoint().sm ?? true);
  const companyId = company?.companyId;
  const [detail, setDetail] = useState<CompanyDetail | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    if (!companyId) return;
    let current = true;
    setDetail(null);
    setLoading(true);
    callApi(companyCalls.companyDetailCall)
      .then((result) => {
        if (current) setDetail(result);
      })
      .catch(() => {
        // The HTTP client has shown the error; the card keeps what the company list said.
      })
      .finally(() => {
        if (current) setLoading(false);
      });
    return () => {
      current = false;
    };
  }, [callApi, companyId]);

  if (!company) return null;
  const dateFormat = new Intl.DateTimeFormat(i18n.language === 'zh' ? 'zh-CN' : 'en', {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  const items: DescriptionsProps['items'] = [
    { key: 'name', label: t('dashboard.companyName'), children: company.name },
    {
      key: 'id',
      label: t('dashboard.companyId'),
      children: (
        <Typography.Text copyable code data-testid="company-id">
          {company.companyId}
        </Typography.Text>
      ),
    },
    {
      key: 'role',
      label: t('dashboard.yourRole'),
      children: company.isOwner ? t('dashboard.roleOwner') : t('dashboard.roleAdministrator'),
    },
  ];
  if (detail) {
    items.push(
      { key: 'owner', label: t('dashboard.owner'), children: detail.ownerUsername },
      {
        key: 'created',
        label: t('dashboard.createdAt'),
        children: dateFormat.format(new Date(detail.createdAt)),
      },
      {
        key: 'language',
        label: t('dashboard.defaultLanguage'),
        children: t(`common.languageName.${detail.defaultLanguage}`),
      },
    );
  }

  return (
    <Card style={{ maxWidth: 960, margin: '0 auto' }}>
      <Flex align="center" gap={16} style={{ marginBottom: 24 }}>
        <Avatar size={56} shape="square" src={company.icon ?? undefined} icon={<BankOutlined />} />
        <div style={{ minWidth: 0 }}>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {t('dashboard.welcome', { name: username })}
          </Typography.Title>
          <Typography.Text type="secondary">{t('dashboard.intro')}</Typography.Text>
        </div>
      </Flex>
      <Descriptions
        bordered
        size={narrow ? 'small' : 'default'}
        column={{ xs: 1, sm: 1, md: 1, lg: 2 }}
        styles={{ label: { whiteSpace: 'nowrap' } }}
        items={items}
      />
      {loading ? <Skeleton active title={false} paragraph={{ rows: 1 }} style={{ marginTop: 16 }} /> : null}
    </Card>
  );
}
