// The Temporal server's config as written from a DATABASE_URL-style address: what reaches the file, what
// stays in the environment.
import { describe, expect, it } from 'vitest';
import { postgresTarget, renderServerConfig, type ServerPorts } from '../../infra/temporal-server-config.ts';

const names = { database: 'temporal', visibilityDatabase: 'temporal_visibility' };
const ports: ServerPorts = {
  frontend: { grpc: 41001, membership: 21001, http: 41002 },
  history: { grpc: 41003, membership: 21003 },
  matching: { grpc: 41004, membership: 21004 },
  worker: { grpc: 41005, membership: 21005 },
};

describe('the Temporal server config', () => {
  it('reads user, a percent-encoded password, host, default port and TLS from the URL', () => {
    expect(postgresTarget('postgres://temporal:p%40ss%2Fword@db.internal/postgres', names)).toEqual({ host: 'db.internal', port: 5432, user: 'temporal', password: 'p@ss/word', tls: false, verifyCertificate: false, ...names });
    expect(postgresTarget('postgresql://u:x@10.0.0.5:6543/any?sslmode=require', names)).toMatchObject({ port: 6543, tls: true, verifyCertificate: false });
    expect(() => postgresTarget('mysql://u:x@h/db', names)).toThrow('must start with postgres://');
    expect(() => postgresTarget('not a url', names)).toThrow('is not a URL');
  });

  it('writes no password, only the template that reads it from the environment, and every port', () => {
    const text = renderServerConfig({ postgres: postgresTarget('postgres://temporal:s3cret-Value@127.0.0.1:5433/postgres', names), ports, dynamicConfigFile: '/data/dynamic.yaml', historyShards: 4, logLevel: 'warn' });
    expect(text).not.toContain('s3cret-Value');
    expect(text.split('\n')[0]).toContain('enable-template');
    expect(text.match(/password: \{\{ env "CRM_SYNC_TEMPORAL_SQL_PASSWORD" \| quote \}\}/g)).toHaveLength(2);
    for (const port of [41001, 21001, 41002, 41003, 21003, 41004, 21004, 41005, 21005]) expect(text).toContain(`: ${port}\n`);
    expect(text).toContain('rpcAddress: "127.0.0.1:41001"');
    expect(text).toContain('connectAddr: "127.0.0.1:5433"');
    expect(text).toContain('pluginName: postgres12');
  });

  it('checks the certificate and host name for sslmode verify-ca and verify-full, and only encrypts for require', () => {
    const render = (sslmode: string) => renderServerConfig({ postgres: postgresTarget(`postgres://t:x@pg.example.internal:5432/postgres?sslmode=${sslmode}`, names), ports, dynamicConfigFile: '/d.yaml', historyShards: 4, logLevel: 'warn' });
    const verified = '        tls:\n          enabled: true\n          enableHostVerification: true\n          serverName: "pg.example.internal"\n';
    for (const sslmode of ['verify-ca', 'verify-full']) expect(render(sslmode).split(verified)).toHaveLength(3);
    const required = render('require');
    expect(required.split('        tls:\n          enabled: true\n').length).toBe(3);
    expect(required).not.toContain('enableHostVerification');
    expect(render('disable')).not.toContain('tls:');
  });
});
