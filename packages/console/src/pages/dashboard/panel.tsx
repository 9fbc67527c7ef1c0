import { theme } from 'antd';
import type { CSSProperties, ReactNode } from 'react';

/** A titled box of the dashboard, drawn with plain elements in antd's card look (first screen: no Card module). */
export function Panel({
  title,
  extra,
  children,
  testId,
  style,
}: {
  title: ReactNode;
  extra?: ReactNode;
  children: ReactNode;
  testId?: string;
  style?: CSSProperties;
}) {
  const { token } = theme.useToken();
  return (
    <section
      data-testid={testId}
      style={{
        background: token.colorBgContainer,
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
        padding: '16px 20px',
        minWidth: 0,
        ...style,
      }}
    >
      <header style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 12, minHeight: 28 }}>
        <h2 style={{ margin: 0, fontSize: token.fontSizeLG, fontWeight: token.fontWeightStrong, flex: 1 }}>
          {title}
        </h2>
        {extra}
      </header>
      {children}
    </section>
  );
}

/** A figure with its label. */
export function Figure({
  label,
  value,
  tone,
}: {
  label: string;
  value: ReactNode;
  tone?: 'danger' | 'warning';
}) {
  const { token } = theme.useToken();
  const color =
    tone === 'danger' ? token.colorError : tone === 'warning' ? token.colorWarning : token.colorTextHeading;
  return (
    <div style={{ minWidth: 96 }}>
      <div style={{ color: token.colorTextSecondary, fontSize: token.fontSizeSM }}>{label}</div>
      <div style={{ color, fontSize: 24, fontWeight: 600, lineHeight: 1.4 }}>{value}</div>
    </div>
  );
}

/** What a panel shows when there is nothing (the spec's messages). */
export function EmptyNote({ text, testId }: { text: string; testId?: string }) {
  const { token } = theme.useToken();
  return (
    <div
      data-testid={testId}
      style={{ color: token.colorTextTertiary, padding: '24px 0', textAlign: 'center' }}
    >
      {text}
    </div>
  );
}

/** A placeholder of a chart's size while the chart module loads. */
export function ChartPlaceholder({ height }: { height: number }) {
  const { token } = theme.useToken();
  return (
    <div
      aria-hidden="true"
      style={{ height, borderRadius: token.borderRadius, background: token.colorFillQuaternary }}
    />
  );
}

/** One choice of a few, in antd's Segmented look (plain: Segmented is not in the first load). */
export function Choice<V extends string>({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  value: V;
  options: { value: V; label: string }[];
  onChange(value: V): void;
  testId?: string;
}) {
  const { token } = theme.useToken();
  return (
    <fieldset
      aria-label={label}
      data-testid={testId}
      style={{
        display: 'inline-flex',
        margin: 0,
        border: 'none',
        minWidth: 0,
        padding: 2,
        gap: 2,
        borderRadius: token.borderRadius,
        background: token.colorFillSecondary,
      }}
    >
      {options.map((option) => {
        const checked = option.value === value;
        return (
          <button
            key={option.value}
            type="button"
            aria-pressed={checked}
            onClick={() => onChange(option.value)}
            style={{
              border: 'none',
              cursor: 'pointer',
              padding: '2px 12px',
              borderRadius: token.borderRadiusSM,
              font: 'inherit',
              color: checked ? token.colorText : token.colorTextSecondary,
              background: checked ? token.colorBgContainer : 'transparent',
              boxShadow: checked ? token.boxShadowTertiary : 'none',
            }}
          >
            {option.label}
          </button>
        );
      })}
    </fieldset>
  );
}

/** The browser's time zone: the server counts days in it. */
export const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
