import WarningOutlined from '@ant-design/icons/WarningOutlined';
import type { DashboardWindow } from '@tessera/contract/constants';
import { theme } from 'antd';
import { type ReactNode, useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { formatDate } from '../../lib/format/date.ts';
import { formatThousands } from '../../lib/format/number.ts';
import { useLoad } from '../../lib/use-load.ts';
import { ChartPlaceholder, EmptyNote, Figure, Panel, timeZone } from './panel.tsx';

/** The panels of the dashboard drawn without charts (first paint). */

const figures = { display: 'flex', flexWrap: 'wrap', gap: '12px 24px' } as const;

/** A phrase key from a contract value: `otp_sm3` → `otpSm3`. */
const phraseKeyOf = (value: string) => value.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export function UsersPanel() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { data } = useLoad(useCallback(() => callApi('/api/v1/manage/index/user-data-overview'), [callApi]));
  return (
    <Panel title={t('dashboardPanels.users.title')} testId="panel-users">
      {data ? (
        <div style={figures}>
          <Figure label={t('dashboardPanels.users.total')} value={formatThousands(data.total)} />
          <Figure label={t('dashboardPanels.users.enabled')} value={formatThousands(data.enabled)} />
          <Figure label={t('dashboardPanels.users.disabled')} value={formatThousands(data.disabled)} />
          <Figure
            label={t('dashboardPanels.users.locked')}
            value={formatThousands(data.locked)}
            tone={data.locked ? 'warning' : undefined}
          />
          <Figure
            label={t('dashboardPanels.users.administrators')}
            value={formatThousands(data.administrators)}
          />
          <Figure
            label={t('dashboardPanels.users.newLast7Days')}
            value={formatThousands(data.newLast7Days)}
          />
          <Figure
            label={t('dashboardPanels.users.activeLast7Days')}
            value={formatThousands(data.activeLast7Days)}
          />
        </div>
      ) : (
        <ChartPlaceholder height={120} />
      )}
    </Panel>
  );
}

export function MfaPanel() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { callApi } = useConsole();
  const { data } = useLoad(useCallback(() => callApi('/api/v1/manage/index/user-mfa-info'), [callApi]));
  const share = data?.users ? Math.round((data.withFactor / data.users) * 100) : 0;
  return (
    <Panel
      title={t('dashboardPanels.mfa.title')}
      testId="panel-mfa"
      extra={
        data ? (
          <Chip>{`${t('dashboardPanels.mfa.mode')}: ${t(`dashboardPanels.mfa.modes.${data.mode}`)}`}</Chip>
        ) : null
      }
    >
      {data ? (
        <>
          <div style={figures}>
            <Figure
              label={t('dashboardPanels.mfa.withFactor')}
              value={`${formatThousands(data.withFactor)} (${share}%)`}
            />
            <Figure
              label={t('dashboardPanels.mfa.withoutFactor')}
              value={formatThousands(data.withoutFactor)}
            />
          </div>
          <div
            role="img"
            aria-label={`${share}%`}
            style={{
              height: 8,
              marginTop: 12,
              borderRadius: 4,
              background: token.colorFillSecondary,
              overflow: 'hidden',
            }}
          >
            <div style={{ width: `${share}%`, height: '100%', background: token.colorSuccess }} />
          </div>
          <ul style={{ listStyle: 'none', padding: 0, margin: '12px 0 0', color: token.colorTextSecondary }}>
            {data.byType.map((row) => (
              <li key={row.type}>
                {t(`dashboardPanels.mfa.types.${phraseKeyOf(row.type)}`, { defaultValue: row.type })}:{' '}
                {formatThousands(row.users)}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <ChartPlaceholder height={120} />
      )}
    </Panel>
  );
}

export function AppsPanel({ window }: { window: DashboardWindow }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { callApi } = useConsole();
  const { data } = useLoad(
    useCallback(
      () => callApi('/api/v1/manage/index/app-login-count', { window, timeZone: timeZone() }),
      [callApi, window],
    ),
  );
  return (
    <Panel title={t('dashboardPanels.apps.title')} testId="panel-apps">
      {data ? (
        <>
          <div style={figures}>
            <Figure label={t('dashboardPanels.apps.total')} value={data.total} />
            <Figure label={t('dashboardPanels.apps.opened')} value={data.opened} />
            <Figure label={t('dashboardPanels.apps.disabled')} value={data.disabled} />
            <Figure label={t('dashboardPanels.apps.toBeConfigured')} value={data.toBeConfigured} />
          </div>
          <div style={{ marginTop: 12, color: token.colorTextSecondary }}>
            {t('dashboardPanels.apps.top')}
          </div>
          {data.top.length ? (
            <ol style={{ margin: '4px 0 0', paddingInlineStart: 20 }} data-testid="top-apps">
              {data.top.map((app) => (
                <li key={app.appId}>
                  <Link to={`/application/detail?appId=${app.appId}`}>{app.name}</Link>{' '}
                  <span style={{ color: token.colorTextTertiary }}>
                    {t('dashboardPanels.apps.signIns', { count: app.count })}
                  </span>
                </li>
              ))}
            </ol>
          ) : (
            <EmptyNote text={t('dashboardPanels.apps.none')} />
          )}
        </>
      ) : (
        <ChartPlaceholder height={120} />
      )}
    </Panel>
  );
}

type Recent = ApiResponse<'/api/v1/manage/index/new-login-list'>['list'][number];

function RecentList({ rows, failures }: { rows: Recent[]; failures?: boolean }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <ul style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {rows.map((row) => (
        <li
          key={row.id}
          style={{
            padding: '6px 0',
            borderBottom: `1px solid ${token.colorSplit}`,
            display: 'flex',
            gap: 8,
            flexWrap: 'wrap',
          }}
        >
          <strong style={{ minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis' }}>
            {row.username ?? row.identifier}
          </strong>
          <span style={{ color: token.colorTextSecondary }}>{row.appName ?? ''}</span>
          {failures && row.causeText ? <Chip tone="error">{row.causeText}</Chip> : null}
          {row.marks.map((mark) => (
            <Chip key={mark} tone="warning">
              {t(`dashboardPanels.marks.${mark}`)}
            </Chip>
          ))}
          <span
            style={{ marginInlineStart: 'auto', color: token.colorTextTertiary, fontSize: token.fontSizeSM }}
          >
            {[row.place?.city ?? row.place?.country, row.ip].filter(Boolean).join(' · ')}{' '}
            {formatDate(row.time, 'MM-DD HH:mm')}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function RecentSignInsPanel() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { data } = useLoad(
    useCallback(() => callApi('/api/v1/manage/index/new-login-list', { limit: 8 }), [callApi]),
  );
  return (
    <Panel
      title={t('dashboardPanels.recent.title')}
      testId="panel-recent"
      extra={<Link to="/log/index">{t('dashboardPanels.recent.more')}</Link>}
    >
      {!data ? (
        <ChartPlaceholder height={200} />
      ) : data.list.length ? (
        <RecentList rows={data.list} />
      ) : (
        <EmptyNote text={t('dashboardPanels.recent.empty')} testId="no-recent-logins" />
      )}
    </Panel>
  );
}

export function NewFailuresPanel() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { data } = useLoad(
    useCallback(() => callApi('/api/v1/manage/index/new-fail-list', { limit: 8 }), [callApi]),
  );
  return (
    <Panel
      title={t('dashboardPanels.newFailures.title')}
      testId="panel-new-failures"
      extra={<Link to="/log/index?result=failure">{t('dashboardPanels.recent.more')}</Link>}
    >
      {!data ? (
        <ChartPlaceholder height={200} />
      ) : data.list.length ? (
        <RecentList rows={data.list} failures />
      ) : (
        <EmptyNote text={t('dashboardPanels.newFailures.empty')} testId="no-new-failures" />
      )}
    </Panel>
  );
}

/** The browser's time zone: the dashboard's days are the administrator's. */

type Alert = {
  id: string;
  cause: string;
  causeText: string;
  username: string | null;
  count: number;
  threshold: number;
  windowMinutes: number;
};

/** Failure spikes of the last 24 hours, flagged above everything else. */
export function AlertFlag({ alerts }: { alerts: Alert[] }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <div
      role="alert"
      data-testid="failure-alerts"
      style={{
        border: `1px solid ${token.colorErrorBorder}`,
        background: token.colorErrorBg,
        borderRadius: token.borderRadiusLG,
        padding: '12px 16px',
      }}
    >
      <strong style={{ color: token.colorError }}>
        <WarningOutlined /> {t('dashboardPanels.failures.alertsTitle')}
      </strong>
      <ul style={{ margin: '4px 0 0', paddingInlineStart: 20 }}>
        {alerts.slice(0, 5).map((alert) => (
          <li key={alert.id}>
            {t('dashboardPanels.failures.alert', {
              count: alert.count,
              cause: alert.causeText,
              who: alert.username ?? t('dashboardPanels.failures.alertCompany'),
              minutes: alert.windowMinutes,
              threshold: alert.threshold,
            })}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A small label in antd's Tag look (plain: the Tag module is not in the first load). */
function Chip({ tone, children }: { tone?: 'error' | 'warning'; children: ReactNode }) {
  const { token } = theme.useToken();
  const [color, background] =
    tone === 'error'
      ? [token.colorErrorText, token.colorErrorBg]
      : tone === 'warning'
        ? [token.colorWarningText, token.colorWarningBg]
        : [token.colorText, token.colorFillQuaternary];
  return (
    <span
      style={{
        display: 'inline-block',
        padding: '0 7px',
        marginInlineEnd: 4,
        fontSize: token.fontSizeSM,
        lineHeight: '20px',
        borderRadius: token.borderRadiusSM,
        color,
        background,
        whiteSpace: 'nowrap',
      }}
    >
      {children}
    </span>
  );
}
