import BankOutlined from '@ant-design/icons/BankOutlined';
import CheckOutlined from '@ant-design/icons/CheckOutlined';
import CopyOutlined from '@ant-design/icons/CopyOutlined';
import { theme } from 'antd';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole, useSession } from '../../app/console-context.ts';
import { breakpoints, useMinWidth } from '../../lib/use-min-width.ts';

type CompanyDetail = ApiResponse<'/api/v1/manage/company/detail'>;

interface Item {
  key: string;
  label: string;
  children: ReactNode;
}

/**
 * A plain landing page until the dashboard statistics exist: who you are and which company.
 * It is the first screen, so it is drawn with plain elements in antd's Card and bordered
 * Descriptions look rather than loading those modules (and Typography's editor) first.
 */
export function DashboardPage() {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const { callApi } = useConsole();
  const { company, username } = useSession();
  const narrow = !useMinWidth(breakpoints.sm);
  const twoColumns = useMinWidth(breakpoints.lg);
  const companyId = company?.companyId;
  const [detail, setDetail] = useState<CompanyDetail | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    if (!companyId) return;
    let current = true;
    setDetail(null);
    setLoading(true);
    callApi('/api/v1/manage/company/detail')
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
  const items: Item[] = [
    { key: 'name', label: t('dashboard.companyName'), children: company.name },
    {
      key: 'id',
      label: t('dashboard.companyId'),
      children: <CopyableCode text={company.companyId} testId="company-id" />,
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

  const columns = twoColumns ? 2 : 1;
  const rows: Item[][] = [];
  for (let i = 0; i < items.length; i += columns) rows.push(items.slice(i, i + columns));
  const cell = narrow ? '8px 16px' : '16px 24px';
  const border = `1px solid ${token.colorSplit}`;

  return (
    <section
      style={{
        maxWidth: 960,
        margin: '0 auto',
        padding: token.paddingLG,
        background: token.colorBgContainer,
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
      }}
    >
      <div style={{ display: 'flex', alignItems: 'center', gap: 16, marginBottom: 24 }}>
        <span
          style={{
            display: 'inline-flex',
            alignItems: 'center',
            justifyContent: 'center',
            flex: 'none',
            width: 56,
            height: 56,
            overflow: 'hidden',
            borderRadius: token.borderRadiusLG,
            background: company.icon ? undefined : 'rgba(0, 0, 0, 0.25)',
            color: '#fff',
            fontSize: 28,
          }}
        >
          {company.icon ? (
            <img src={company.icon} alt="" width={56} height={56} style={{ objectFit: 'cover' }} />
          ) : (
            <BankOutlined />
          )}
        </span>
        <div style={{ minWidth: 0 }}>
          <h3
            style={{
              margin: 0,
              color: token.colorTextHeading,
              fontSize: token.fontSizeHeading3,
              lineHeight: token.lineHeightHeading3,
              fontWeight: token.fontWeightStrong,
            }}
          >
            {t('dashboard.welcome', { name: username })}
          </h3>
          <span style={{ color: token.colorTextSecondary }}>{t('dashboard.intro')}</span>
        </div>
      </div>
      <table
        style={{
          width: '100%',
          tableLayout: 'auto',
          borderCollapse: 'separate',
          borderSpacing: 0,
          border,
          borderRadius: token.borderRadiusLG,
          overflow: 'hidden',
        }}
      >
        <tbody>
          {rows.map((row, rowIndex) => (
            <tr key={row[0]?.key}>
              {row.map((item, index) => {
                const top = rowIndex > 0 ? border : undefined;
                const last = index === row.length - 1;
                return [
                  <th
                    key={`${item.key}-label`}
                    scope="row"
                    style={{
                      padding: cell,
                      borderTop: top,
                      borderInlineStart: index > 0 ? border : undefined,
                      borderInlineEnd: border,
                      background: token.colorFillAlter,
                      color: token.colorTextTertiary,
                      fontWeight: 'normal',
                      textAlign: 'start',
                      whiteSpace: 'nowrap',
                    }}
                  >
                    {item.label}
                  </th>,
                  <td
                    key={item.key}
                    // The last item of a short last row fills the row, as antd's Descriptions does.
                    colSpan={last ? (columns - row.length) * 2 + 1 : 1}
                    style={{ padding: cell, borderTop: top, color: token.colorText, wordBreak: 'break-word' }}
                  >
                    {item.children}
                  </td>,
                ];
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {loading ? (
        <div
          data-testid="dashboard-loading"
          role="progressbar"
          aria-busy="true"
          aria-label={t('common.loading')}
          style={{
            height: 16,
            marginTop: 16,
            borderRadius: token.borderRadiusSM,
            background: token.colorFillContent,
          }}
        />
      ) : null}
    </section>
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
          margin: '0 0.2em',
          padding: '0.2em 0.4em 0.1em',
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
