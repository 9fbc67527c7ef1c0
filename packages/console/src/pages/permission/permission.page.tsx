import { Card, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { AuthorizationsTab } from './authorizations.tab.tsx';
import { CheckAccessTab } from './check-access.tab.tsx';
import { ResourcesTab } from './resources.tab.tsx';
import { RolesTab } from './roles.tab.tsx';
import { useAppOptions } from './use-permission-data.ts';

const TABS = ['resources', 'roles', 'authorizations', 'check'] as const;
type Tab = (typeof TABS)[number];

/** /permission/index (full set): resources, roles and authorizations, and "check access". */
export function PermissionPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const apps = useAppOptions();
  const asked = params.get('tab');
  const tab: Tab = TABS.includes(asked as Tab) ? (asked as Tab) : 'resources';
  const content: Record<Tab, () => React.ReactNode> = {
    resources: () => <ResourcesTab apps={apps} />,
    roles: () => <RolesTab />,
    authorizations: () => <AuthorizationsTab apps={apps} />,
    check: () => <CheckAccessTab apps={apps} />,
  };
  return (
    <Card>
      <Tabs
        activeKey={tab}
        onChange={(key) => setParams(key === 'resources' ? {} : { tab: key }, { replace: true })}
        destroyOnHidden
        items={TABS.map((key) => ({
          key,
          label: t(`permission.tabs.${key}`),
          children: content[key](),
        }))}
      />
    </Card>
  );
}
