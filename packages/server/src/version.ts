import { readFileSync } from 'node:fs';

const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export const version: string = root.version;
