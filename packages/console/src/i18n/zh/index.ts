import type { Phrases } from '../en/index.ts';
import { about } from './about.ts';
import { apps } from './apps.ts';
import { devices } from './devices.ts';
import { license } from './license.ts';
import { org } from './org.ts';
import { safety } from './safety.ts';
import { settings } from './settings.ts';
import { zhShell } from './shell.ts';

/** Every Chinese phrase (tests use it; the app loads the shell and each screen's namespace). */
export const zh = { ...zhShell, about, apps, devices, license, org, safety, settings } satisfies Phrases;
