import type { Phrases } from '../en/index.ts';
import { about } from './about.ts';
import { apps } from './apps.ts';
import { brand } from './brand.ts';
import { ca } from './ca.ts';
import { dashboardPanels } from './dashboard-panels.ts';
import { devices } from './devices.ts';
import { license } from './license.ts';
import { log } from './log.ts';
import { org } from './org.ts';
import { permission } from './permission.ts';
import { radius } from './radius.ts';
import { safety } from './safety.ts';
import { settings } from './settings.ts';
import { setup } from './setup.ts';
import { zhShell } from './shell.ts';
import { sources } from './sources.ts';

/** Every Chinese phrase (tests use it; the app loads the shell and each screen's namespace). */
export const zh = {
  ...zhShell,
  about,
  apps,
  brand,
  ca,
  dashboardPanels,
  devices,
  license,
  log,
  org,
  permission,
  radius,
  safety,
  settings,
  setup,
  sources,
} satisfies Phrases;
