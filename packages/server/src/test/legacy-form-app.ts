import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small legacy web application without single sign-on, for form-fill tests: a classic login
 * form (`/login`, fields `login_user`, `login_pass` and a hidden `tenant`) that checks the user
 * name and password, sets a session cookie and shows "Welcome <name>" at `/home`.
 */
export interface LegacyFormApp {
  /** The app's address (http://127.0.0.1:<port>). */
  url: string;
  loginUrl: string;
  /** Every login form post received, in order (the fields as posted). */
  posts: Record<string, string>[];
  close(): Promise<void>;
}

const escapeText = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 64 * 1024) request.destroy(new Error('body too large'));
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });

const cookieOf = (request: IncomingMessage, name: string) =>
  (request.headers.cookie ?? '')
    .split(';')
    .map((part) => part.trim().split('='))
    .find(([key]) => key === name)?.[1];

export async function startLegacyFormApp(options: {
  /** User name → password. */
  users: Record<string, string>;
  /** The hidden tenant field the form posts; a post without it is refused. */
  tenant?: string;
  /**
   * Answer a good login with a redirect to another origin of the app (http://localhost:<port>),
   * which sets its session there, as apps whose login host is not their home host do.
   */
  crossOriginHome?: boolean;
}): Promise<LegacyFormApp> {
  const sessions = new Map<string, string>();
  const posts: Record<string, string>[] = [];
  const tenant = options.tenant ?? 'main';
  let homeOrigin = '';
  const page = (status: number, body: string, headers: Record<string, string> = {}) => ({
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
    body: `<!doctype html><html><head><title>Legacy app</title></head><body>${body}</body></html>`,
  });

  const server = createServer((request, response) => {
    const answer = async () => {
      const url = new URL(request.url ?? '/', 'http://legacy');
      if (url.pathname === '/login' && request.method === 'GET') {
        return page(
          200,
          `<form method="post" action="/login"><input name="login_user"><input name="login_pass" type="password"><input type="hidden" name="tenant" value="${escapeText(tenant)}"><button>Sign in</button></form>`,
        );
      }
      if (url.pathname === '/login' && request.method === 'POST') {
        const fields = Object.fromEntries(new URLSearchParams(await readBody(request)));
        posts.push(fields);
        const user = fields.login_user ?? '';
        const known = Object.hasOwn(options.users, user) ? options.users[user] : undefined;
        if (known === undefined || fields.login_pass !== known || fields.tenant !== tenant) {
          return page(401, '<p>Wrong user name or password</p>');
        }
        const session = randomBytes(16).toString('hex');
        sessions.set(session, user);
        if (options.crossOriginHome) {
          return { status: 303, headers: { location: `${homeOrigin}/enter?session=${session}` }, body: '' };
        }
        return {
          status: 303,
          headers: { location: '/home', 'set-cookie': `legacy_session=${session}; Path=/; HttpOnly` },
          body: '',
        };
      }
      if (url.pathname === '/enter' && sessions.has(url.searchParams.get('session') ?? '')) {
        return {
          status: 302,
          headers: {
            location: '/home',
            'set-cookie': `legacy_session=${url.searchParams.get('session')}; Path=/; HttpOnly`,
          },
          body: '',
        };
      }
      if (url.pathname === '/home') {
        const user = sessions.get(cookieOf(request, 'legacy_session') ?? '');
        if (!user) return { status: 302, headers: { location: '/login' }, body: '' };
        return page(200, `<h1>Welcome ${escapeText(user)}</h1>`);
      }
      return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not found' };
    };
    answer().then(
      ({ status, headers, body }) => response.writeHead(status, headers).end(body),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  homeOrigin = `http://localhost:${port}`;
  return {
    url,
    loginUrl: `${url}/login`,
    posts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
