import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../test/harness.ts';

/**
 * Issue 12: the static folders (the console's build, the portal's assets, Swagger UI) answer
 * "not found" to every path that is not a plain file of theirs, and write nothing but the
 * request lines to the log (before: the build manifest was served at `/console//.vite/…` and
 * traversal attempts answered 500 with a stack trace in the log).
 */

let ctx: TestContext;
let consoleDir: string;
const log: string[] = [];

/** A GET with the path exactly as written (fetch would resolve the dot segments first). */
const get = (path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { port } = new URL(ctx.baseUrl);
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

const MANIFEST = '{"index.html":{"file":"assets/app.js","secret":"build-manifest"}}';

beforeAll(async () => {
  consoleDir = await mkdtemp(join(tmpdir(), 'tessera-console-'));
  await mkdir(join(consoleDir, 'assets'));
  await mkdir(join(consoleDir, '.vite'));
  await writeFile(join(consoleDir, 'index.html'), '<!doctype html><title>Console</title>');
  await writeFile(join(consoleDir, 'assets', 'app.js'), 'console.info("console");');
  await writeFile(join(consoleDir, '.vite', 'manifest.json'), MANIFEST);
  ctx = await startTestApp({ listen: true, consoleDir, log: { write: (line) => log.push(line) } });
});
afterAll(async () => {
  await ctx?.close();
  await rm(consoleDir, { recursive: true, force: true });
});

/** Paths under a static prefix that must not reach a file. */
const probes = [
  '/.vite/manifest.json',
  '//.vite/manifest.json',
  '/./.vite/manifest.json',
  '/assets/../.vite/manifest.json',
  '/%2e%2e/package.json',
  '/%2E%2E/%2E%2E/package.json',
  '/../package.json',
  '/../../package.json',
  '/../../../../../../../../etc/passwd',
  '/..%2fpackage.json',
  '/..%2f..%2f..%2fpackage.json',
  '/%2e%2e%2f%2e%2e%2fpackage.json',
  '/.%2e/.%2e/package.json',
  '/assets/..%2f..%2f..%2fpackage.json',
  '/..%5c..%5cpackage.json',
  '/..\\..\\package.json',
  '/%5c..%5c..%5cpackage.json',
  '/%00',
  '/index.html%00.js',
  '/%00/../package.json',
  '/%2fetc%2fpasswd',
  '//etc/passwd',
  '/%252e%252e/package.json',
  '/....//package.json',
  '/./index.html',
];

const prefixes = ['/console', '/portal', '/api/docs/assets'];

describe('static folders', () => {
  it('serve their files', async () => {
    expect((await get('/console/assets/app.js')).status).toBe(200);
    expect((await get('/portal/styles.css')).status).toBe(200);
    expect((await get('/api/docs/assets/swagger-ui.css')).status).toBe(200);
  });

  it('answer 404 to traversal, hidden files and odd encodings, and the log stays quiet', async () => {
    log.length = 0;
    const answers: string[] = [];
    for (const prefix of prefixes) {
      for (const probe of probes) {
        const { status, body } = await get(`${prefix}${probe}`);
        answers.push(`${status} ${prefix}${probe}`);
        expect(body).not.toContain('build-manifest');
        expect(body).not.toContain('"name"');
        expect(body).not.toContain('root:');
      }
    }
    expect(answers.filter((answer) => !answer.startsWith('404 '))).toEqual([]);
    // A malformed escape (overlong UTF-8) is a bad request, refused just as quietly.
    expect((await get('/console/%c0%ae%c0%ae/package.json')).status).toBe(400);

    const lines = log.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.length).toBeGreaterThan(prefixes.length * probes.length);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(log.join('\n')).not.toMatch(/stack|Error/);
  });

  it("keep Swagger UI's other pages (its demo page, its OAuth helper with inline script) to themselves", async () => {
    for (const path of ['/api/docs/assets/index.html', '/api/docs/assets/oauth2-redirect.html']) {
      expect((await get(path)).status).toBe(404);
    }
  });
});
