import CheckOutlined from '@ant-design/icons/CheckOutlined';
import CopyOutlined from '@ant-design/icons/CopyOutlined';
import type { DashboardWindow } from '@tessera/contract/constants';
import { grantsAllow, logReadAccess } from '@tessera/contract/shell-constants';
import { theme } from 'antd';
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole, useSession } from '../../app/console-context.ts';
import { withPhrases } from '../../i18n/i18n.ts';
import { useLoad } from '../../lib/use-load.ts';
import { breakpoints, useMinWidth } from '../../lib/use-min-width.ts';
import { ChartPlaceholder, Choice, timeZone } from './panel.tsx';

/**
 * The figure panels: fetched as soon as the page starts (not in the first load, so the page
 * paints its frame without waiting for them).
 */
const overview = withPhrases('dashboardPanels', () => import('./overview.panels.tsx'));
const UsersPanel = lazy(() => overview().then((m) => ({ default: m.UsersPanel })));
const MfaPanel = lazy(() => overview().then((m) => ({ default: m.MfaPanel })));
const AppsPanel = lazy(() => overview().then((m) => ({ default: m.AppsPanel })));
const RecentSignInsPanel = lazy(() => overview().then((m) => ({ default: m.RecentSignInsPanel })));
const NewFailuresPanel = lazy(() => overview().then((m) => ({ default: m.NewFailuresPanel })));
const AlertFlag = lazy(() => overview().then((m) => ({ default: m.AlertFlag })));

/** The chart panels bring ECharts: loaded after the first paint, never in the first load. */
const charts = withPhrases('dashboardPanels', () => import('./chart.panels.tsx'));
const LoginTrendPanel = lazy(() => charts().then((m) => ({ default: m.LoginTrendPanel })));
const HotspotPanel = lazy(() => charts().then((m) => ({ default: m.HotspotPanel })));
const AppTrendPanel = lazy(() => charts().then((m) => ({ default: m.AppTrendPanel })));
const FailuresPanel = lazy(() => charts().then((m) => ({ default: m.FailuresPanel })));

/** True from the frame after the first paint on. */
function usePainted() {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => setTimeout(() => setPainted(true), 0));
    return () => cancelAnimationFrame(frame);
  }, []);
  return painted;
}

/**
 * /dashboard (the pinned first tab): who is signing in, to what, from where, and what fails,
 * over the windows of spec §9 (last 7 days, last month; recent lists: last three days).
 */
export function DashboardPage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { callApi } = useConsole();
  const { company, username, grants } = useSession();
  // The lists of people's sign-ins and failures are log data: only for roles that read the log.
  const readsLog = grants ? grantsAllow(grants, logReadAccess) : false;
  const [window, setWindow] = useState<DashboardWindow>('week');
  const painted = usePainted();
  const wide = useMinWidth(1200);
  const medium = useMinWidth(breakpoints.md);
  const columns = wide ? 3 : medium ? 2 : 1;
  const companyId = company?.companyId;

  const failures = useLoad(
    // biome-ignore lint/correctness/useExhaustiveDependencies: reloads for another company too.
    useCallback(
      () => callApi('/api/v1/manage/index/fail-trend', { window, timeZone: timeZone() }),
      [callApi, window, companyId],
    ),
  ).data;
  const system = useLoad(useCallback(() => callApi('/api/v1/manage/system/info'), [callApi])).data;

  if (!company) return null;
  const span = (n: number) => ({ gridColumn: `span ${Math.min(n, columns)}` });
  /** A panel whose module is loaded apart (charts: only after the first paint). */
  const later = (node: ReactNode, height: number, n: number, afterPaint = true) => {
    const placeholder = <ChartPlaceholder height={height + 56} />;
    return (
      <div style={span(n)}>
        {painted || !afterPaint ? <Suspense fallback={placeholder}>{node}</Suspense> : placeholder}
      </div>
    );
  };

  return (
    // Keyed by company: switching companies starts every panel afresh.
    <div
      key={company.companyId}
      style={{ display: 'flex', flexDirection: 'column', gap: 16, maxWidth: 1600 }}
    >
      <header style={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: '8px 16px' }}>
        <div style={{ flex: '1 1 320px', minWidth: 0 }}>
          <h3 style={{ margin: 0, fontSize: token.fontSizeHeading4, fontWeight: token.fontWeightStrong }}>
            {t('dashboard.welcome', { name: username })}
          </h3>
          <div style={{ color: token.colorTextSecondary, display: 'flex', flexWrap: 'wrap', gap: '0 12px' }}>
            <span data-testid="company-name">{company.name}</span>
            <span>
              {t('dashboard.companyId')}: <CopyableCode text={company.companyId} testId="company-id" />
            </span>
            {system ? <span>{t('dashboard.system.version', { version: system.version })}</span> : null}
          </div>
        </div>
        <Choice<DashboardWindow>
          label={t('dashboard.window')}
          testId="dashboard-window"
          value={window}
          onChange={setWindow}
          options={(['week', 'month'] as const).map((value) => ({
            value,
            label: t(`dashboard.windows.${value}`),
          }))}
        />
      </header>
      {failures?.alerts.length ? (
        <Suspense fallback={null}>
          <AlertFlag alerts={failures.alerts} />
        </Suspense>
      ) : null}
      {!failures ? (
        <div data-testid="dashboard-loading" aria-busy="true" style={{ display: 'none' }} />
      ) : null}
      {/* Dense: in two columns a one-column panel fills the place left beside the one before the charts. */}
      <div
        style={{
          display: 'grid',
          gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
          gridAutoFlow: 'row dense',
          gap: 16,
        }}
      >
        {later(<UsersPanel />, 120, 1, false)}
        {later(<MfaPanel />, 120, 1, false)}
        {later(<AppsPanel window={window} />, 120, 1, false)}
        {later(<LoginTrendPanel window={window} />, 260, 2)}
        {readsLog ? later(<RecentSignInsPanel />, 260, 1, false) : null}
        {later(<HotspotPanel window={window} />, 320, 2)}
        {readsLog ? later(<NewFailuresPanel />, 320, columns === 2 ? 2 : 1, false) : null}
        {later(<AppTrendPanel window={window} />, 240, 3)}
        {later(<FailuresPanel data={failures} />, 240, 3)}
      </div>
    </div>
  );
}

/** antd's `Typography.Text code copyable`: the text in code style and a copy button. */
function CopyableCode({ text, testId }: { text: string; testId: string }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(() => {
      setCopied(true);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), 3000);
    });
  };
  const label = copied ? t('dashboard.copied') : t('dashboard.copy');
  return (
    <span>
      <code
        data-testid={testId}
        style={{
          padding: '0.1em 0.4em',
          fontSize: '85%',
          fontFamily: token.fontFamilyCode,
          background: 'rgba(150, 150, 150, 0.1)',
          border: '1px solid rgba(100, 100, 100, 0.2)',
          borderRadius: 3,
          wordBreak: 'break-all',
        }}
      >
        {text}
      </code>
      <button
        type="button"
        onClick={copy}
        aria-label={label}
        title={label}
        style={{
          marginInlineStart: 4,
          padding: 0,
          border: 0,
          background: 'transparent',
          color: copied ? token.colorSuccess : token.colorLink,
          cursor: 'pointer',
          fontSize: 'inherit',
        }}
      >
        {copied ? <CheckOutlined /> : <CopyOutlined />}
      </button>
    </span>
  );
}
