import { Card, Flex, Radio, Skeleton, Table, Tag, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useLoad } from '../../lib/use-load.ts';
import { SmsProviderCard } from './sms-provider.card.tsx';

type SetupItem = ApiResponse<'/api/v1/manage/platform/setup'>['items'][number];
type CreationMode = ApiResponse<'/api/v1/manage/platform/company-creation'>['mode'];

const STATE_COLOURS = { ok: 'success', attention: 'warning', off: 'default' } as const;
const MODES: CreationMode[] = ['everyone', 'platform_admins'];

/**
 * A variable's name that may wrap after its underscores only (TESSERA_OUTBOUND_ALLOWED_NETWORKS
 * at 900 px), never inside a word; the copy button copies the name itself.
 */
const breakableName = (name: string) => name.replaceAll('_', '_\u200b');

/**
 * /setting/setup (platform console only): each installation setting that shapes what companies
 * can do, with its state, what it means and the variable that sets it; who may create companies
 * is changed here.
 */
export function SetupPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const setup = useLoad(useCallback(() => callApi('/api/v1/manage/platform/setup'), [callApi]));
  const [saving, setSaving] = useState(false);

  const changeCreation = async (mode: CreationMode) => {
    setSaving(true);
    try {
      await callApi('/api/v1/manage/platform/company-creation/update', { mode });
      void message.success(t('setup.creationSaved', { mode: t(`setup.creation.${mode}`) }));
      setup.reload();
    } catch {
      // The HTTP client has shown the error.
    } finally {
      setSaving(false);
    }
  };

  const currentValue = (item: SetupItem) => {
    if (item.key === 'companyCreation')
      return (
        <Radio.Group
          data-testid="company-creation"
          value={item.value}
          disabled={saving}
          style={{ display: 'flex', flexDirection: 'column', gap: 4 }}
          options={MODES.map((mode) => ({ value: mode, label: t(`setup.creation.${mode}`) }))}
          onChange={(event) => void changeCreation(event.target.value as CreationMode)}
        />
      );
    if (item.key === 'licence' && item.value) {
      // "normal (2027-01-01)": the status in words, then its expiry.
      const [status = '', ...rest] = item.value.split(' ');
      return (
        t(`setup.licenceStatus.${status as 'normal'}`, { defaultValue: status }) +
        (rest.length ? ` ${rest.join(' ')}` : '')
      );
    }
    return item.value === null ? (
      <Typography.Text type="secondary">{t('setup.none')}</Typography.Text>
    ) : (
      <Typography.Text style={{ wordBreak: 'break-all' }}>{item.value}</Typography.Text>
    );
  };

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1200 }}>
      <Card>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 16 }}>
          {t('setup.intro')}
        </Typography.Paragraph>
        {setup.data ? (
          <Table<SetupItem>
            data-testid="setup-items"
            rowKey="key"
            pagination={false}
            size="middle"
            tableLayout="fixed"
            dataSource={setup.data.items}
            columns={[
              {
                key: 'setting',
                title: t('setup.column.setting'),
                render: (_, item) => (
                  <Flex vertical gap={4}>
                    <Typography.Text strong>{t(`setup.item.${item.key}.title`)}</Typography.Text>
                    <Typography.Text type="secondary">{t(`setup.item.${item.key}.meaning`)}</Typography.Text>
                  </Flex>
                ),
              },
              {
                key: 'state',
                title: t('setup.column.state'),
                width: 96,
                render: (_, item) => (
                  <Tag color={STATE_COLOURS[item.state]}>{t(`setup.state.${item.state}`)}</Tag>
                ),
              },
              {
                key: 'value',
                title: t('setup.column.value'),
                width: '26%',
                render: (_, item) => currentValue(item),
              },
              {
                key: 'variable',
                title: t('setup.column.variable'),
                width: '30%',
                render: (_, item) =>
                  item.variables.length ? (
                    <Flex vertical gap={2}>
                      {item.variables.map((variable) => (
                        <Typography.Text key={variable} code copyable={{ text: variable }}>
                          {breakableName(variable)}
                        </Typography.Text>
                      ))}
                    </Flex>
                  ) : (
                    <Typography.Text type="secondary">{t('setup.onThisPage')}</Typography.Text>
                  ),
              },
            ]}
          />
        ) : (
          <Skeleton active loading={setup.loading} paragraph={{ rows: 8 }} />
        )}
      </Card>
      <SmsProviderCard />
    </Flex>
  );
}
