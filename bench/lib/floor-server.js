/**
 * The floor of a password sign-in on this machine (bench/floor.bench.ts): a bare HTTP server
 * whose one route does what any sign-in must, and nothing else. It reads a form, runs one
 * statement before the hash (the account and a budget), verifies an argon2id hash through the
 * server's own `hashPassword` and `verifyPassword` (its parameters, at most one per core), runs one
 * statement after it (the budget back, a login event), and answers a redirect with a cookie.
 * Every statement is prepared by name. Plain Node and node-postgres: no framework, no query
 * builder. Needs the server's build (`npm run build:server`).
 *
 *   FLOOR_DATABASE_URL=postgres://... FLOOR_PORT=... node bench/lib/floor-server.js
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import {
  hashPassword,
  limitHashesAtOnce,
  verifyPassword,
} from '../../packages/server/dist/modules/account/password.js';

// One hash per core, as the server sets it where it starts.
limitHashesAtOnce(availableParallelism());
const db = new pg.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
await db.query(`
  create table if not exists floor_accounts (id serial primary key, username text unique, password_hash text,
    failures int not null default 0, last_login timestamptz);
  create table if not exists floor_budgets (key text primary key, used int not null default 0);
  create table if not exists floor_events (id bigserial primary key, account_id int, at timestamptz not null default now(),
    result text, ip text);
  create index if not exists floor_events_account on floor_events (account_id, at desc);
  truncate floor_accounts, floor_budgets, floor_events;`);
await db.query('insert into floor_accounts (username, password_hash) values ($1, $2)', [
  'ada',
  await hashPassword('Floor-Password-1'),
]);

const before = {
  name: 'floor_before',
  text: `with budget as (insert into floor_budgets (key, used) values ($2, 1)
           on conflict (key) do update set used = floor_budgets.used + 1 returning used)
         select a.id, a.password_hash, (select used from budget) as used from floor_accounts a where a.username = $1`,
};
const after = {
  name: 'floor_after',
  text: `with back as (update floor_budgets set used = used - 1 where key = $2),
         account as (update floor_accounts set failures = 0, last_login = now() where id = $1)
         insert into floor_events (account_id, result, ip) values ($1, 'success', $3)`,
};

const secret = randomBytes(32);
createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const form = new URLSearchParams(Buffer.concat(chunks).toString());
  const ip = request.socket.remoteAddress ?? '';
  const found = await db.query({ ...before, values: [form.get('identifier'), `ip:${ip}`] });
  const account = found.rows[0];
  const ok = account && (await verifyPassword(account.password_hash, form.get('password') ?? ''));
  if (!ok) {
    response.writeHead(401).end();
    return;
  }
  await db.query({ ...after, values: [account.id, `ip:${ip}`, ip] });
  const session = randomBytes(16).toString('base64url');
  const signature = createHmac('sha256', secret).update(session).digest('base64url');
  response
    .writeHead(303, { location: '/done', 'set-cookie': `s=${session}.${signature}; Path=/; HttpOnly` })
    .end();
}).listen(Number(process.env.FLOOR_PORT), '127.0.0.1', () => console.log('floor server ready'));
