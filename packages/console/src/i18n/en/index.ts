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
import { enShell } from './shell.ts';
import { sources } from './sources.ts';

/**
 * English phrases: the source type that every other language satisfies. The app imports only
 * the type (the shell is in ./shell.ts, the rest is loaded with its screen); tests use the value.
 */
export const en = {
  ...enShell,
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
};
export type Phrases = typeof en;
