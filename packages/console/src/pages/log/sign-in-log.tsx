import {
  loginMethods,
  RADIUS_LOG_CLIENT_PREFIX,
  type SignInMark,
  signInMarks,
} from '@tessera/contract/constants';
import { Flex, Tag, Tooltip, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import type { DataColumn } from '../../components/data-table.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { loginMethodKey } from '../safety/safety-rules.ts';
import { FilterSelect } from './log-filters.tsx';
import { type LogRow, LogViewFrame, useLogView } from './log-view.tsx';

type Row = LogRow<'signin'>;

const regionNames = new Map<string, Intl.DisplayNames>();
/** A country's name in the console's language (the code when the browser does not know it). */
export function countryName(code: string, language: string) {
  let names = regionNames.get(language);
  if (!names) {
    names = new Intl.DisplayNames([language === 'zh' ? 'zh-CN' : 'en'], { type: 'region' });
    regionNames.set(language, names);
  }
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

export function MarkTags({ marks }: { marks: readonly SignInMark[] }) {
  const { t } = useTranslation();
  return marks.map((mark) => (
    <Tag key={mark} color={mark === 'impossible_travel' ? 'volcano' : 'gold'} bordered={false}>
      {t(`log.marks.${mark}`)}
    </Tag>
  ));
}

/** How the person proved who they were, when it was not a password (a passkey, a code by email or SMS). */
export function MethodTag({ method }: { method: string | null }) {
  const { t } = useTranslation();
  const key = loginMethods.find((known) => known === method);
  if (!key || key === 'password') return null;
  return (
    <Tag color="blue" bordered={false} data-testid="sign-in-method">
      {t(`log.methods.${loginMethodKey[key]}` as 'log.methods.passkey')}
    </Tag>
  );
}

/** Every sign-in attempt of the company: who, to what, the result and cause, from where, with what. */
export function SignInLog() {
  const { t, i18n } = useTranslation();
  const { callApi } = useConsole();
  const state = useLogView('signin');
  const { filters, filter } = state;
  const apps = useLoad(
    useCallback(() => callApi('/api/v1/manage/app/list', { page: 1, pageSize: 100 }), [callApi]),
  ).data;

  const columns: DataColumn<Row>[] = [
    state.timeColumn,
    {
      key: 'person',
      title: t('log.column.person'),
      render: (row) =>
        row.username ?? (
          <Tooltip title={t('log.unknownPerson')}>
            <Typography.Text type="secondary">{row.identifier}</Typography.Text>
          </Tooltip>
        ),
    },
    {
      key: 'app',
      title: t('log.column.application'),
      minScreen: 'md',
      render: (row) =>
        row.appName ?? (
          <Typography.Text type="secondary">
            {row.clientId?.startsWith(RADIUS_LOG_CLIENT_PREFIX)
              ? t('log.radiusClient')
              : t('log.consoleClient')}
          </Typography.Text>
        ),
    },
    {
      key: 'result',
      title: t('log.column.result'),
      render: (row) => (
        <Flex gap={4} wrap>
          {row.result === 'success' ? (
            <Tag color="green" bordered={false}>
              {t('log.results.success')}
            </Tag>
          ) : (
            <Tag color="red" bordered={false}>
              {row.causeText ?? t('log.results.failure')}
            </Tag>
          )}
          <MarkTags marks={row.marks} />
          <MethodTag method={row.method} />
        </Flex>
      ),
    },
    { key: 'ip', title: t('log.column.ip'), minScreen: 'md', render: (row) => row.ip ?? '—' },
    {
      key: 'place',
      title: t('log.column.place'),
      minScreen: 'lg',
      render: (row) =>
        row.place ? (
          [countryName(row.place.country, i18n.language), row.place.region, row.place.city]
            .filter(Boolean)
            .join(' · ')
        ) : (
          <Typography.Text type="secondary">{t('log.privateAddress')}</Typography.Text>
        ),
    },
    {
      key: 'device',
      title: t('log.column.device'),
      minScreen: 'lg',
      render: (row) =>
        row.nas ? (
          <span data-testid="sign-in-nas">
            {[
              row.nas.ip && t('log.nasIp', { ip: row.nas.ip }),
              row.nas.callingStationId && t('log.callingStation', { id: row.nas.callingStationId }),
            ]
              .filter(Boolean)
              .join(' · ')}
          </span>
        ) : (
          [row.browser, row.os].filter(Boolean).join(' / ') || '—'
        ),
    },
  ];

  const causes = Object.entries(t('log.causes', { returnObjects: true }) as Record<string, string>);
  return (
    <LogViewFrame
      state={state}
      person={{
        label: t('log.person'),
        value: filters.userId,
        onChange: (userId) => filter({ userId }),
      }}
      label={t('log.views.signin')}
      testId="sign-in-log"
      columns={columns}
    >
      <FilterSelect
        label={t('log.application')}
        testId="log-filter-app"
        showSearch
        value={filters.appId}
        options={(apps?.list ?? []).map((app) => ({ value: app.appId, label: app.name }))}
        onChange={(appId) => filter({ appId })}
      />
      <FilterSelect
        label={t('log.result')}
        testId="log-filter-result"
        width={140}
        value={filters.result}
        options={(['success', 'failure'] as const).map((value) => ({
          value,
          label: t(`log.results.${value}`),
        }))}
        onChange={(result) => filter({ result })}
      />
      <FilterSelect
        label={t('log.cause')}
        testId="log-filter-cause"
        width={200}
        showSearch
        value={filters.cause}
        options={causes.map(([value, label]) => ({ value, label }))}
        onChange={(cause) => filter({ cause, result: cause ? 'failure' : filters.result })}
      />
      <FilterSelect
        label={t('log.mark')}
        width={170}
        value={filters.mark}
        options={signInMarks.map((value) => ({ value, label: t(`log.marks.${value}`) }))}
        onChange={(mark) => filter({ mark })}
      />
    </LogViewFrame>
  );
}
