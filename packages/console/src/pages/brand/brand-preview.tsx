import { Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';

export interface PreviewBrand {
  logo: string | null;
  background: string | null;
  primaryColor: string | null;
  title: string;
  footerText: string | null;
  footerLink: string | null;
}

/** The platform's own primary colour (the portal's --primary). */
const PLATFORM_PRIMARY = '#1677ff';

/**
 * The sign-in page as it will look with the brand being edited: the portal's card, the logo and
 * title in its header, the primary colour on the button and link, the background behind it and
 * the bottom info bar. Drawn from the form's values, before anything is saved.
 */
export function BrandPreview({ brand }: { brand: PreviewBrand }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const primary =
    brand.primaryColor && /^#[0-9a-fA-F]{6}$/.test(brand.primaryColor)
      ? brand.primaryColor
      : PLATFORM_PRIMARY;
  const field = (label: string) => (
    <div style={{ marginBottom: 12, fontSize: 13, color: '#555' }}>
      {label}
      <span
        style={{
          display: 'block',
          height: 32,
          marginTop: 4,
          border: '1px solid #d9d9d9',
          borderRadius: 6,
          background: '#fff',
        }}
      />
    </div>
  );
  return (
    <figure
      data-testid="brand-preview"
      aria-label={t('brand.preview')}
      style={{
        position: 'relative',
        margin: 0,
        minHeight: 420,
        borderRadius: token.borderRadiusLG,
        border: `1px solid ${token.colorBorderSecondary}`,
        overflow: 'hidden',
        background: brand.background
          ? `#f5f5f5 center / cover no-repeat url("${brand.background}")`
          : '#f5f7fa',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        padding: '32px 16px 56px',
      }}
    >
      <div
        style={{
          width: '100%',
          maxWidth: 340,
          background: '#fff',
          borderRadius: 12,
          boxShadow: '0 6px 24px rgba(0, 0, 0, 0.12)',
          padding: 24,
        }}
      >
        <header style={{ display: 'flex', alignItems: 'center', gap: 10, marginBottom: 20 }}>
          {brand.logo ? (
            <img
              src={brand.logo}
              alt=""
              width={36}
              height={36}
              style={{ borderRadius: 8, objectFit: 'contain' }}
            />
          ) : (
            <span style={{ width: 36, height: 36, borderRadius: 8, background: primary }} />
          )}
          <div style={{ minWidth: 0 }}>
            <strong data-testid="brand-preview-title" style={{ display: 'block', color: '#1f1f1f' }}>
              {brand.title}
            </strong>
            <small style={{ color: '#888' }}>Tessera</small>
          </div>
        </header>
        {field(t('brand.previewUsername'))}
        {field(t('brand.previewPassword'))}
        <span
          data-testid="brand-preview-button"
          style={{
            display: 'block',
            textAlign: 'center',
            padding: '6px 0',
            borderRadius: 6,
            color: '#fff',
            background: primary,
          }}
        >
          {t('brand.previewSignIn')}
        </span>
        <span style={{ display: 'block', marginTop: 12, fontSize: 13, color: primary }}>
          {t('brand.previewForgot')}
        </span>
      </div>
      {brand.footerText ? (
        <figcaption
          style={{
            position: 'absolute',
            left: 0,
            right: 0,
            bottom: 0,
            padding: '8px 16px',
            textAlign: 'center',
            fontSize: 12,
            background: 'rgba(255, 255, 255, 0.85)',
          }}
        >
          {brand.footerLink ? (
            <Typography.Link
              href={brand.footerLink}
              target="_blank"
              rel="noopener noreferrer"
              style={{ color: '#888' }}
            >
              {brand.footerText}
            </Typography.Link>
          ) : (
            <span style={{ color: '#888' }}>{brand.footerText}</span>
          )}
        </figcaption>
      ) : null}
    </figure>
  );
}
