import {
  BankOutlined,
  DownOutlined,
  FullscreenExitOutlined,
  FullscreenOutlined,
  InfoCircleOutlined,
  LogoutOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  PlusOutlined,
  TranslationOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { type CallResponse, license as licenseCalls } from '@tessera/contract';
import { COMPANY_NAME_DISPLAY_LENGTH, type Language, languages } from '@tessera/contract/constants';
import { App, Avatar, Button, Descriptions, Dropdown, Flex, Grid, Layout, Popover, Tag, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConsole, useSession } from '../app/console-context.ts';
import { currentLanguage, switchLanguage } from '../i18n/i18n.ts';
import { formatDate } from '../lib/format/date.ts';
import { truncateName } from '../lib/truncate.ts';
import { CREATE_COMPANY_PATH } from '../session/navigation.guard.ts';
import { TesseraLogo } from './tessera-logo.tsx';

export const TOP_BAR_HEIGHT = 56;

export interface TopBarProps {
  /** The hamburger; absent when there is no menu (a person without a company). */
  menu?: { opened: boolean; onToggle(): void };
}

/**
 * Spec §2 top bar: product title, company switcher, full screen, version, language switch and
 * the user menu.
 */
export function TopBar({ menu }: TopBarProps) {
  const { t } = useTranslation();
  const { variant } = useConsole();
  const { token } = theme.useToken();
  const screens = Grid.useBreakpoint();
  const wide = screens.md ?? true;
  return (
    <Layout.Header
      style={{
        position: 'sticky',
        top: 0,
        zIndex: 20,
        display: 'flex',
        alignItems: 'center',
        gap: wide ? 8 : 2,
        height: TOP_BAR_HEIGHT,
        paddingInline: wide ? 16 : 8,
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
        lineHeight: 'normal',
      }}
    >
      {menu ? (
        <Button
          type="text"
          aria-label={menu.opened ? t('layout.collapseMenu') : t('layout.expandMenu')}
          aria-expanded={menu.opened}
          data-testid="hamburger"
          icon={menu.opened ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
          onClick={menu.onToggle}
        />
      ) : null}
      <Flex align="center" gap={10} style={{ minWidth: 0, flex: 1, paddingInlineStart: menu ? 4 : 0 }}>
        <TesseraLogo />
        {screens.sm === false ? null : (
          <span style={{ fontSize: 18, fontWeight: 600, whiteSpace: 'nowrap', color: token.colorText }}>
            {t('common.productName')}
          </span>
        )}
        {wide ? (
          <Tag color={variant === 'admin' ? 'purple' : 'blue'} bordered={false}>
            {t(`common.variantName.${variant}`)}
          </Tag>
        ) : null}
      </Flex>
      <CompanySwitcher compact={!wide} />
      <FullscreenToggle />
      <VersionPopover compact={!wide} />
      <LanguageSwitch compact={!wide} />
      <UserMenu compact={!wide} />
    </Layout.Header>
  );
}

function CompanySwitcher({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { variant, store } = useConsole();
  const { companies, company } = useSession();
  if (!companies || !company) return null;
  const items = [
    ...companies.map((item) => ({
      key: item.companyId,
      icon: <BankOutlined />,
      label: <span title={item.name}>{truncateName(item.name, COMPANY_NAME_DISPLAY_LENGTH)}</span>,
    })),
    ...(variant === 'dev'
      ? [
          { type: 'divider' as const },
          { key: 'create', icon: <PlusOutlined />, label: t('company.createAnother') },
        ]
      : []),
  ];
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items,
        selectable: true,
        selectedKeys: [company.companyId],
        onClick: ({ key }) => {
          if (key === 'create') {
            navigate(CREATE_COMPANY_PATH);
            return;
          }
          // The layout keys the screen by company, so the open screen loads the new company's data.
          const next = companies.find((item) => item.companyId === key);
          if (next && next.companyId !== company.companyId) store.selectCompany(next);
        },
      }}
    >
      <Button type="text" aria-label={t('company.switcherLabel')} title={company.name}>
        {company.icon ? <Avatar size={20} shape="square" src={company.icon} /> : <BankOutlined />}
        {compact ? null : (
          <span data-testid="current-company">{truncateName(company.name, COMPANY_NAME_DISPLAY_LENGTH)}</span>
        )}
        <DownOutlined style={{ fontSize: 10 }} />
      </Button>
    </Dropdown>
  );
}

function FullscreenToggle() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [full, setFull] = useState(() => document.fullscreenElement != null);
  useEffect(() => {
    const onChange = () => setFull(document.fullscreenElement != null);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const unsupported = () => void message.warning(t('layout.fullscreenUnsupported'));
  return (
    <Button
      type="text"
      aria-label={full ? t('layout.exitFullscreen') : t('layout.fullscreen')}
      title={full ? t('layout.exitFullscreen') : t('layout.fullscreen')}
      icon={full ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
      onClick={() => {
        if (!document.fullscreenEnabled) return unsupported();
        const change = document.fullscreenElement
          ? document.exitFullscreen()
          : document.documentElement.requestFullscreen();
        change.catch(unsupported);
      }}
    />
  );
}

type SystemInfo = CallResponse<typeof licenseCalls.systemInfo>;
type LicenceSummary = CallResponse<typeof licenseCalls.licenseInfo>['Info'][number];

/** Spec §2: the version and either 'Not Active' or the licence's expiration time. */
function VersionPopover({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const companyId = useSession().company?.companyId;
  const [system, setSystem] = useState<SystemInfo | null>(null);
  const [licence, setLicence] = useState<LicenceSummary | null>(null);

  useEffect(() => {
    let current = true;
    callApi(licenseCalls.systemInfo, undefined, { silent: true })
      .then((info) => current && setSystem(info))
      .catch(() => current && setSystem(null));
    if (companyId) {
      callApi(licenseCalls.licenseInfo, undefined, { silent: true })
        .then(({ Info }) => current && setLicence(Info[0] ?? null))
        .catch(() => current && setLicence(null));
    }
    return () => {
      current = false;
    };
  }, [callApi, companyId]);

  const licenceText = !licence
    ? t('layout.unknown')
    : licence.status === 'not_active' || !licence.expiresAt
      ? t('layout.notActive')
      : t(licence.status === 'expired' ? 'layout.expiredAt' : 'layout.expiresAt', {
          date: formatDate(licence.expiresAt),
        });
  const content = (
    <Descriptions
      size="small"
      column={1}
      style={{ minWidth: 240 }}
      items={[
        { key: 'version', label: t('layout.version'), children: system?.version ?? t('layout.unknown') },
        { key: 'build', label: t('layout.build'), children: system?.build ?? t('layout.unknown') },
        {
          key: 'licence',
          label: t('layout.licence'),
          children: (
            <span data-testid="licence-summary">
              {licence?.status === 'expired' ? <Tag color="error">{licenceText}</Tag> : licenceText}
              {licence?.status === 'normal' && licence.reduceDay !== null ? (
                <div>{t('layout.daysLeft', { count: licence.reduceDay })}</div>
              ) : null}
            </span>
          ),
        },
      ]}
    />
  );
  return (
    <Popover trigger="click" placement="bottomRight" title={t('layout.versionInfo')} content={content}>
      <Button type="text" aria-label={t('layout.versionInfo')} icon={<InfoCircleOutlined />}>
        {compact || !system ? null : <span data-testid="version">v{system.version}</span>}
      </Button>
    </Popover>
  );
}

function LanguageSwitch({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const current = currentLanguage();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: languages.map((lang) => ({ key: lang, label: t(`common.languageName.${lang}`) })),
        selectable: true,
        selectedKeys: [current],
        onClick: ({ key }) => {
          const lang = languages.find((item): item is Language => item === key);
          if (lang) void switchLanguage(lang);
        },
      }}
    >
      <Button type="text" aria-label={t('common.language')} icon={<TranslationOutlined />}>
        {compact ? null : t(`common.languageName.${current}`)}
      </Button>
    </Dropdown>
  );
}

/** The user centre (built by the portal) for the company selected here. */
export const profileUrl = (companyId: string): string =>
  `/portal/account?company_id=${encodeURIComponent(companyId)}`;

function UserMenu({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const { session } = useConsole();
  const { username, company } = useSession();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          ...(company ? [{ key: 'profile', icon: <UserOutlined />, label: t('layout.profile') }] : []),
          { key: 'logout', icon: <LogoutOutlined />, label: t('common.logOut') },
        ],
        onClick: ({ key }) => {
          if (key === 'profile' && company) window.open(profileUrl(company.companyId), '_blank', 'noopener');
          if (key === 'logout') void session.logout();
        },
      }}
    >
      <Button type="text" aria-label={t('common.userMenu')} style={{ paddingInline: 6 }}>
        <Avatar size="small" icon={<UserOutlined />} />
        {compact ? null : <span data-testid="current-user">{username}</span>}
      </Button>
    </Dropdown>
  );
}
