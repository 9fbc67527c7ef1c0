import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Whether the openssl command is on this machine (Debian's openssl package; tests skip without it). */
export const hasOpenssl = await run('openssl', ['version']).then(
  () => true,
  () => false,
);

/**
 * A scratch folder for openssl runs: `file` writes one, `openssl` runs the command there and
 * answers its exit status and output (stdout and stderr together).
 */
export async function opensslWorkspace() {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-openssl-'));
  return {
    dir,
    path: (name: string) => join(dir, name),
    async file(name: string, content: string | Uint8Array) {
      await writeFile(join(dir, name), content);
      return join(dir, name);
    },
    async openssl(...args: string[]) {
      try {
        const { stdout, stderr } = await run('openssl', args, { cwd: dir, encoding: 'buffer' });
        return { ok: true, output: `${stdout.toString('latin1')}${stderr.toString('latin1')}`, stdout };
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
        return {
          ok: false,
          output: `${stdout?.toString('latin1') ?? ''}${stderr?.toString('latin1') ?? ''}`,
          stdout: stdout ?? Buffer.alloc(0),
        };
      }
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
