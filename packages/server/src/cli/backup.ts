/**
 * `npm run backup -- <file>`: a compressed dump of the embedded database (PGlite) in
 * TESSERA_DATA_DIR. `npm run restore -- <file>`: the dump into an empty TESSERA_DATA_DIR.
 * Both with the server stopped (the embedded database belongs to one process). PostgreSQL
 * installations use pg_dump and pg_restore instead (README, "Backup and restore").
 */
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { backupPglite, restorePglite } from '../db/backup.ts';

async function main() {
  const [command, file] = process.argv.slice(2);
  if ((command !== 'backup' && command !== 'restore') || !file) {
    console.error('Usage: npm run backup -- <file>   or   npm run restore -- <file>');
    process.exit(2);
  }
  const config = loadConfig();
  if (config.databaseUrl) {
    console.error(
      'DATABASE_URL is set: back up PostgreSQL with pg_dump and restore it with pg_restore (see the README).',
    );
    process.exit(2);
  }
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  if (command === 'backup') {
    const size = await backupPglite(config.dataDir, path);
    console.log(`Backup written to ${path} (${Math.ceil(size / 1024)} KiB).`);
    console.log('The master key is not in it: keep master.key (or TESSERA_MASTER_KEY) safely apart.');
  } else {
    await restorePglite(path, config.dataDir);
    console.log(
      `Restored into ${config.dataDir}. Start the server with the same master key as the backup's.`,
    );
  }
}

main().catch((error) => {
  console.error(
    error instanceof ConfigError
      ? `Tessera cannot start: ${error.message}`
      : `Failed: ${error.message ?? error}`,
  );
  process.exit(1);
});
