import {
  BankOutlined,
  DownOutlined,
  LogoutOutlined,
  PlusOutlined,
  TranslationOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { COMPANY_NAME_DISPLAY_LENGTH, type Language, languages } from '@tessera/contract/constants';
import { Avatar, Button, Dropdown, Flex, Grid, Layout, Tag, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useConsole, useSession } from '../app/console-context.ts';
import { currentLanguage, switchLanguage } from '../i18n/i18n.ts';
import { truncateName } from '../lib/truncate.ts';
import { CREATE_COMPANY_PATH } from '../session/navigation.guard.ts';
import { TesseraLogo } from './tessera-logo.tsx';

/** Spec §2 top bar: product title, company switcher, language switch and user menu. */
export function TopBar() {
  const { t } = useTranslation();
  const { variant } = useConsole();
  const { token } = theme.useToken();
  const screens = Grid.useBreakpoint();
  const wide = screens.md ?? true;
  return (
    <Layout.Header
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: 8,
        height: 56,
        paddingInline: wide ? 24 : 12,
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
        lineHeight: 'normal',
      }}
    >
      <Flex align="center" gap={10} style={{ minWidth: 0, flex: 1 }}>
        <TesseraLogo />
        <span style={{ fontSize: 18, fontWeight: 600, whiteSpace: 'nowrap', color: token.colorText }}>
          {t('common.productName')}
        </span>
        {wide ? (
          <Tag color={variant === 'admin' ? 'purple' : 'blue'} bordered={false}>
            {t(`common.variantName.${variant}`)}
          </Tag>
        ) : null}
      </Flex>
      <CompanySwitcher compact={!wide} />
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
          const next = companies.find((item) => item.companyId === key);
          if (next) store.selectCompany(next);
        },
      }}
    >
      <Button type="text" aria-label={t('company.switcherLabel')} title={company.name}>
        <BankOutlined />
        {compact ? null : (
          <span data-testid="current-company">{truncateName(company.name, COMPANY_NAME_DISPLAY_LENGTH)}</span>
        )}
        <DownOutlined style={{ fontSize: 10 }} />
      </Button>
    </Dropdown>
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

function UserMenu({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const { session } = useConsole();
  const { username } = useSession();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [{ key: 'logout', icon: <LogoutOutlined />, label: t('common.logOut') }],
        onClick: ({ key }) => {
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
