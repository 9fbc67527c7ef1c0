import { type SignInMark, signInMarks } from '@tessera/contract/constants';
import { Button, Flex, Tag, Tooltip, Typography } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest, ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { type DataColumn, DataTable, pagedList } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { UserPicker } from '../org/user-picker.tsx';
import {
  ExportButton,
  FilterSelect,
  type Order,
  RangeFilter,
  type RangeQuery,
  TimeSortHeader,
  TotalText,
} from './log-filters.tsx';

type Row = ApiResponse<'/api/v1/manage/log/sign-in/list'>['list'][number];
type Filters = Omit<
  NonNullable<ApiRequest<'/api/v1/manage/log/sign-in/list'>>,
  'page' | 'pageSize' | 'order'
>;

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

/** Every sign-in attempt of the company: who, to what, the result and cause, from where, with what. */
export function SignInLog() {
  const { t, i18n } = useTranslation();
  const { callApi } = useConsole();
  const [filters, setFilters] = useState<Filters>({ range: 'month' });
  const [paging, setPaging] = useState({ page: 1, pageSize: 20, order: 'desc' as Order });
  const query = useMemo(() => ({ ...filters, ...paging }), [filters, paging]);
  const { data, loading } = useLoad(
    useCallback(() => callApi('/api/v1/manage/log/sign-in/list', query), [callApi, query]),
  );
  const apps = useLoad(
    useCallback(() => callApi('/api/v1/manage/app/list', { page: 1, pageSize: 100 }), [callApi]),
  ).data;
  const filter = (next: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...next }));
    setPaging((current) => ({ ...current, page: 1 }));
  };

  const columns: DataColumn<Row>[] = [
    {
      key: 'time',
      title: (
        <TimeSortHeader order={paging.order} onChange={(order) => setPaging({ ...paging, order, page: 1 })} />
      ),
      render: (row) => <span style={{ whiteSpace: 'nowrap' }}>{formatDate(row.time)}</span>,
    },
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
        row.appName ?? <Typography.Text type="secondary">{t('log.consoleClient')}</Typography.Text>,
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
      render: (row) => [row.browser, row.os].filter(Boolean).join(' / ') || '—',
    },
  ];

  const causes = Object.entries(t('log.causes', { returnObjects: true }) as Record<string, string>);
  return (
    <Flex vertical gap={16}>
      <Flex gap={8} wrap align="center">
        <RangeFilter
          value={filters as RangeQuery}
          onChange={(range) => filter({ range: range.range, from: range.from, to: range.to })}
        />
        <div style={{ width: 220 }}>
          <UserPicker
            aria-label={t('log.person')}
            placeholder={`${t('log.person')}: ${t('log.anyValue')}`}
            value={filters.userId ?? null}
            onChange={(userId) => filter({ userId: userId ?? undefined })}
          />
        </div>
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
        <Button
          onClick={() => {
            filter({
              range: 'month',
              from: undefined,
              to: undefined,
              userId: undefined,
              appId: undefined,
              result: undefined,
              cause: undefined,
              mark: undefined,
            });
          }}
        >
          {t('log.reset')}
        </Button>
        <span style={{ flex: 1 }} />
        <ExportButton body={{ view: 'signin', ...filters, order: paging.order }} />
      </Flex>
      <DataTable<Row>
        label={t('log.views.signin')}
        testId="sign-in-log"
        rowKey={(row) => row.id}
        loading={loading}
        columns={columns}
        {...pagedList(data, paging, {
          pageSizes: [20, 50, 100],
          showTotal: () => <TotalText data={data} />,
          onChange: (page, pageSize) => setPaging({ ...paging, page, pageSize }),
        })}
      />
    </Flex>
  );
}
