import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Debian's radclient (freeradius-utils), as scripts/with-radclient.sh provides it in
 * TESSERA_TEST_RADCLIENT. Tests that need it skip without it, except under CI=true.
 */
export const radclientPath = process.env.TESSERA_TEST_RADCLIENT;
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (!radclientPath && ci)
  throw new Error('TESSERA_TEST_RADCLIENT is not set (run through scripts/with-radclient.sh)');
export const skipWithoutRadclient = !radclientPath;

export interface RadiusReply {
  code: 'Access-Accept' | 'Access-Reject' | 'Access-Challenge' | 'none';
  /** Reply attributes as radclient prints them (`State` → `0x…`, strings unquoted). */
  attributes: Record<string, string>;
  output: string;
}

/**
 * Sends one request with radclient to 127.0.0.1:port and reads its answer. `attributes` are
 * written as radclient's input (strings quoted, `0x…` values as they are); the shared secret is
 * given in a file, as radclient -S reads it. `timeoutSeconds` bounds the wait for a dropped request.
 */
export async function radclient(
  port: number,
  secret: string,
  attributes: Record<string, string>,
  options: { command?: 'auth' | 'status'; timeoutSeconds?: number } = {},
): Promise<RadiusReply> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-radclient-'));
  try {
    const secretFile = join(dir, 'secret');
    await writeFile(secretFile, secret, { mode: 0o600 });
    const input = Object.entries(attributes)
      .map(
        ([name, value]) =>
          `${name} = ${/^0x[0-9a-f]*$/i.test(value) || /^\d+(\.\d+){3}$/.test(value) ? value : JSON.stringify(value)}`,
      )
      .join(', ');
    const output = await new Promise<string>((resolve) => {
      const child = execFile(
        radclientPath ?? 'radclient',
        [
          '-x',
          '-r',
          '1',
          '-t',
          String(options.timeoutSeconds ?? 3),
          '-S',
          secretFile,
          `127.0.0.1:${port}`,
          options.command ?? 'auth',
        ],
        { encoding: 'utf8' },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
      child.stdin?.end(`${input}\n`);
    });
    const received = /Received (Access-Accept|Access-Reject|Access-Challenge)/.exec(output);
    const replyPart = received ? output.slice(received.index) : '';
    const replyAttributes: Record<string, string> = {};
    for (const match of replyPart.matchAll(/^\s+([\w-]+) = (.*)$/gm)) {
      const [, name = '', value = ''] = match;
      replyAttributes[name] = value.replace(/^"(.*)"$/, '$1');
    }
    return {
      code: (received?.[1] as RadiusReply['code'] | undefined) ?? 'none',
      attributes: replyAttributes,
      output,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** radtest, radclient's wrapper for one PAP request (it adds a Message-Authenticator): answers its output. */
export function radtest(port: number, secret: string, username: string, password: string): Promise<string> {
  const radtestPath = (radclientPath ?? '/usr/bin/radclient').replace(/radclient$/, 'radtest');
  return new Promise((resolve) => {
    execFile(
      radtestPath,
      [username, password, `127.0.0.1:${port}`, '0', secret],
      { encoding: 'utf8' },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
}
