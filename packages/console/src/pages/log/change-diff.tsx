import { Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';

type Fields = Record<string, unknown>;

const asFields = (value: unknown): Fields =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Fields)
    : value == null
      ? {}
      : { value };

const show = (value: unknown) =>
  value === undefined || value === null || value === ''
    ? undefined
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

export interface ChangedField {
  field: string;
  before: string | undefined;
  after: string | undefined;
}

/**
 * The fields an administration event changed: every field of `before` or `after` (nested
 * objects by their dotted path), those whose value did not change left out when both sides exist.
 */
export function changedFields(before: unknown, after: unknown): ChangedField[] {
  const rows: ChangedField[] = [];
  const walk = (prefix: string, b: Fields, a: Fields, both: boolean) => {
    for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])]) {
      const field = prefix ? `${prefix}.${key}` : key;
      const [x, y] = [b[key], a[key]];
      const nested = (v: unknown) => v && typeof v === 'object' && !Array.isArray(v);
      if ((nested(x) || x == null) && (nested(y) || y == null) && (nested(x) || nested(y))) {
        walk(field, asFields(x), asFields(y), both);
        continue;
      }
      const row = { field, before: show(x), after: show(y) };
      if (both && row.before === row.after) continue;
      rows.push(row);
    }
  };
  walk('', asFields(before), asFields(after), before != null && after != null);
  return rows;
}

/** Before and after of an administration event as a table: removed in red, added in green. */
export function ChangeDiff({ before, after }: { before: unknown; after: unknown }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const rows = changedFields(before, after);
  if (!rows.length) return <Typography.Text type="secondary">{t('log.noChanges')}</Typography.Text>;
  const cell = { padding: '4px 8px', borderBottom: `1px solid ${token.colorSplit}`, verticalAlign: 'top' };
  const value = (text: string | undefined, color: string, background: string) =>
    text === undefined ? (
      <Typography.Text type="secondary">{t('log.empty')}</Typography.Text>
    ) : (
      <span style={{ color, background, padding: '0 4px', borderRadius: 4, wordBreak: 'break-word' }}>
        {text}
      </span>
    );
  return (
    <table
      data-testid="change-diff"
      style={{ borderCollapse: 'collapse', width: '100%', fontSize: token.fontSizeSM }}
    >
      <thead>
        <tr>
          {[t('log.field'), t('log.before'), t('log.after')].map((title) => (
            <th
              key={title}
              scope="col"
              style={{ ...cell, textAlign: 'start', color: token.colorTextSecondary }}
            >
              {title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.field}>
            <td style={{ ...cell, fontFamily: token.fontFamilyCode }}>{row.field}</td>
            <td style={cell}>{value(row.before, token.colorErrorText, token.colorErrorBg)}</td>
            <td style={cell}>{value(row.after, token.colorSuccessText, token.colorSuccessBg)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
