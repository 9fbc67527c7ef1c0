import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './server.process.ts';

const run = promisify(execFile);
/** The compiled command, as operators run it (the e2e tests run after `npm run build`). */
const licenseCli = ['--enable-source-maps', 'packages/server/dist/cli/license.js'];

/** The vendor side of licensing, through the vendor's own command (npm run license). */
export function licenseVendor(dir: string) {
  return {
    /** Makes the vendor key pair; returns the public key the server must trust. */
    async keygen(): Promise<string> {
      await run(process.execPath, [...licenseCli, 'keygen', '--out', dir], { cwd: repoRoot });
      return readFile(join(dir, 'vendor-public.pem'), 'utf8');
    },
    /** Issues a licence file for an application code; returns its path. */
    async issue(code: string, name: string): Promise<string> {
      const out = join(dir, name);
      await run(
        process.execPath,
        [
          ...licenseCli,
          'issue',
          '--key',
          join(dir, 'vendor-private.pem'),
          '--code',
          code,
          '--customer',
          'E2E Co',
          '--expires',
          '2099-12-31',
          '--users',
          '500',
          // Every area's flows add their applications to the suite's first company.
          '--apps',
          '100',
          '--out',
          out,
        ],
        { cwd: repoRoot },
      );
      return out;
    },
    /** A copy of a licence file with one character of its signed body changed. */
    async tamper(file: string, name: string): Promise<string> {
      const lines = (await readFile(file, 'utf8')).split('\n');
      const body = lines[1] ?? '';
      const at = 10;
      const swapped = body[at] === 'A' ? 'B' : 'A';
      lines[1] = `${body.slice(0, at)}${swapped}${body.slice(at + 1)}`;
      const out = join(dir, name);
      await writeFile(out, lines.join('\n'));
      return out;
    },
  };
}
