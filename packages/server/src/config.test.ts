import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({}, '/srv/tessera');
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
      dataDir: '/srv/tessera/data',
      databaseUrl: undefined,
      bootstrapAdmin: { username: 'admin', password: undefined },
      session: { idleSeconds: 7200, absoluteSeconds: 43_200 },
      mail: { smtpUrl: undefined, from: 'Tessera <noreply@localhost>' },
      importConcurrency: 2,
      hashesAtOnce: availableParallelism(),
      outboundNetworks: [],
      companyQuotas: { user: 100, app: 10 },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      TESSERA_PUBLIC_URL: 'https://id.example.com/',
      TESSERA_DATA_DIR: '/var/lib/tessera',
      DATABASE_URL: 'postgres://u:p@db:5432/tessera',
      TESSERA_MASTER_KEY: 'a'.repeat(64),
      TESSERA_BOOTSTRAP_ADMIN_USERNAME: 'root',
      TESSERA_BOOTSTRAP_ADMIN_PASSWORD: 'long-enough-password',
      TESSERA_SESSION_IDLE_SECONDS: '600',
      TESSERA_SESSION_ABSOLUTE_SECONDS: '3600',
      TESSERA_SMTP_URL: 'smtps://mailer:s3cret@mail.example.com:465',
      TESSERA_MAIL_FROM: 'Example ID <id@example.com>',
      TESSERA_IMPORT_CONCURRENCY: '4',
      TESSERA_HASHES_AT_ONCE: '3',
      TESSERA_OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8, 192.168.1.7, fd00::/8',
      TESSERA_COMPANY_USER_QUOTA: '2500',
      TESSERA_COMPANY_APP_QUOTA: 'unlimited',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://id.example.com',
      dataDir: '/var/lib/tessera',
      databaseUrl: 'postgres://u:p@db:5432/tessera',
      bootstrapAdmin: { username: 'root', password: 'long-enough-password' },
      session: { idleSeconds: 600, absoluteSeconds: 3600 },
      mail: { smtpUrl: 'smtps://mailer:s3cret@mail.example.com:465', from: 'Example ID <id@example.com>' },
      importConcurrency: 4,
      hashesAtOnce: 3,
      outboundNetworks: ['10.0.0.0/8', '192.168.1.7', 'fd00::/8'],
      companyQuotas: { user: 2500, app: null },
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ TESSERA_HASHES_AT_ONCE: '0' }, 'TESSERA_HASHES_AT_ONCE'],
    [{ PORT: '70000' }, 'PORT'],
    [{ HOST: 'bad host' }, 'HOST'],
    [{ TESSERA_PUBLIC_URL: 'not a url' }, 'TESSERA_PUBLIC_URL'],
    [{ TESSERA_PUBLIC_URL: 'ftp://x' }, 'TESSERA_PUBLIC_URL'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ TESSERA_MASTER_KEY: 'short' }, 'TESSERA_MASTER_KEY'],
    [{ TESSERA_METRICS_TOKEN: 'too-short' }, 'TESSERA_METRICS_TOKEN'],
    [{ TESSERA_METRICS_TOKEN: 'a token with spaces that is long enough' }, 'TESSERA_METRICS_TOKEN'],
    [{ TESSERA_BOOTSTRAP_ADMIN_USERNAME: 'has space' }, 'TESSERA_BOOTSTRAP_ADMIN_USERNAME'],
    [{ TESSERA_BOOTSTRAP_ADMIN_PASSWORD: 'short' }, 'TESSERA_BOOTSTRAP_ADMIN_PASSWORD'],
    [{ TESSERA_SESSION_IDLE_SECONDS: '5' }, 'TESSERA_SESSION_IDLE_SECONDS'],
    [
      { TESSERA_SESSION_IDLE_SECONDS: '7200', TESSERA_SESSION_ABSOLUTE_SECONDS: '600' },
      'TESSERA_SESSION_ABSOLUTE_SECONDS',
    ],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ TESSERA_SMTP_URL: 'http://mail.example.com' }, 'TESSERA_SMTP_URL'],
    [{ TESSERA_SMTP_URL: 'not a url' }, 'TESSERA_SMTP_URL'],
    [{ TESSERA_MAIL_FROM: 'nobody' }, 'TESSERA_MAIL_FROM'],
    [{ TESSERA_MAIL_FROM: 'Name <not-an-address>' }, 'TESSERA_MAIL_FROM'],
    [{ TESSERA_IMPORT_CONCURRENCY: '0' }, 'TESSERA_IMPORT_CONCURRENCY'],
    [{ TESSERA_OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/33' }, 'TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
    [{ TESSERA_OUTBOUND_ALLOWED_NETWORKS: 'intranet' }, 'TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
    // The variables it replaced are refused by name rather than silently ignored.
    [{ TESSERA_BACKCHANNEL_ALLOWED_NETWORKS: '10.0.0.0/8' }, 'TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
    [{ TESSERA_EXCHANGE_PRIVATE_ADDRESSES: 'all' }, 'TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
    [{ TESSERA_FETCH_ALLOW_PRIVATE: 'true' }, 'TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
    [{ TESSERA_COMPANY_USER_QUOTA: '0' }, 'TESSERA_COMPANY_USER_QUOTA'],
    [{ TESSERA_COMPANY_USER_QUOTA: 'lots' }, 'TESSERA_COMPANY_USER_QUOTA'],
    [{ TESSERA_COMPANY_APP_QUOTA: '-1' }, 'TESSERA_COMPANY_APP_QUOTA'],
    [{ TESSERA_COMPANY_APP_QUOTA: '100000001' }, 'TESSERA_COMPANY_APP_QUOTA'],
  ])('refuses %o naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('takes "unlimited" and 0 applications as company quotas, and says what a quota may be', () => {
    expect(
      loadConfig({ TESSERA_COMPANY_USER_QUOTA: 'Unlimited', TESSERA_COMPANY_APP_QUOTA: '0' }).companyQuotas,
    ).toEqual({ user: null, app: 0 });
    expect(() => loadConfig({ TESSERA_COMPANY_USER_QUOTA: '1.5' })).toThrow(
      'TESSERA_COMPANY_USER_QUOTA must be a whole number from 1 to 100000000, or "unlimited" (got "1.5")',
    );
  });

  it("reads the LDAP server settings (issue 32): off by default, the installation's certificate without files", () => {
    expect(loadConfig({}, '/srv').ldap).toEqual({
      port: null,
      ldapsPort: null,
      host: '127.0.0.1',
      suffix: 'dc=tessera',
      certFile: null,
      keyFile: null,
      certificateNames: ['localhost', '127.0.0.1'],
    });
    expect(
      loadConfig(
        {
          TESSERA_LDAP_PORT: '389',
          TESSERA_LDAPS_PORT: '636',
          TESSERA_LDAP_HOST: '0.0.0.0',
          TESSERA_LDAP_SUFFIX: 'dc=example,dc=com',
          TESSERA_LDAP_TLS_CERT: '/etc/tessera/ldap.crt',
          TESSERA_LDAP_TLS_KEY: '/etc/tessera/ldap.key',
        },
        '/srv',
      ).ldap,
    ).toEqual({
      port: 389,
      ldapsPort: 636,
      host: '0.0.0.0',
      suffix: 'dc=example,dc=com',
      certFile: '/etc/tessera/ldap.crt',
      keyFile: '/etc/tessera/ldap.key',
      certificateNames: ['localhost', '127.0.0.1'],
    });
    // LDAPS without files: the installation's certificate names TESSERA_LDAP_HOST and the public host.
    expect(
      loadConfig(
        {
          TESSERA_LDAP_PORT: '389',
          TESSERA_LDAPS_PORT: '636',
          TESSERA_LDAP_HOST: 'LDAP.example.com',
          TESSERA_PUBLIC_URL: 'https://id.example.com',
        },
        '/srv',
      ).ldap.certificateNames,
    ).toEqual(['ldap.example.com', 'id.example.com']);
    expect(() => loadConfig({ TESSERA_LDAP_PORT: 'ldap' }, '/srv')).toThrow(ConfigError);
    expect(() => loadConfig({ TESSERA_LDAPS_PORT: '636' }, '/srv')).toThrow(/TESSERA_LDAP_PORT/);
    expect(() => loadConfig({ TESSERA_LDAP_TLS_CERT: '/x.crt' }, '/srv')).toThrow(/go together/);
    expect(() => loadConfig({ TESSERA_LDAP_SUFFIX: 'tessera' }, '/srv')).toThrow(/TESSERA_LDAP_SUFFIX/);
  });

  it('reads the Exchange agent settings', () => {
    expect(loadConfig({}).exchange).toEqual({ maxHoldSeconds: 1860 });
    expect(loadConfig({ TESSERA_EXCHANGE_MAX_HOLD_SECONDS: '600' }).exchange).toEqual({
      maxHoldSeconds: 600,
    });
  });

  it('never repeats the SMTP password in its message', () => {
    expect(() => loadConfig({ TESSERA_SMTP_URL: 'ftp://mailer:s3cret@mail.example.com' })).toThrow(
      /^(?!.*s3cret).*TESSERA_SMTP_URL/,
    );
  });

  it('stops start-up with one clear line naming the variable', async () => {
    const main = fileURLToPath(new URL('./main.ts', import.meta.url));
    const run = promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', main], {
      env: { ...process.env, PORT: 'eighty' },
    });
    const failure = (await run.catch((error) => error)) as { code: number; stderr: string };
    expect(failure.code).toBe(1);
    const lines = failure.stderr
      .split('\n')
      .filter((line) => line.trim() && !line.includes('oidc-provider WARNING'));
    expect(lines).toEqual([
      'Tessera cannot start: PORT must be a whole number from 1 to 65535 (got "eighty")',
    ]);
  });
});
