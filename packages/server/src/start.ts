import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { type DatabaseHandle, openPglite, openPostgres } from './db/database.ts';
import { migrate } from './db/migrations.ts';
import { loadMasterKey } from './lib/crypto.ts';
import { ensureBootstrapAdmin } from './modules/account/bootstrap.ts';
import { limitHashesAtOnce } from './modules/account/password.ts';

/** Starts the server as configured by the environment; the process ends on SIGINT or SIGTERM. */
export async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Tessera cannot start: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }

  limitHashesAtOnce(config.hashesAtOnce);
  const masterKey = await loadMasterKey(config.masterKey, config.dataDir);
  const database: DatabaseHandle = config.databaseUrl
    ? await openPostgres(config.databaseUrl)
    : await openPglite({ dataDir: config.dataDir });
  await migrate(database.db);
  const bootstrap = await ensureBootstrapAdmin(database.db, config.bootstrapAdmin);
  const tessera = await buildApp({ config, database, masterKey });
  await tessera.app.listen({ port: config.port, host: config.host });

  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded database in ${config.dataDir}`;
  const lines = [
    '',
    `Tessera is running on ${storage}.`,
    `  Console:            ${config.publicUrl}/dev/`,
    `  Platform console:   ${config.publicUrl}/admin/`,
    `  User centre:        ${config.publicUrl}/portal/   (employees: profile, security, their apps)`,
    `  API reference:      ${config.publicUrl}/api/docs`,
    tessera.radius
      ? `  RADIUS:             udp ${config.radius.host}:${tessera.radius.port}`
      : '  RADIUS:             off (TESSERA_RADIUS_PORT=off)',
    tessera.ldap
      ? `  LDAP directory:     ldap://${config.ldap.host}:${tessera.ldap.port}${tessera.ldap.ldapsPort ? `, ldaps://${config.ldap.host}:${tessera.ldap.ldapsPort}` : ''}   (${config.ldap.suffix})`
      : '  LDAP directory:     off (set TESSERA_LDAP_PORT)',
  ];
  if (bootstrap.created) {
    lines.push(
      '',
      'The first platform administrator was created:',
      `  username: ${bootstrap.username}`,
      bootstrap.generatedPassword
        ? `  password: ${bootstrap.generatedPassword}   (one-time: the first sign-in asks for a new password)`
        : '  password: the value of TESSERA_BOOTSTRAP_ADMIN_PASSWORD',
    );
  } else {
    lines.push('', 'Sign in with a platform administrator account.');
  }
  console.log(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await tessera.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
