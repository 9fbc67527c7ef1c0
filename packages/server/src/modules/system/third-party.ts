import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../../../../', import.meta.url));

/** The workspaces whose runtime dependencies ship with the platform. */
const shippedWorkspaces = ['packages/contract', 'packages/portal', 'packages/server', 'packages/console'];

interface Manifest {
  name?: string;
  version?: string;
  license?: string | { type?: string };
  licenses?: { type?: string }[];
  dependencies?: Record<string, string>;
}

const readManifest = async (file: string): Promise<Manifest | undefined> => {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
};

/** Finds a dependency the way Node does: in node_modules of the requiring folder, then upwards. */
async function locate(name: string, from: string): Promise<{ dir: string; manifest: Manifest } | undefined> {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    const manifest = await readManifest(join(candidate, 'package.json'));
    if (manifest) return { dir: candidate, manifest };
    if (dir === repositoryRoot || dirname(dir) === dir) return undefined;
    dir = dirname(dir);
  }
}

const licenseOf = (manifest: Manifest) =>
  typeof manifest.license === 'string'
    ? manifest.license
    : (manifest.license?.type ?? manifest.licenses?.map((l) => l.type).join(' OR ') ?? 'UNKNOWN');

/**
 * Third-party data copied into the source tree rather than installed (each file keeps its
 * licence notice): the common-password list of modules/account/common-passwords.txt.
 */
const bundledData = [{ name: '@zxcvbn-ts/language-common', version: '4.1.3', license: 'MIT' }];

/** Every package reachable through runtime dependencies of the shipped workspaces, once each. */
export async function listThirdPartyPackages() {
  const found = new Map<string, { name: string; version: string; license: string }>();
  for (const data of bundledData) found.set(`${data.name}@${data.version}`, data);
  const queue: { name: string; from: string }[] = [];
  for (const workspace of shippedWorkspaces) {
    const manifest = await readManifest(join(repositoryRoot, workspace, 'package.json'));
    for (const name of Object.keys(manifest?.dependencies ?? {})) {
      if (!name.startsWith('@tessera/')) queue.push({ name, from: join(repositoryRoot, workspace) });
    }
  }
  const visited = new Set<string>();
  while (queue.length) {
    const next = queue.shift() as { name: string; from: string };
    const located = await locate(next.name, next.from);
    if (!located || visited.has(located.dir)) continue;
    visited.add(located.dir);
    const { manifest } = located;
    const version = manifest.version ?? '0.0.0';
    found.set(`${next.name}@${version}`, { name: next.name, version, license: licenseOf(manifest) });
    for (const name of Object.keys(manifest.dependencies ?? {})) queue.push({ name, from: located.dir });
  }
  return [...found.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version),
  );
}
