import {
  ApartmentOutlined,
  AppstoreOutlined,
  FileTextOutlined,
  HomeOutlined,
  IdcardOutlined,
  KeyOutlined,
  SafetyCertificateOutlined,
  SettingOutlined,
  SkinOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';
import type { MenuIcon } from '../app/route-table.ts';

/** Spec §2 menu icons: home, app, identity-source, org, permission, safety, log, brand, setting. */
export const menuIcons: Record<MenuIcon, ReactNode> = {
  home: <HomeOutlined />,
  app: <AppstoreOutlined />,
  identitySource: <IdcardOutlined />,
  org: <ApartmentOutlined />,
  permission: <KeyOutlined />,
  safety: <SafetyCertificateOutlined />,
  log: <FileTextOutlined />,
  brand: <SkinOutlined />,
  setting: <SettingOutlined />,
};
