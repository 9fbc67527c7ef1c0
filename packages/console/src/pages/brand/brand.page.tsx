import { brandImageTypes, brandLimits, type Language, languages } from '@tessera/contract/constants';
import { Button, Card, Col, Flex, Form, Grid, Input, Radio, Row, Skeleton, Typography } from 'antd';
import type { ParseKeys } from 'i18next';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { ImageUpload } from '../../components/image-upload.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { BrandPreview } from './brand-preview.tsx';
import { PortalAddress } from './portal-address.tsx';

type Brand = ApiResponse<'/api/v1/manage/brand/detail'>;

interface Values {
  primaryColor: string;
  title: string;
  footerText: string;
  footerLink: string;
  defaultLanguage: Language;
}

const valuesOf = (brand: Brand): Values => ({
  primaryColor: brand.primaryColor ?? '',
  title: brand.title ?? '',
  footerText: brand.footerText ?? '',
  footerLink: brand.footerLink ?? '',
  defaultLanguage: brand.defaultLanguage,
});

const imageTypes: readonly string[] = brandImageTypes;
const accept = ['.png', '.jpg', '.jpeg', '.svg', '.webp', ...imageTypes].join(',');
const problemOf =
  (maxBytes: number, tooLarge: ParseKeys) =>
  (file: { type: string; size: number }): ParseKeys | undefined =>
    !imageTypes.includes(file.type) ? 'brand.wrongType' : file.size > maxBytes ? tooLarge : undefined;

/** /brand/index: the company's sign-in page brand, with a live preview before saving. */
export function BrandPage() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { data, setData, loading } = useLoad(
    useCallback(() => callApi('/api/v1/manage/brand/detail'), [callApi]),
  );
  return (
    <Card title={t('brand.title')}>
      <Typography.Paragraph type="secondary">{t('brand.intro')}</Typography.Paragraph>
      {data ? (
        <Typography.Paragraph>
          <Typography.Text strong>{t('brand.portalAddress')}</Typography.Text>{' '}
          <PortalAddress code={data.companyCode} />
          <br />
          <Typography.Text type="secondary">{t('brand.portalAddressHint')}</Typography.Text>
        </Typography.Paragraph>
      ) : null}
      {data ? (
        <BrandForm brand={data} onChange={setData} />
      ) : (
        <Skeleton active loading={loading} paragraph={{ rows: 8 }} />
      )}
    </Card>
  );
}

function BrandForm({ brand, onChange }: { brand: Brand; onChange(brand: Brand): void }) {
  const { t } = useTranslation();
  const { callApi, uploadFile } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  const wide = Grid.useBreakpoint().xl ?? true;
  const watched = Form.useWatch([], form) as Partial<Values> | undefined;
  const shown = { ...valuesOf(brand), ...watched };

  useEffect(() => form.setFieldsValue(valuesOf(brand)), [form, brand]);

  const save = async (values: Values) => {
    setSaving(true);
    try {
      onChange(await callApi('/api/v1/manage/brand/update', values));
      void message.success(t('brand.saved'));
    } catch {
      // Shown by the HTTP client; the form keeps what was typed.
    } finally {
      setSaving(false);
    }
  };
  const remove = async (which: 'removeLogo' | 'removeBackground') => {
    try {
      onChange(await callApi('/api/v1/manage/brand/update', { [which]: true }));
    } catch {
      // Shown by the HTTP client.
    }
  };
  const image = (kind: 'logo' | 'background') => {
    const url = brand[kind];
    const upload = kind === 'logo' ? '/api/v1/manage/brand/logo' : '/api/v1/manage/brand/background';
    return (
      <Flex align="center" gap={12} wrap>
        {url ? (
          <img
            src={url}
            alt=""
            style={{ width: kind === 'logo' ? 48 : 96, height: 48, objectFit: 'cover', borderRadius: 6 }}
          />
        ) : null}
        <ImageUpload
          accept={accept}
          problemOf={
            kind === 'logo'
              ? problemOf(brandLimits.logoBytes, 'brand.logoTooLarge')
              : problemOf(brandLimits.backgroundBytes, 'brand.backgroundTooLarge')
          }
          send={async (file) => onChange(await uploadFile(upload, file))}
          uploaded={kind === 'logo' ? 'brand.logoUpdated' : 'brand.backgroundUpdated'}
        >
          {kind === 'logo' ? t('brand.uploadLogo') : t('brand.uploadBackground')}
        </ImageUpload>
        {url ? (
          <Button
            type="link"
            danger
            onClick={() => void remove(kind === 'logo' ? 'removeLogo' : 'removeBackground')}
          >
            {t('brand.remove')}
          </Button>
        ) : null}
      </Flex>
    );
  };

  return (
    <Row gutter={[32, 24]}>
      <Col span={wide ? 13 : 24}>
        <Form<Values>
          form={form}
          layout="vertical"
          initialValues={valuesOf(brand)}
          onFinish={save}
          disabled={saving}
          data-testid="brand-form"
        >
          <Form.Item label={t('brand.logo')} extra={t('brand.logoHint')}>
            {image('logo')}
          </Form.Item>
          <Form.Item label={t('brand.background')} extra={t('brand.backgroundHint')}>
            {image('background')}
          </Form.Item>
          <Form.Item
            name="primaryColor"
            label={t('brand.primaryColor')}
            extra={t('brand.primaryColorHint')}
            rules={[{ pattern: brandLimits.colorPattern, message: t('brand.colorInvalid') }]}
          >
            <Input
              placeholder="#1677ff"
              maxLength={7}
              style={{ maxWidth: 240 }}
              addonBefore={
                <input
                  type="color"
                  aria-label={t('brand.primaryColor')}
                  value={
                    brandLimits.colorPattern.test(shown.primaryColor ?? '') ? shown.primaryColor : '#1677ff'
                  }
                  onChange={(event) => form.setFieldValue('primaryColor', event.target.value)}
                  style={{ width: 24, height: 22, padding: 0, border: 'none', background: 'none' }}
                />
              }
            />
          </Form.Item>
          <Form.Item name="title" label={t('brand.pageTitle')} extra={t('brand.pageTitleHint')}>
            <Input maxLength={brandLimits.titleMax} showCount placeholder={brand.companyName} />
          </Form.Item>
          <Form.Item name="footerText" label={t('brand.footerText')} extra={t('brand.footerTextHint')}>
            <Input maxLength={brandLimits.footerTextMax} showCount />
          </Form.Item>
          <Form.Item
            name="footerLink"
            label={t('brand.footerLink')}
            extra={t('brand.footerLinkHint')}
            rules={[
              { type: 'url', message: t('brand.linkInvalid') },
              { pattern: /^https?:\/\//i, message: t('brand.linkInvalid') },
            ]}
          >
            <Input maxLength={brandLimits.footerLinkMax} placeholder="https://" />
          </Form.Item>
          <Form.Item
            name="defaultLanguage"
            label={t('brand.defaultLanguage')}
            extra={t('brand.defaultLanguageHint')}
          >
            <Radio.Group
              optionType="button"
              options={languages.map((lang) => ({ value: lang, label: t(`common.languageName.${lang}`) }))}
            />
          </Form.Item>
          <Flex gap={8}>
            <Button type="primary" htmlType="submit" loading={saving}>
              {t('brand.save')}
            </Button>
            <Button onClick={() => form.setFieldsValue(valuesOf(brand))}>{t('brand.undo')}</Button>
          </Flex>
        </Form>
      </Col>
      <Col span={wide ? 11 : 24}>
        <Typography.Title level={5} style={{ marginTop: 0 }}>
          {t('brand.preview')}
        </Typography.Title>
        <Typography.Paragraph type="secondary">{t('brand.previewHint')}</Typography.Paragraph>
        {/* Keyed by the stored images: a new upload draws the page again. */}
        <BrandPreview
          key={`${brand.logo ?? brand.companyIcon} ${brand.background}`}
          values={{
            primaryColor: shown.primaryColor?.trim() || null,
            title: shown.title?.trim() || null,
            footerText: shown.footerText?.trim() || null,
            footerLink: shown.footerLink?.trim() || null,
          }}
        />
      </Col>
    </Row>
  );
}
