/**
 * `npm run keys -- ca`: prints the installation CA's certificate (PEM), made if there is none yet:
 * the CA that LDAP clients trust when the LDAP server has no certificate of the operator's
 * (`npm run keys --silent -- ca > tessera-ca.pem`).
 *
 * `npm run keys -- rotate`: new signing keys sign from now on; the previous ones stay published
 * until every token they signed has expired, so nobody is signed out. Running instances on
 * PostgreSQL pick the change up at once (LISTEN/NOTIFY). The embedded database is one process
 * only: stop the server first, the new keys are used when it starts again.
 */
import { ConfigError, loadConfig } from '../config.ts';
import { openPglite, openPostgres } from '../db/database.ts';
import { migrate } from '../db/migrations.ts';
import { createSealer, loadMasterKey } from '../lib/crypto.ts';
import { installationCa } from '../modules/ca/installation-ca.ts';
import { KEYS_CHANNEL, rotateSigningKeys } from '../modules/oidc/keys.ts';

async function main() {
  const [command] = process.argv.slice(2);
  if (command !== 'rotate' && command !== 'ca') {
    console.error('Usage: npm run keys -- rotate | ca');
    process.exit(2);
  }
  const config = loadConfig();
  const masterKey = await loadMasterKey(config.masterKey, config.dataDir);
  const database = config.databaseUrl
    ? await openPostgres(config.databaseUrl)
    : await openPglite({ dataDir: config.dataDir });
  try {
    await migrate(database.db);
    if (command === 'ca') {
      process.stdout.write((await installationCa(database.db, createSealer(masterKey))).certificatePem);
      return;
    }
    const kids = await rotateSigningKeys(database.db, createSealer(masterKey));
    await database.notify(KEYS_CHANNEL, kids.join(','));
    console.log(
      `New signing keys: ${kids.join(', ')} (ES256, RS256). Previous keys stay published for 31 days.`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? `Tessera cannot start: ${error.message}` : error);
  process.exit(1);
});
