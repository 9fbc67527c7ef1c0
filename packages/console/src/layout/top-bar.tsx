import BankOutlined from '@ant-design/icons/BankOutlined';
import DownOutlined from '@ant-design/icons/DownOutlined';
import FullscreenExitOutlined from '@ant-design/icons/FullscreenExitOutlined';
import FullscreenOutlined from '@ant-design/icons/FullscreenOutlined';
import InfoCircleOutlined from '@ant-design/icons/InfoCircleOutlined';
import LogoutOutlined from '@ant-design/icons/LogoutOutlined';
import MenuFoldOutlined from '@ant-design/icons/MenuFoldOutlined';
import MenuUnfoldOutlined from '@ant-design/icons/MenuUnfoldOutlined';
import PlusOutlined from '@ant-design/icons/PlusOutlined';
import TranslationOutlined from '@ant-design/icons/TranslationOutlined';
import UserOutlined from '@ant-design/icons/UserOutlined';
import { COMPANY_NAME_DISPLAY_LENGTH, type Language, languages } from '@tessera/contract/shell-constants';
import { theme } from 'antd';
import { type CSSProperties, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConsole, useSession, useSystemInfo } from '../app/console-context.ts';
import { useFeedback } from '../app/feedback.ts';
import { currentLanguage, switchLanguage } from '../i18n/i18n.ts';
import { truncateName } from '../lib/truncate.ts';
import { breakpoints, useMinWidth } from '../lib/use-min-width.ts';
import { CREATE_COMPANY_PATH } from '../session/navigation.guard.ts';
import { BarButton } from './bar-button.tsx';
import { TesseraLogo } from './tessera-logo.tsx';
import type { LicenceSummary } from './top-bar-popups.tsx';
import { usePopup, usePreloadPopups } from './use-top-bar-popups.ts';

/** antd's small default Avatar (a grey circle with a white icon), without the Avatar module. */
const avatarStyle: CSSProperties = {
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: 24,
  height: 24,
  borderRadius: '50%',
  background: 'rgba(0, 0, 0, 0.25)',
  color: '#fff',
  fontSize: 14,
  flex: 'none',
};

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
  usePreloadPopups();
  const { t } = useTranslation();
  const { variant } = useConsole();
  const { token } = theme.useToken();
  const wide = useMinWidth(breakpoints.md);
  const small = useMinWidth(breakpoints.sm);
  return (
    <header
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
        <BarButton
          aria-label={menu.opened ? t('layout.collapseMenu') : t('layout.expandMenu')}
          aria-expanded={menu.opened}
          data-testid="hamburger"
          icon={menu.opened ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
          onClick={menu.onToggle}
        />
      ) : null}
      <div
        style={{
          display: 'flex',
          alignItems: 'center',
          gap: 10,
          minWidth: 0,
          flex: 1,
          paddingInlineStart: menu ? 4 : 0,
        }}
      >
        <TesseraLogo />
        {!small ? null : (
          <span style={{ fontSize: 18, fontWeight: 600, whiteSpace: 'nowrap', color: token.colorText }}>
            {t('common.productName')}
          </span>
        )}
        {wide ? (
          // antd's borderless preset-colour Tag.
          <span
            style={{
              paddingInline: 7,
              borderRadius: token.borderRadiusSM,
              background: variant === 'admin' ? token.purple1 : token.blue1,
              color: variant === 'admin' ? token.purple7 : token.blue7,
              fontSize: token.fontSizeSM,
              lineHeight: '20px',
              whiteSpace: 'nowrap',
            }}
          >
            {t(`common.variantName.${variant}`)}
          </span>
        ) : null}
      </div>
      <CompanySwitcher compact={!wide} />
      <FullscreenToggle />
      <VersionPopover compact={!wide} />
      <LanguageSwitch compact={!wide} />
      <UserMenu compact={!wide} />
    </header>
  );
}

function CompanySwitcher({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { variant, store } = useConsole();
  const { companies, company } = useSession();
  const { popups, open, setOpen, trigger } = usePopup();
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
  const button = (
    <BarButton {...trigger} aria-label={t('company.switcherLabel')} title={company.name}>
      {company.icon ? (
        <img
          src={company.icon}
          alt=""
          width={20}
          height={20}
          style={{ borderRadius: 4, objectFit: 'cover' }}
        />
      ) : (
        <BankOutlined />
      )}
      {compact ? null : (
        <span data-testid="current-company">{truncateName(company.name, COMPANY_NAME_DISPLAY_LENGTH)}</span>
      )}
      <DownOutlined style={{ fontSize: 10 }} />
    </BarButton>
  );
  if (!popups) return button;
  return (
    <popups.Dropdown
      trigger={['click']}
      open={open}
      onOpenChange={setOpen}
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
      {button}
    </popups.Dropdown>
  );
}

function FullscreenToggle() {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const [full, setFull] = useState(() => document.fullscreenElement != null);
  useEffect(() => {
    const onChange = () => setFull(document.fullscreenElement != null);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const unsupported = () => void message.warning(t('layout.fullscreenUnsupported'));
  return (
    <BarButton
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

/** Spec §2: the version and either 'Not Active' or the licence's expiration time. */
function VersionPopover({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const companyId = useSession().company?.companyId;
  const system = useSystemInfo();
  const [licence, setLicence] = useState<LicenceSummary | null>(null);
  const { popups, open, setOpen, trigger } = usePopup();

  useEffect(() => {
    let current = true;
    if (companyId) {
      callApi('/api/v1/manage/license/info', undefined, { silent: true })
        .then(({ Info }) => current && setLicence(Info[0] ?? null))
        .catch(() => current && setLicence(null));
    }
    return () => {
      current = false;
    };
  }, [callApi, companyId]);

  const button = (
    <BarButton {...trigger} aria-label={t('layout.versionInfo')} icon={<InfoCircleOutlined />}>
      {compact || !system ? null : <span data-testid="version">v{system.version}</span>}
    </BarButton>
  );
  if (!popups) return button;
  return (
    <popups.Popover
      trigger="click"
      placement="bottomRight"
      open={open}
      onOpenChange={setOpen}
      title={t('layout.versionInfo')}
      content={<popups.VersionDetails system={system ?? null} licence={licence} />}
    >
      {button}
    </popups.Popover>
  );
}

function LanguageSwitch({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const current = currentLanguage();
  const { popups, open, setOpen, trigger } = usePopup();
  const button = (
    <BarButton {...trigger} aria-label={t('common.language')} icon={<TranslationOutlined />}>
      {compact ? null : t(`common.languageName.${current}`)}
    </BarButton>
  );
  if (!popups) return button;
  return (
    <popups.Dropdown
      trigger={['click']}
      open={open}
      onOpenChange={setOpen}
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
      {button}
    </popups.Dropdown>
  );
}

/** The user centre (built by the portal) for the company selected here. */
export const profileUrl = (companyId: string): string =>
  `/portal/account?company_id=${encodeURIComponent(companyId)}`;

/**
 * Spec §3 Session: the person's nickname and photo (`user/self-details`), once per person signed
 * in (a refreshed token is the same person).
 */
function useSelf(person: string | null) {
  const { callApi } = useConsole();
  const [self, setSelf] = useState<{ nickname: string | null; name: string | null; photo: string | null }>();
  useEffect(() => {
    if (!person) return;
    let current = true;
    callApi('/api/v1/manage/user/self-details', undefined, { silent: true })
      .then((answer) => {
        if (current) setSelf(answer);
      })
      .catch(() => {
        // The user name stays shown.
      });
    return () => {
      current = false;
    };
  }, [callApi, person]);
  return self;
}

function UserMenu({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const { session } = useConsole();
  const { username, company, token } = useSession();
  const self = useSelf(token && username);
  const { popups, open, setOpen, trigger } = usePopup();
  const shownName = self?.nickname || self?.name || username;
  const button = (
    <BarButton {...trigger} aria-label={t('common.userMenu')} style={{ paddingInline: 6 }}>
      {self?.photo ? (
        <img
          src={self.photo}
          alt=""
          data-testid="current-user-photo"
          style={{ ...avatarStyle, objectFit: 'cover' }}
        />
      ) : (
        <span style={avatarStyle}>
          <UserOutlined />
        </span>
      )}
      {compact ? null : <span data-testid="current-user">{shownName}</span>}
    </BarButton>
  );
  if (!popups) return button;
  return (
    <popups.Dropdown
      trigger={['click']}
      open={open}
      onOpenChange={setOpen}
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
      {button}
    </popups.Dropdown>
  );
}
