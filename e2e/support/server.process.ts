import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { appendFileSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface RunningServer {
  baseUrl: string;
  /** The UDP port of its RADIUS server on 127.0.0.1. */
  radiusPort: number;
  /** The TCP port of its LDAP server on 127.0.0.1 (when started with TESSERA_LDAP_PORT). */
  ldapPort?: number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the port is released before the server takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** A free UDP port on 127.0.0.1 (released before the server takes it). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createSocket('udp4');
    probe.on('error', reject);
    probe.bind(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts the Tessera server on a fresh embedded database (or on `options.dataDir`, which the
 * caller then owns and removes) and waits until it answers. It runs the compiled server, as
 * `npm start` does: the server and the console must have been built (`npm run build`) beforehand. The server logs every request (level info); with
 * `options.logFile` its whole output is appended to that file (e2e/flows/log-secrets.e2e.ts
 * reads it). Its RADIUS server listens on a free UDP port of its own, so that servers started
 * side by side do not compete for 1812.
 */
export async function startServer(
  adminPassword: string,
  extraEnv: Record<string, string> = {},
  options: { dataDir?: string; logFile?: string } = {},
): Promise<RunningServer> {
  if (!existsSync(join(repoRoot, 'packages/console/dist/index.html'))) {
    throw new Error('packages/console/dist is missing: run "npm run build" before the e2e tests');
  }
  if (!existsSync(join(repoRoot, 'packages/server/dist/main.js'))) {
    throw new Error('packages/server/dist is missing: run "npm run build" before the e2e tests');
  }
  const port = await freePort();
  const radiusPort = Number(extraEnv.TESSERA_RADIUS_PORT ?? (await freeUdpPort()));
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'tessera-e2e-')));
  const baseUrl = `http://localhost:${port}`;
  const child = spawn(process.execPath, ['--enable-source-maps', 'packages/server/dist/main.js'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TESSERA_PUBLIC_URL: baseUrl,
      TESSERA_DATA_DIR: dataDir,
      TESSERA_BOOTSTRAP_ADMIN_USERNAME: 'admin',
      TESSERA_BOOTSTRAP_ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: 'info',
      TESSERA_RADIUS_PORT: String(radiusPort),
      TESSERA_RADIUS_HOST: '127.0.0.1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    // Written at once, so the file is complete whenever a test reads it.
    if (options.logFile) appendFileSync(options.logFile, chunk);
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // Never leave the server behind, whatever happens to this process.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 5_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    }
    if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the server exited with code ${child.exitCode}:\n${output}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/sso/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (response.ok) {
        const ldapPort = extraEnv.TESSERA_LDAP_PORT ? Number(extraEnv.TESSERA_LDAP_PORT) : undefined;
        return { baseUrl, radiusPort, ...(ldapPort ? { ldapPort } : {}), stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`the server did not answer within 120 s:\n${output}`);
}
