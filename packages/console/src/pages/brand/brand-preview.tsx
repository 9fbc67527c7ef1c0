import { Alert, Skeleton, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';

export interface PreviewValues {
  primaryColor: string | null;
  title: string | null;
  footerText: string | null;
  footerLink: string | null;
}

/**
 * The page without its script and autofocus: the sandboxed frame would refuse both, and say so
 * on the console at every redraw (the page works without them, as on a browser without scripts).
 */
const inert = (html: string) =>
  html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '').replace(/\sautofocus\b/gi, '');

/** Waits for typing to pause before asking the server to draw the page again. */
const PREVIEW_DELAY_MS = 300;

/**
 * The sign-in page of the company's user centre address with the values being edited, drawn by
 * the server with the page's own code (brand/preview): exactly what people will see, nothing
 * the page lacks. Shown in a sandboxed frame: no script runs and no form is sent.
 */
export function BrandPreview({ values }: { values: PreviewValues }) {
  const { t, i18n } = useTranslation();
  const { callApi } = useConsole();
  const { token } = theme.useToken();
  const [page, setPage] = useState<{ html: string } | { failed: true } | null>(null);
  const lang = i18n.language === 'zh' ? 'zh' : 'en';
  const { primaryColor, title, footerText, footerLink } = values;

  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      callApi('/api/v1/manage/brand/preview', { primaryColor, title, footerText, footerLink, lang }).then(
        (answer) => current && setPage(answer),
        () => current && setPage({ failed: true }),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [callApi, primaryColor, title, footerText, footerLink, lang]);

  if (!page) return <Skeleton active paragraph={{ rows: 8 }} />;
  if ('failed' in page) return <Alert type="warning" showIcon message={t('brand.previewFailed')} />;
  return (
    <iframe
      data-testid="brand-preview"
      title={t('brand.preview')}
      srcDoc={inert(page.html)}
      sandbox="allow-same-origin"
      style={{
        display: 'block',
        width: '100%',
        height: 560,
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
        background: '#f5f7fa',
      }}
    />
  );
}
