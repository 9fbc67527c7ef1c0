import { readFileSync } from 'node:fs';

const read = (relative: string): string | undefined => {
  try {
    return readFileSync(new URL(relative, import.meta.url), 'utf8').trim();
  } catch {
    return undefined;
  }
};

const root = JSON.parse(read('../../../package.json') ?? '{}') as { version?: string };

export const version: string = root.version ?? '0.0.0';

/** The commit this build comes from: TESSERA_BUILD, else the checkout's HEAD, else "unknown". */
function buildOf(): string {
  if (process.env.TESSERA_BUILD) return process.env.TESSERA_BUILD;
  const head = read('../../../.git/HEAD');
  const ref = head?.startsWith('ref: ') ? read(`../../../.git/${head.slice(5)}`) : head;
  return ref && /^[0-9a-f]{40}$/.test(ref) ? ref.slice(0, 12) : 'unknown';
}

export const build: string = buildOf();
