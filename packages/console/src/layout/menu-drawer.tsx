import { Drawer } from 'antd';
import { useTranslation } from 'react-i18next';
import type { RouteSet } from '../app/route-table.ts';
import { SideMenu } from './side-menu.tsx';

/** The menu in the narrow device mode: a drawer behind the hamburger (its own chunk). */
export function MenuDrawer({
  set,
  open,
  width,
  onClose,
}: {
  set: RouteSet;
  open: boolean;
  width: number;
  onClose(): void;
}) {
  const { t } = useTranslation();
  return (
    <Drawer
      placement="left"
      open={open}
      onClose={onClose}
      title={t('layout.menu')}
      size={width}
      styles={{ body: { padding: 0 } }}
    >
      <nav aria-label={t('layout.menu')}>
        <SideMenu set={set} collapsed={false} onNavigate={onClose} />
      </nav>
    </Drawer>
  );
}
