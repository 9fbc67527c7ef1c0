import type { DashboardWindow } from '@tessera/contract/constants';
import { Radio, Tag, theme } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { formatThousands } from '../../lib/format/number.ts';
import { useLoad } from '../../lib/use-load.ts';
import { EChart, useChartColors, useMap } from './dashboard-charts.tsx';
import { ChartPlaceholder, EmptyNote, Panel, timeZone } from './panel.tsx';
import { provinceNames } from './provinces.ts';

/** The dashboard's chart panels (this module and ECharts load after the first paint). */

const shortDay = (day: string) => day.slice(5);
const grid = { left: 40, right: 16, top: 36, bottom: 28 };

export function LoginTrendPanel({ window }: { window: DashboardWindow }) {
  const { t } = useTranslation();
  const colors = useChartColors();
  const { callApi } = useConsole();
  const { data } = useLoad(
    useCallback(
      () => callApi('/api/v1/manage/index/user-login-trend', { window, timeZone: timeZone() }),
      [callApi, window],
    ),
  );
  const option = useMemo(
    () =>
      data && {
        color: [colors.success, colors.error],
        tooltip: { trigger: 'axis' },
        legend: { top: 0 },
        grid,
        xAxis: { type: 'category', data: data.days.map((d) => shortDay(d.day)), boundaryGap: false },
        yAxis: { type: 'value', minInterval: 1 },
        series: [
          {
            name: t('dashboardPanels.trend.success'),
            type: 'line',
            smooth: true,
            areaStyle: { opacity: 0.08 },
            data: data.days.map((d) => d.success),
          },
          {
            name: t('dashboardPanels.trend.failure'),
            type: 'line',
            smooth: true,
            data: data.days.map((d) => d.failure),
          },
        ],
      },
    [data, colors, t],
  );
  return (
    <Panel title={t('dashboardPanels.trend.title')} testId="panel-trend">
      {option ? (
        <EChart option={option} height={260} label={t('dashboardPanels.trend.title')} testId="chart-trend" />
      ) : (
        <ChartPlaceholder height={260} />
      )}
    </Panel>
  );
}

export function AppTrendPanel({ window }: { window: DashboardWindow }) {
  const { t } = useTranslation();
  const colors = useChartColors();
  const { callApi } = useConsole();
  const trend = useLoad(
    useCallback(
      () => callApi('/api/v1/manage/index/app-login-trend', { window, timeZone: timeZone() }),
      [callApi, window],
    ),
  ).data;
  const ratio = useLoad(
    useCallback(
      () => callApi('/api/v1/manage/index/app-login-count-ratio', { window, timeZone: timeZone() }),
      [callApi, window],
    ),
  ).data;
  const lines = useMemo(
    () =>
      trend && {
        color: colors.series,
        tooltip: { trigger: 'axis' },
        legend: { top: 0, type: 'scroll' },
        grid,
        xAxis: { type: 'category', data: trend.days.map((d) => shortDay(d.day)), boundaryGap: false },
        yAxis: { type: 'value', minInterval: 1 },
        series: trend.apps.map((app, index) => ({
          name: app.name,
          type: 'line',
          smooth: true,
          data: trend.days.map((d) => d.counts[index] ?? 0),
        })),
      },
    [trend, colors],
  );
  const pie = useMemo(
    () =>
      ratio && {
        color: colors.series,
        tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
        series: [
          {
            type: 'pie',
            radius: ['45%', '70%'],
            label: { formatter: '{b}\n{d}%' },
            data: [
              ...ratio.list.map((app) => ({ name: app.name, value: app.count })),
              ...(ratio.others ? [{ name: t('dashboardPanels.appTrend.others'), value: ratio.others }] : []),
            ],
          },
        ],
      },
    [ratio, colors, t],
  );
  const empty = trend && !trend.apps.length;
  return (
    <Panel title={t('dashboardPanels.appTrend.title')} testId="panel-app-trend">
      {empty ? (
        <EmptyNote text={t('dashboardPanels.apps.none')} />
      ) : (
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16 }}>
          <div style={{ flex: '2 1 320px', minWidth: 0 }}>
            {lines ? (
              <EChart option={lines} height={240} label={t('dashboardPanels.appTrend.title')} />
            ) : (
              <ChartPlaceholder height={240} />
            )}
          </div>
          <div style={{ flex: '1 1 220px', minWidth: 0 }}>
            {pie ? (
              <EChart
                option={pie}
                height={240}
                label={t('dashboardPanels.appTrend.share')}
                testId="chart-app-share"
              />
            ) : (
              <ChartPlaceholder height={240} />
            )}
          </div>
        </div>
      )}
    </Panel>
  );
}

type FailTrend = ApiResponse<'/api/v1/manage/index/fail-trend'>;

export function FailuresPanel({ data }: { data: FailTrend | undefined }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const colors = useChartColors();
  const option = useMemo(
    () =>
      data && {
        color: [colors.error, colors.warning, ...colors.series],
        tooltip: { trigger: 'axis' },
        legend: { top: 0, type: 'scroll' },
        grid,
        xAxis: { type: 'category', data: data.days.map((d) => shortDay(d.day)) },
        yAxis: { type: 'value', minInterval: 1 },
        series: data.causes.map((cause) => ({
          name: cause.causeText,
          type: 'bar',
          stack: 'failures',
          data: data.days.map((d) => d.byCause[cause.cause] ?? 0),
        })),
      },
    [data, colors],
  );
  return (
    <Panel title={t('dashboardPanels.failures.title')} testId="panel-failures">
      {!data ? (
        <ChartPlaceholder height={240} />
      ) : !data.causes.length ? (
        <EmptyNote text={t('dashboardPanels.failures.none')} testId="no-failures" />
      ) : (
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16 }}>
          <div style={{ flex: '2 1 320px', minWidth: 0 }}>
            {option ? (
              <EChart
                option={option}
                height={240}
                label={t('dashboardPanels.failures.title')}
                testId="chart-failures"
              />
            ) : null}
          </div>
          <div style={{ flex: '1 1 200px' }}>
            <div style={{ color: token.colorTextSecondary, marginBottom: 8 }}>
              {t('dashboardPanels.failures.byCause')}
            </div>
            <ul style={{ listStyle: 'none', margin: 0, padding: 0 }} data-testid="failure-causes">
              {data.causes.map((cause) => (
                <li
                  key={cause.cause}
                  style={{ display: 'flex', justifyContent: 'space-between', padding: '4px 0' }}
                >
                  <span>{cause.causeText}</span>
                  <strong>{formatThousands(cause.count)}</strong>
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
    </Panel>
  );
}

const countryName = (code: string, lang: string) => {
  try {
    return new Intl.DisplayNames([lang === 'zh' ? 'zh-CN' : 'en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
};

export function HotspotPanel({ window }: { window: DashboardWindow }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const colors = useChartColors();
  const { callApi } = useConsole();
  const [scope, setScope] = useState<'world' | 'china'>('world');
  const lang = currentLanguage();
  const { data } = useLoad(
    useCallback(
      () => callApi('/api/v1/manage/index/login-hotspot', { window, timeZone: timeZone(), scope }),
      [callApi, window, scope],
    ),
  );
  const mapReady = useMap(scope);
  const option = useMemo(() => {
    if (!data || !mapReady) return undefined;
    const rows = data.list.map((row) => ({
      name: scope === 'china' ? (provinceNames[row.key] ?? row.key) : row.key,
      label:
        scope === 'china'
          ? lang === 'zh'
            ? (provinceNames[row.key] ?? row.key)
            : row.key
          : countryName(row.key, lang),
      value: row.count,
      newCountry: row.newCountry,
      impossibleTravel: row.impossibleTravel,
    }));
    const byName = new Map(rows.map((row) => [row.name, row]));
    const max = Math.max(1, ...rows.map((row) => row.value));
    return {
      tooltip: {
        trigger: 'item',
        formatter: (params: { name: string }) => {
          const row = byName.get(params.name);
          const name = row?.label ?? (scope === 'world' ? countryName(params.name, lang) : params.name);
          if (!row) return name;
          const marks = [
            row.newCountry ? `${t('dashboardPanels.hotspot.newCountry')}: ${row.newCountry}` : '',
            row.impossibleTravel
              ? `${t('dashboardPanels.hotspot.impossibleTravel')}: ${row.impossibleTravel}`
              : '',
          ].filter(Boolean);
          return [`${name}: ${row.value}`, ...marks].join('<br/>');
        },
      },
      visualMap: {
        min: 0,
        max,
        left: 8,
        bottom: 8,
        itemHeight: 80,
        calculable: false,
        inRange: { color: ['#e6f4ff', colors.primary] },
        text: [String(max), '0'],
      },
      series: [
        {
          type: 'map',
          map: scope,
          roam: false,
          emphasis: { label: { show: false }, itemStyle: { areaColor: colors.warning } },
          itemStyle: {
            areaColor: token.colorFillTertiary,
            borderColor: token.colorBgContainer,
            borderWidth: 0.5,
          },
          data: rows.map((row) => ({
            name: row.name,
            value: row.value,
            // Sign-ins from a new country or impossible travel: drawn with a warning border.
            ...(row.newCountry || row.impossibleTravel
              ? { itemStyle: { borderColor: colors.error, borderWidth: 1.5 } }
              : {}),
          })),
        },
      ],
    };
  }, [data, mapReady, scope, lang, colors, token, t]);
  const marked = data?.list.reduce((sum, row) => sum + row.newCountry + row.impossibleTravel, 0) ?? 0;
  return (
    <Panel
      title={t('dashboardPanels.hotspot.title')}
      testId="panel-hotspot"
      extra={
        <Radio.Group
          size="small"
          optionType="button"
          value={scope}
          onChange={(event) => setScope(event.target.value)}
          options={[
            { value: 'world', label: t('dashboardPanels.hotspot.world') },
            { value: 'china', label: t('dashboardPanels.hotspot.china') },
          ]}
        />
      }
    >
      {option ? (
        <EChart
          option={option}
          height={320}
          label={t('dashboardPanels.hotspot.title')}
          testId="chart-hotspot"
        />
      ) : (
        <ChartPlaceholder height={320} />
      )}
      <div
        style={{
          display: 'flex',
          flexWrap: 'wrap',
          gap: 8,
          marginTop: 8,
          color: token.colorTextTertiary,
          fontSize: token.fontSizeSM,
        }}
      >
        {marked ? (
          <Tag color="error">{`${t('dashboardPanels.hotspot.newCountry')} / ${t('dashboardPanels.hotspot.impossibleTravel')}: ${marked}`}</Tag>
        ) : null}
        {data?.unplaced ? (
          <span>{t('dashboardPanels.hotspot.unplaced', { count: data.unplaced })}</span>
        ) : null}
        <span style={{ marginInlineStart: 'auto' }}>{data?.source}</span>
      </div>
    </Panel>
  );
}
