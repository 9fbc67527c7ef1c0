import { about } from './about.ts';
import { apps } from './apps.ts';
import { devices } from './devices.ts';
import { license } from './license.ts';
import { org } from './org.ts';
import { safety } from './safety.ts';
import { settings } from './settings.ts';
import { enShell } from './shell.ts';

/**
 * English phrases: the source type that every other language satisfies. The app imports only
 * the type (the shell is in ./shell.ts, the rest is loaded with its screen); tests use the value.
 */
export const en = { ...enShell, about, apps, devices, license, org, safety, settings };
export type Phrases = typeof en;
