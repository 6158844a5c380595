import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const folder = await mkdtemp(join(tmpdir(), 'plant-store-config-'));
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function tokensFile(text: string): Promise<string> {
  const path = join(folder, `tokens-${Math.random().toString(36).slice(2)}`);
  await writeFile(path, text);
  return path;
}

// A certificate of no use but to be read (openssl req -x509); a private key is made for each test.
const CERTIFICATE_FILE = join(
  import.meta.dirname,
  '..',
  'test',
  'support',
  'fixtures',
  'otlp-test-certificate.pem',
);
const CERTIFICATE = readFileSync(CERTIFICATE_FILE);

async function privateKeyFile(): Promise<string> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const path = join(folder, `key-${Math.random().toString(36).slice(2)}.pem`);
  await writeFile(path, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return path;
}

/** The problems loadConfig reports for an environment; fails when it reports none. */
function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('when nothing is set outside production, then it uses the defaults and asks for a generated token', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'pglite', dataDir: resolve('data') },
      groupCommit: true,
      preparedStatements: true,
      tokens: [],
      tokensFile: undefined,
      generateToken: true,
      bodyLimit: 65_536,
      logLevel: 'info',
      nodeEnv: 'development',
      shutdownTimeoutMs: 10_000,
      shutdownGraceMs: 0,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 'auto',
      sendTimeoutMs: 60_000,
      corsOrigins: undefined,
      jwtIssuer: undefined,
      jwtAudience: undefined,
      jwtJwksUrl: undefined,
      jwtAlgorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      jwtClockToleranceS: 30,
      jwtScopeRead: 'plants:read',
      jwtScopeWrite: 'plants:write',
      jwtStrictProfile: false,
      webhookUrls: undefined,
      webhookSecrets: undefined,
      webhookRetrySchedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      webhookTimeoutMs: 10_000,
      webhookMemoryBacklog: 10_000,
      otlpEndpoint: undefined,
      otlpTracesEndpoint: undefined,
      otlpProtocol: 'http/protobuf',
      otlpTracesProtocol: undefined,
      otlpHeaders: undefined,
      otlpTracesHeaders: undefined,
      otlpTimeoutMs: 10_000,
      otlpTracesTimeoutMs: undefined,
      otlpCompression: 'none',
      otlpTracesCompression: undefined,
      otlpCertificate: undefined,
      otlpTracesCertificate: undefined,
      otlpClientCertificate: undefined,
      otlpTracesClientCertificate: undefined,
      otlpClientKey: undefined,
      otlpTracesClientKey: undefined,
      otelServiceName: undefined,
      otelResourceAttributes: undefined,
      tracesSampler: 'parentbased_always_on',
      tracesSamplerArg: 1,
      otelPropagators: 'tracecontext',
      bspMaxQueueSize: 2048,
      bspMaxExportBatchSize: undefined,
      bspScheduleDelayMs: 5000,
      bspExportTimeoutMs: 30_000,
      attributeValueLengthLimit: undefined,
      attributeCountLimit: 128,
      spanAttributeValueLengthLimit: undefined,
      spanAttributeCountLimit: undefined,
      spanEventCountLimit: 128,
      spanLinkCountLimit: 128,
      eventAttributeCountLimit: 128,
      linkAttributeCountLimit: 128,
      otelLogLevel: 'warn',
      otelSdkDisabled: false,
    });
  });

  it('when every setting is given, then each is read', async () => {
    const keyFile = await privateKeyFile();
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://plants:secret@db:5432/plants',
      API_TOKENS: 'a',
      BODY_LIMIT: '1mb',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      SHUTDOWN_TIMEOUT_MS: '2500',
      SHUTDOWN_GRACE_MS: '1500',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
      MAX_CONNECTIONS: '5000',
      SEND_TIMEOUT_MS: '2000',
      CORS_ORIGINS: 'https://app.example, http://localhost:5173,https://app.example',
      GROUP_COMMIT: 'OFF',
      DATABASE_PREPARED_STATEMENTS: 'off',
      JWT_ISSUER: 'https://id.example.com/realms/plants',
      JWT_AUDIENCE: 'plant-store',
      JWT_JWKS_URL: 'https://id.example.com/realms/plants/protocol/openid-connect/certs',
      JWT_ALGORITHMS: 'ES256, RS256',
      JWT_CLOCK_TOLERANCE_S: '5',
      JWT_SCOPE_READ: 'api://plants/Plants.Read',
      JWT_SCOPE_WRITE: 'api://plants/Plants.Write',
      JWT_STRICT_PROFILE: 'on',
      WEBHOOK_URLS: 'https://hooks.example.com/plants, http://10.0.0.7:8080/in?team=a',
      WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
      WEBHOOK_RETRY_SCHEDULE: '1s,90s',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_MEMORY_BACKLOG: '250000',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/Protobuf',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%2C1, x-team=plants',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=def',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'GZIP',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'none',
      OTEL_EXPORTER_OTLP_CERTIFICATE: CERTIFICATE_FILE,
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: CERTIFICATE_FILE,
      OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: CERTIFICATE_FILE,
      OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE: CERTIFICATE_FILE,
      OTEL_EXPORTER_OTLP_CLIENT_KEY: keyFile,
      OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY: keyFile,
      OTEL_SERVICE_NAME: 'plants-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,team=green%20house',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_PROPAGATORS: 'TraceContext',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1024',
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      OTEL_BSP_EXPORT_TIMEOUT: '3000',
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096',
      OTEL_ATTRIBUTE_COUNT_LIMIT: '64',
      OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '2048',
      OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '32',
      OTEL_SPAN_EVENT_COUNT_LIMIT: '16',
      OTEL_SPAN_LINK_COUNT_LIMIT: '0',
      OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT: '8',
      OTEL_LINK_ATTRIBUTE_COUNT_LIMIT: '4',
      OTEL_LOG_LEVEL: 'ERROR',
      OTEL_SDK_DISABLED: 'TRUE',
    });
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      database: { kind: 'postgres', connectionString: 'postgres://plants:secret@db:5432/plants' },
      groupCommit: false,
      preparedStatements: false,
      tokens: ['a'],
      tokensFile: undefined,
      generateToken: false,
      bodyLimit: 1_048_576,
      logLevel: 'debug',
      nodeEnv: 'production',
      shutdownTimeoutMs: 2500,
      shutdownGraceMs: 1500,
      headersTimeoutMs: 2000,
      requestTimeoutMs: 4000,
      keepAliveTimeoutMs: 1000,
      maxConnections: 5000,
      sendTimeoutMs: 2000,
      corsOrigins: ['https://app.example', 'http://localhost:5173'],
      jwtIssuer: 'https://id.example.com/realms/plants',
      jwtAudience: 'plant-store',
      jwtJwksUrl: 'https://id.example.com/realms/plants/protocol/openid-connect/certs',
      jwtAlgorithms: ['ES256', 'RS256'],
      jwtClockToleranceS: 5,
      jwtScopeRead: 'api://plants/Plants.Read',
      jwtScopeWrite: 'api://plants/Plants.Write',
      jwtStrictProfile: true,
      webhookUrls: ['https://hooks.example.com/plants', 'http://10.0.0.7:8080/in?team=a'],
      webhookSecrets: [Buffer.alloc(32, 1)],
      webhookRetrySchedule: [1_000, 90_000],
      webhookTimeoutMs: 2500,
      webhookMemoryBacklog: 250_000,
      otlpEndpoint: 'http://collector:4318',
      otlpTracesEndpoint: 'https://traces.example.com/v1/traces',
      otlpProtocol: 'http/json',
      otlpTracesProtocol: 'http/protobuf',
      otlpHeaders: { 'x-api-key': 'abc,1', 'x-team': 'plants' },
      otlpTracesHeaders: { 'x-api-key': 'def' },
      otlpTimeoutMs: 2000,
      otlpTracesTimeoutMs: 3000,
      otlpCompression: 'gzip',
      otlpTracesCompression: 'none',
      otlpCertificate: CERTIFICATE,
      otlpTracesCertificate: CERTIFICATE,
      otlpClientCertificate: CERTIFICATE,
      otlpTracesClientCertificate: CERTIFICATE,
      otlpClientKey: readFileSync(keyFile),
      otlpTracesClientKey: readFileSync(keyFile),
      otelServiceName: 'plants-eu',
      otelResourceAttributes: { 'deployment.environment.name': 'prod', team: 'green house' },
      tracesSampler: 'parentbased_traceidratio',
      tracesSamplerArg: 0.25,
      otelPropagators: 'tracecontext',
      bspMaxQueueSize: 4096,
      bspMaxExportBatchSize: 1024,
      bspScheduleDelayMs: 1000,
      bspExportTimeoutMs: 3000,
      attributeValueLengthLimit: 4096,
      attributeCountLimit: 64,
      spanAttributeValueLengthLimit: 2048,
      spanAttributeCountLimit: 32,
      spanEventCountLimit: 16,
      spanLinkCountLimit: 0,
      eventAttributeCountLimit: 8,
      linkAttributeCountLimit: 4,
      otelLogLevel: 'error',
      otelSdkDisabled: true,
    });
  });

  it('when a variable is set to the empty string, then it counts as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '', BODY_LIMIT: ' ', LOG_LEVEL: '' })).toMatchObject({
      port: 3000,
      database: { kind: 'pglite', dataDir: resolve('data') },
      bodyLimit: 65_536,
      logLevel: 'info',
    });
  });

  describe('DATABASE_URL', () => {
    it.each([
      ['postgres://u@h/db', { kind: 'postgres', connectionString: 'postgres://u@h/db' }],
      [
        'postgresql://u:p@h:5433/db?sslmode=require',
        { kind: 'postgres', connectionString: 'postgresql://u:p@h:5433/db?sslmode=require' },
      ],
      ['pglite:/var/lib/plants', { kind: 'pglite', dataDir: '/var/lib/plants' }],
      ['pglite:./local', { kind: 'pglite', dataDir: resolve('local') }],
      ['pglite:', { kind: 'pglite', dataDir: resolve('data') }],
      ['memory:', { kind: 'memory' }],
    ])('when it is %s, then the storage is %j', (url, database) => {
      expect(loadConfig({ DATABASE_URL: url }).database).toEqual(database);
    });

    it.each(['mysql://u@h/db', 'memory', 'sqlite:plants.db', 'http://db'])(
      'when it is %s, then it is refused',
      (url) => {
        expect(problemsOf({ DATABASE_URL: url })).toEqual([
          expect.stringMatching(/^DATABASE_URL must be postgres:\/\//),
        ]);
      },
    );

    it.each([
      ['POSTGRES://u@h/db', { kind: 'postgres', connectionString: 'POSTGRES://u@h/db' }],
      ['PGlite:./local', { kind: 'pglite', dataDir: resolve('local') }],
      ['Memory:', { kind: 'memory' }],
    ])(
      'when its scheme is written in capitals (%s), then it is the same scheme, as in any URL',
      (url, database) => {
        expect(loadConfig({ DATABASE_URL: url }).database).toEqual(database);
      },
    );

    it.each(['memory:plants', 'postgres:u@h/db'])(
      'when %s has a known scheme but not the form its storage reads, then it is refused',
      (url) => {
        expect(problemsOf({ DATABASE_URL: url })).toEqual([
          expect.stringMatching(/^DATABASE_URL must be postgres:\/\//),
        ]);
      },
    );

    it.each([
      'pglite:file:///var/lib/plants',
      'pglite:file://localhost/var/lib/plants',
      'pglite:/var/lib/plants/',
      'pglite:/var/lib/../lib/plants',
      `pglite:${join(relative(process.cwd(), '/'), 'var/lib/plants')}`,
    ])(
      'when it is %s, then it names the folder /var/lib/plants, as PGlite and its lock are given it',
      (url) => {
        expect(loadConfig({ DATABASE_URL: url }).database).toEqual({
          kind: 'pglite',
          dataDir: '/var/lib/plants',
        });
      },
    );

    it.each([
      ['pglite:./local', 'local'],
      ['pglite:local', 'local'],
      ['pglite:./name:with-colon', 'name:with-colon'],
      ['pglite:file:///srv/my%20plants', '/srv/my plants'],
    ])('when it is %s, then it names the folder %s from the working directory', (url, folder) => {
      expect(loadConfig({ DATABASE_URL: url }).database).toEqual({
        kind: 'pglite',
        dataDir: resolve(folder),
      });
    });

    it.each([
      [
        'pglite:memory://plants',
        'memory://',
        ' (PGlite would keep the plants in memory and lose them at exit)',
      ],
      ['pglite:idb://plants', 'idb://', " (PGlite's store in a browser (IndexedDB))"],
      ['pglite:opfs-ahp://plants', 'opfs-ahp://', " (PGlite's store in a browser (OPFS))"],
      ['pglite:memfs2opfs://plants', 'memfs2opfs://', " (PGlite's store in a browser (OPFS))"],
    ])(
      'when it is %s, a store of PGlite that is no folder, then it is refused pointing throwaway runs to memory:',
      (url, named, why) => {
        expect(problemsOf({ DATABASE_URL: url })).toEqual([
          `DATABASE_URL pglite:${named} is not a folder on disk${why}: pglite: takes a folder, as ` +
            'pglite:/srv/plants, pglite:./data or pglite:file:///srv/plants; for a throwaway run, DATABASE_URL=memory:',
        ]);
      },
    );

    it.each(['pglite:plants:2024', 'pglite:https://example.com/plants'])(
      'when it is %s, a scheme PGlite does not know, then it is refused saying how to name such a folder',
      (url) => {
        expect(problemsOf({ DATABASE_URL: url })).toEqual([
          expect.stringMatching(
            /^DATABASE_URL pglite:[a-z]+:(\/\/)? is not a folder on disk: pglite: takes a folder, .*; one named [a-z]+:(\/\/)?… as pglite:\.\/[a-z]+:(\/\/)?…; for a throwaway run, DATABASE_URL=memory:$/,
          ),
        ]);
      },
    );

    it.each([
      'pglite:file://plants',
      'pglite:file:plants',
      'pglite:file://host/srv/plants',
      'pglite:file:///srv/a%2Fb',
    ])('when it is %s, not the file URL of an absolute path on this machine, then it is refused', (url) => {
      expect(problemsOf({ DATABASE_URL: url })).toEqual([
        'DATABASE_URL pglite:file: must be the URL of an absolute path on this machine, as ' +
          'pglite:file:///srv/plants (or the path alone: pglite:/srv/plants)',
      ]);
    });

    it('when it is refused, then the message lists every storage it may name', () => {
      expect(problemsOf({ DATABASE_URL: 'sqlite:plants.db' })).toEqual([
        'DATABASE_URL must be postgres://… or postgresql://… (a server), pglite:<dir> (embedded), ' +
          'memory: (nothing kept), or unset (embedded, in ./data)',
      ]);
    });

    it('when a postgres URL is malformed, then it is refused without echoing it', () => {
      const problems = problemsOf({ DATABASE_URL: 'postgres://user:s3cret@[bad' });
      expect(problems).toEqual(['DATABASE_URL is not a valid postgres:// URL']);
      expect(problems.join()).not.toContain('s3cret');
    });
  });

  describe('GROUP_COMMIT', () => {
    it.each([
      ['on', true],
      ['off', false],
      ['Off', false],
    ])('when it is %s, then group commit is %s', (value, on) => {
      expect(loadConfig({ GROUP_COMMIT: value }).groupCommit).toBe(on);
    });

    it.each(['yes', '1', 'false'])('when it is %s, then it is refused', (value) => {
      expect(problemsOf({ GROUP_COMMIT: value })).toEqual([`GROUP_COMMIT must be on or off, not "${value}"`]);
    });
  });

  describe('PORT, BODY_LIMIT, LOG_LEVEL, SHUTDOWN_TIMEOUT_MS', () => {
    it.each(['0', '1', '65535'])('when PORT is %s, then it is accepted', (port) => {
      expect(loadConfig({ PORT: port }).port).toBe(Number(port));
    });

    it.each(['-1', '65536', 'http', '80.5', '1e3', '0x50'])('when PORT is %s, then it is refused', (port) => {
      expect(problemsOf({ PORT: port })).toEqual([
        `PORT must be a whole number from 0 to 65535, not "${port}"`,
      ]);
    });

    it.each([
      ['65536', 65_536],
      ['1', 1],
      ['64kb', 65_536],
      ['64KB', 65_536],
      ['1mb', 1_048_576],
      ['100 b', 100],
      ['16mb', 16 * 1024 * 1024],
    ])('when BODY_LIMIT is %s, then the limit is %d bytes', (limit, bytes) => {
      expect(loadConfig({ BODY_LIMIT: limit }).bodyLimit).toBe(bytes);
    });

    it.each(['0', '-1', '1.5kb', '1gb', '17mb', 'lots', 'kb'])(
      'when BODY_LIMIT is %s, then it is refused',
      (limit) => {
        expect(problemsOf({ BODY_LIMIT: limit })).toEqual([
          expect.stringMatching(/^BODY_LIMIT must be a size/),
        ]);
      },
    );

    it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent', 'DEBUG'])(
      'when LOG_LEVEL is %s, then it is accepted',
      (level) => {
        expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level.toLowerCase());
      },
    );

    it('when LOG_LEVEL is unknown, then it is refused', () => {
      expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual([
        expect.stringMatching(/^LOG_LEVEL must be one of fatal, error/),
      ]);
    });

    it.each(['soon', '-5', '600001'])('when SHUTDOWN_TIMEOUT_MS is %s, then it is refused', (timeout) => {
      expect(problemsOf({ SHUTDOWN_TIMEOUT_MS: timeout })).toEqual([
        expect.stringMatching(/^SHUTDOWN_TIMEOUT_MS must be/),
      ]);
    });

    it.each(['soon', '-5', '600001'])('when SHUTDOWN_GRACE_MS is %s, then it is refused', (grace) => {
      expect(problemsOf({ SHUTDOWN_GRACE_MS: grace })).toEqual([
        expect.stringMatching(/^SHUTDOWN_GRACE_MS must be a whole number/),
      ]);
    });

    it('when SHUTDOWN_GRACE_MS is larger than SHUTDOWN_TIMEOUT_MS, then it is refused', () => {
      expect(problemsOf({ SHUTDOWN_GRACE_MS: '3001', SHUTDOWN_TIMEOUT_MS: '3000' })).toEqual([
        'SHUTDOWN_GRACE_MS must not be larger than SHUTDOWN_TIMEOUT_MS, of which it is a part',
      ]);
      expect(loadConfig({ SHUTDOWN_GRACE_MS: '3000', SHUTDOWN_TIMEOUT_MS: '3000' }).shutdownGraceMs).toBe(
        3000,
      );
    });
  });

  describe('MAX_CONNECTIONS', () => {
    it.each([
      ['auto', 'auto'],
      ['AUTO', 'auto'],
      ['1', 1],
      ['20000', 20_000],
    ] as const)('when it is %s, then it is %s', (written, value) => {
      expect(loadConfig({ MAX_CONNECTIONS: written }).maxConnections).toBe(value);
    });

    it.each(['0', '-1', 'none', '1.5', '10000001'])('when it is %s, then it is refused', (written) => {
      expect(problemsOf({ MAX_CONNECTIONS: written })).toEqual([
        `MAX_CONNECTIONS must be auto or a whole number from 1 to 10000000, not "${written}"`,
      ]);
    });
  });

  describe('tokens', () => {
    it('when API_TOKENS lists tokens, then they are trimmed, empty entries and duplicates dropped', () => {
      const config = loadConfig({ API_TOKENS: ' one , two,,three, one ,' });
      expect(config.tokens).toEqual(['one', 'two', 'three']);
      expect(config.generateToken).toBe(false);
    });

    it('when API_TOKENS_FILE names a file, then each line is a token, skipping blank lines and # comments', async () => {
      const file = await tokensFile('# service tokens\nalpha\n\n  beta  \r\n# old: gamma\nZGVsdGE=\n');
      expect(loadConfig({ API_TOKENS_FILE: file }).tokens).toEqual(['alpha', 'beta', 'ZGVsdGE=']);
    });

    it('when a line of the file holds several tokens separated by commas, then each is a token', async () => {
      const file = await tokensFile('alpha, beta,\ngamma\n');
      expect(loadConfig({ API_TOKENS_FILE: file }).tokens).toEqual(['alpha', 'beta', 'gamma']);
      const bad = await tokensFile('ok,not ok\n');
      expect(problemsOf({ API_TOKENS_FILE: bad })).toEqual([
        expect.stringMatching(/^API_TOKENS_FILE line 1 entry 2 is not a valid bearer token/),
      ]);
    });

    it('when both are given, then the tokens of both are accepted', async () => {
      const file = await tokensFile('from-file\n');
      expect(loadConfig({ API_TOKENS: 'from-env', API_TOKENS_FILE: file }).tokens).toEqual([
        'from-env',
        'from-file',
      ]);
    });

    it('when the file cannot be read, then it is refused, naming the file', () => {
      const missing = join(folder, 'missing');
      expect(problemsOf({ API_TOKENS_FILE: missing })).toEqual([
        `API_TOKENS_FILE ${missing} could not be read (ENOENT)`,
      ]);
    });

    it('when the file holds 1 MiB, then its tokens are read', async () => {
      // Lines of 64 bytes: a token of 63 characters and its newline.
      const tokens = Array.from({ length: (1024 * 1024) / 64 }, (_, i) => `t${String(i).padStart(62, '0')}`);
      const file = await tokensFile(`${tokens.join('\n')}\n`);
      expect(loadConfig({ API_TOKENS_FILE: file }).tokens).toHaveLength(tokens.length);
    });

    it('when the file is larger than 1 MiB, then it is refused, naming the file, and not read whole', async () => {
      const tokens = Array.from(
        { length: (1024 * 1024) / 64 + 1 },
        (_, i) => `t${String(i).padStart(62, '0')}`,
      );
      const file = await tokensFile(`${tokens.join('\n')}\n`);
      expect(problemsOf({ API_TOKENS_FILE: file })).toEqual([`API_TOKENS_FILE ${file} is larger than 1 MiB`]);
    });

    // /dev/zero never ends: read whole, it filled the machine's memory.
    it.each(['/dev/zero', '/dev/null'])(
      'when the file is %s, a device, then it is refused, naming it',
      (device) => {
        expect(problemsOf({ API_TOKENS_FILE: device })).toEqual([
          `API_TOKENS_FILE ${device} is not a regular file`,
        ]);
      },
    );

    it('when the file is a folder, then it is refused, naming it', () => {
      expect(problemsOf({ API_TOKENS_FILE: folder })).toEqual([
        `API_TOKENS_FILE ${folder} is not a regular file`,
      ]);
    });

    it('when the file is a FIFO nobody writes, then it is refused at once instead of waiting for a writer', () => {
      const fifo = join(folder, 'tokens-fifo');
      execFileSync('mkfifo', [fifo]);
      expect(problemsOf({ API_TOKENS_FILE: fifo })).toEqual([
        `API_TOKENS_FILE ${fifo} is not a regular file`,
      ]);
    });

    it('when tokens are not b64token, then each is refused by its place, never by its value', async () => {
      const file = await tokensFile('good\nbad token\n');
      const problems = problemsOf({ API_TOKENS: 'ok,has space,quote"d,=lead', API_TOKENS_FILE: file });
      expect(problems).toEqual([
        expect.stringMatching(/^API_TOKENS entry 2 is not a valid bearer token/),
        expect.stringMatching(/^API_TOKENS entry 3 is not a valid bearer token/),
        expect.stringMatching(/^API_TOKENS entry 4 is not a valid bearer token/),
        expect.stringMatching(/^API_TOKENS_FILE line 2 is not a valid bearer token/),
      ]);
      expect(problems.join()).not.toMatch(/has space|quote|=lead|bad token/);
    });

    it('when NODE_ENV is production and no token is configured, then it refuses to start', () => {
      expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
        'refusing to start without API_TOKENS, API_TOKENS_FILE or JWT_ISSUER when NODE_ENV is production',
      ]);
    });

    it('when NODE_ENV is production and every configured token is invalid, then only the invalid tokens are named', () => {
      expect(problemsOf({ NODE_ENV: 'production', API_TOKENS: 'has space' })).toEqual([
        expect.stringMatching(/^API_TOKENS entry 1 is not a valid bearer token/),
      ]);
    });

    it('when NODE_ENV is production and a token is configured, then no token is generated', () => {
      expect(loadConfig({ NODE_ENV: 'production', API_TOKENS: 't' }).generateToken).toBe(false);
    });

    it.each(['development', 'test', 'staging'])(
      'when NODE_ENV is %s and no token is configured, then a token is to be generated',
      (nodeEnv) => {
        expect(loadConfig({ NODE_ENV: nodeEnv })).toMatchObject({ tokens: [], generateToken: true });
      },
    );
  });

  it('when one value is bad, then the message is that problem alone, in one line', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrowError(
      /^PORT must be a whole number from 0 to 65535, not "eighty"$/,
    );
  });

  it('when several values are bad, then every one of them is listed in one error', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'x', BODY_LIMIT: 'y', LOG_LEVEL: 'z', DATABASE_URL: 'w', NODE_ENV: 'production' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems).toHaveLength(5);
    expect(error.message.split('\n')).toHaveLength(6);
    expect(error.message).toMatch(/^invalid configuration:\n {2}- /);
  });

  describe('CORS_ORIGINS', () => {
    it('when it is *, then any origin is allowed', () => {
      expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*');
    });

    it('when it lists origins as browsers send them (a port, an IP address, IPv6, another scheme), then each is kept once', () => {
      expect(
        loadConfig({
          CORS_ORIGINS:
            'https://app.example,http://localhost:5173,http://10.0.0.7:8080,http://[::1]:3000,chrome-extension://abcdef,https://app.example',
        }).corsOrigins,
      ).toStrictEqual([
        'https://app.example',
        'http://localhost:5173',
        'http://10.0.0.7:8080',
        'http://[::1]:3000',
        'chrome-extension://abcdef',
      ]);
    });

    it('when an origin is not as a browser sends it (a path, a trailing slash, capitals, the default port, no scheme, null), then each is named in a line of its own', () => {
      const refused = [
        'https://app.example/',
        'https://app.example/app',
        'https://App.example',
        'HTTPS://app.example',
        'https://app.example:443',
        'http://app.example:80',
        'app.example',
        'https://app.example?x=1',
        'https://user@app.example',
        'null',
      ];
      const problems = problemsOf({ CORS_ORIGINS: ['https://good.example', ...refused].join(',') });
      expect(problems).toStrictEqual(
        refused.map(
          (origin) =>
            `CORS_ORIGINS must hold origins as a browser sends them, scheme://host[:port] in lower case without a path, a trailing slash or the scheme's default port, not "${origin}"`,
        ),
      );
    });

    it('when * comes with origins, or nothing but commas is given, then it is refused', () => {
      expect(problemsOf({ CORS_ORIGINS: '*,https://app.example' })).toStrictEqual([
        'CORS_ORIGINS must be * alone, or origins without *',
      ]);
      expect(problemsOf({ CORS_ORIGINS: ' , ' })).toStrictEqual([
        'CORS_ORIGINS must name at least one origin, or be *',
      ]);
    });
  });

  describe('the webhook', () => {
    const secret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

    it('when WEBHOOK_URLS is set without WEBHOOK_SECRET, then it refuses to start, naming WEBHOOK_SECRET', () => {
      expect(() => loadConfig({ WEBHOOK_URLS: 'https://hooks.example.com' })).toThrow(
        'WEBHOOK_SECRET is required with WEBHOOK_URLS',
      );
    });

    it('when WEBHOOK_SECRET is set without WEBHOOK_URLS, then it refuses to start', () => {
      expect(() => loadConfig({ WEBHOOK_SECRET: secret })).toThrow(
        'WEBHOOK_SECRET is set but WEBHOOK_URLS is not',
      );
    });

    it('when a URL is not http(s), holds a password or a fragment, then each is named', () => {
      let message = '';
      try {
        loadConfig({
          WEBHOOK_SECRET: secret,
          WEBHOOK_URLS:
            'ftp://files.example.com, https://user:hunter2@hooks.example.com/x, https://a.example.com/#b',
        });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('WEBHOOK_URLS must hold http or https URLs, not "ftp://files.example.com"');
      expect(message).toContain(
        'WEBHOOK_URLS must hold URLs without user or password (the signature authenticates): hooks.example.com',
      );
      expect(message).toContain('WEBHOOK_URLS must hold URLs without a #fragment');
      expect(message).not.toContain('hunter2');
    });

    it('when the same URL is listed twice, then it is delivered to once', () => {
      expect(
        loadConfig({
          WEBHOOK_SECRET: secret,
          WEBHOOK_URLS: 'https://h.example.com/a,https://H.example.com/a',
        }).webhookUrls,
      ).toStrictEqual(['https://h.example.com/a']);
    });

    it('when WEBHOOK_SECRET is not a whsec_ secret, then it is refused without echoing it', () => {
      let refused: ConfigError | undefined;
      try {
        loadConfig({ WEBHOOK_URLS: 'https://h.example.com', WEBHOOK_SECRET: 'hunter2hunter2' });
      } catch (error) {
        refused = error as ConfigError;
      }
      expect(refused?.problems).toStrictEqual(['WEBHOOK_SECRET must start with whsec_']);
      expect(refused?.message).not.toContain('hunter2');
    });

    it('when WEBHOOK_RETRY_SCHEDULE holds something other than waits, then it is refused', () => {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,1d' })).toThrow(
        'WEBHOOK_RETRY_SCHEDULE must be waits such as 5s,5m,2h: "1d" is not a wait',
      );
    });
  });

  describe('traces (OTEL_*)', () => {
    it.each([
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc', 'must be one of http/protobuf, http/json, not "grpc"'],
      ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http', 'must be one of http/protobuf, http/json, not "http"'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318', 'must be an http or https URL, not "collector:4318"'],
      [
        'OTEL_TRACES_SAMPLER',
        'ratio',
        'must be one of parentbased_always_on, parentbased_always_off, parentbased_traceidratio, always_on, always_off, traceidratio, not "ratio"',
      ],
      ['OTEL_TRACES_SAMPLER_ARG', '1.5', 'must be a number from 0 to 1, not "1.5"'],
      ['OTEL_TRACES_SAMPLER_ARG', '-0.1', 'must be a number from 0 to 1, not "-0.1"'],
      ['OTEL_TRACES_SAMPLER_ARG', '10%', 'must be a number from 0 to 1, not "10%"'],
      ['OTEL_SDK_DISABLED', 'yes', 'must be true or false, not "yes"'],
      // A batch of 0 spans is exported for ever (the flush at the stop never ends); a queue of 0 drops all.
      ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', '0', 'must be a whole number from 1 to 1000000, not "0"'],
      ['OTEL_BSP_MAX_QUEUE_SIZE', '0', 'must be a whole number from 1 to 1000000, not "0"'],
      ['OTEL_BSP_MAX_QUEUE_SIZE', '1e3', 'must be a whole number from 1 to 1000000, not "1e3"'],
      ['OTEL_BSP_SCHEDULE_DELAY', '0', 'must be a whole number from 1 to 600000, not "0"'],
      ['OTEL_BSP_SCHEDULE_DELAY', '-5', 'must be a whole number from 1 to 600000, not "-5"'],
      // Past Node's timer bound a delay would be 1 ms.
      ['OTEL_BSP_SCHEDULE_DELAY', '3000000000', 'must be a whole number from 1 to 600000, not "3000000000"'],
      ['OTEL_EXPORTER_OTLP_TIMEOUT', '0', 'must be a whole number from 1 to 600000, not "0"'],
      [
        'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
        'Infinity',
        'must be a whole number from 1 to 600000, not "Infinity"',
      ],
      ['OTEL_EXPORTER_OTLP_COMPRESSION', 'zstd', 'must be one of none, gzip, not "zstd"'],
      ['OTEL_SPAN_LINK_COUNT_LIMIT', '-1', 'must be a whole number from 0 to 1000000, not "-1"'],
      ['OTEL_LOG_LEVEL', 'loud', 'must be one of none, error, warn, info, debug, verbose, all, not "loud"'],
      [
        'OTEL_PROPAGATORS',
        'tracecontext,baggage',
        `must be tracecontext or none: a caller's baggage is never passed on (docs/observability.md), not "tracecontext,baggage"`,
      ],
      [
        'OTEL_RESOURCE_ATTRIBUTES',
        'team=a=b',
        'must be key=value pairs, percent-encoded (a "," or "=" in a key or value as %2C, %3D), not "team=a=b"',
      ],
      ['OTEL_EXPORTER_OTLP_CERTIFICATE', '/dev/zero', '/dev/zero is not a regular file'],
      [
        'OTEL_EXPORTER_OTLP_CERTIFICATE',
        '/nonexistent/ca.pem',
        '/nonexistent/ca.pem could not be read (ENOENT)',
      ],
    ])('when %s is %s, then it is refused', (variable, value, message) => {
      expect(problemsOf({ [variable]: value })).toEqual([`${variable} ${message}`]);
    });

    it('when the sampler, protocol, compression or propagator is written in capitals, then it is read as the SDK names it', () => {
      expect(
        loadConfig({
          OTEL_TRACES_SAMPLER: 'ALWAYS_OFF',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
          OTEL_EXPORTER_OTLP_COMPRESSION: 'Gzip',
          OTEL_PROPAGATORS: 'NONE',
        }),
      ).toMatchObject({
        tracesSampler: 'always_off',
        otlpProtocol: 'http/json',
        otlpCompression: 'gzip',
        otelPropagators: 'none',
      });
    });

    it('when the export batch is larger than the queue, then it is refused', () => {
      expect(problemsOf({ OTEL_BSP_MAX_QUEUE_SIZE: '8', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '16' })).toEqual([
        'OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not be larger than OTEL_BSP_MAX_QUEUE_SIZE (8), the queue a batch is taken from',
      ]);
    });

    it('when the span processor would stop waiting before an export may end, then it is refused', () => {
      expect(problemsOf({ OTEL_EXPORTER_OTLP_TIMEOUT: '60000' })).toEqual([
        'OTEL_BSP_EXPORT_TIMEOUT (30000 ms) must not be shorter than an export may take (OTEL_EXPORTER_OTLP_TIMEOUT, 60000 ms): the next export would start beside one still under way',
      ]);
      expect(
        problemsOf({ OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '5000', OTEL_BSP_EXPORT_TIMEOUT: '4000' }),
      ).toEqual([
        'OTEL_BSP_EXPORT_TIMEOUT (4000 ms) must not be shorter than an export may take (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, 5000 ms): the next export would start beside one still under way',
      ]);
    });

    it('when a client key is given without a client certificate, then it is refused', async () => {
      expect(problemsOf({ OTEL_EXPORTER_OTLP_CLIENT_KEY: await privateKeyFile() })).toEqual([
        'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together (or their _TRACES_ forms): a client certificate is presented with its key',
      ]);
    });

    it('when a certificate or key file holds something else, then it is refused', async () => {
      const notPem = await tokensFile('not a certificate');
      expect(
        problemsOf({
          OTEL_EXPORTER_OTLP_CERTIFICATE: notPem,
          OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: CERTIFICATE_FILE,
          OTEL_EXPORTER_OTLP_CLIENT_KEY: CERTIFICATE_FILE,
        }),
      ).toEqual([
        `OTEL_EXPORTER_OTLP_CERTIFICATE ${notPem} holds no PEM certificate`,
        `OTEL_EXPORTER_OTLP_CLIENT_KEY ${CERTIFICATE_FILE} holds no unencrypted PEM private key`,
      ]);
    });

    it('when an endpoint holding a user, a password and a query is refused, then the message shows none of them', () => {
      expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://apikey:S3cr3t@host/otlp?token=Q' })).toEqual([
        'OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL, not "ftp://REDACTED:REDACTED@host/otlp?token=REDACTED"',
      ]);
      expect(problemsOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'apikey:S3cr3t@host' })).toEqual([
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http or https URL, not (not shown: it may hold a secret)',
      ]);
    });

    it('when headers are malformed, then each problem is named by the header, never with its value', () => {
      const problems = problemsOf({
        OTEL_EXPORTER_OTLP_HEADERS: 'x-key=s3cret;v1,x-empty=,Bearer s3cret,x-bad=%zz,x-key=two,x-nl=a%0Ab',
      });
      expect(problems).toEqual([
        'OTEL_EXPORTER_OTLP_HEADERS gives x-key a value with ";", which is read as metadata: write it %3B',
        'OTEL_EXPORTER_OTLP_HEADERS gives x-empty no value',
        'OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs with a header name in each: pair 3 is not (not shown)',
        'OTEL_EXPORTER_OTLP_HEADERS gives x-bad a value that is not valid percent-encoding',
        'OTEL_EXPORTER_OTLP_HEADERS gives x-nl a value with a character a header cannot carry',
      ]);
      expect(problems.join('\n')).not.toContain('s3cret');
    });

    it.each([
      ['0', 0],
      ['.5', 0.5],
      ['0.1', 0.1],
      ['1', 1],
      ['1.0', 1],
    ])('when OTEL_TRACES_SAMPLER_ARG is %s, then the ratio is %s', (written, ratio) => {
      expect(loadConfig({ OTEL_TRACES_SAMPLER_ARG: written }).tracesSamplerArg).toBe(ratio);
    });
  });

  describe('JWT access tokens', () => {
    it('when JWT_ISSUER is set without JWT_AUDIENCE, then it refuses to start, naming JWT_AUDIENCE', () => {
      expect(() => loadConfig({ API_TOKENS: 'a', JWT_ISSUER: 'https://id.example.com' })).toThrow(
        'JWT_AUDIENCE is required with JWT_ISSUER',
      );
    });

    it('when JWT_ALGORITHMS names none, an HMAC or an unknown algorithm, then each is named and refused', () => {
      expect(() => loadConfig({ JWT_ALGORITHMS: 'RS256,none,HS256' })).toThrow(
        /JWT_ALGORITHMS names "none", which is not allowed[\s\S]*JWT_ALGORITHMS names "HS256"/,
      );
    });

    it('when JWT_ISSUER is not an http(s) URL, then it is refused', () => {
      expect(() => loadConfig({ JWT_ISSUER: 'id.example.com', JWT_AUDIENCE: 'a' })).toThrow(
        'JWT_ISSUER must be an http or https URL, not "id.example.com"',
      );
    });

    it('when NODE_ENV is production and JWT is on without static tokens, then it starts, and no token is generated', () => {
      const config = loadConfig({
        NODE_ENV: 'production',
        JWT_ISSUER: 'https://id.example.com',
        JWT_AUDIENCE: 'a',
      });
      expect(config.tokens).toEqual([]);
      expect(config.generateToken).toBe(false);
      expect(loadConfig({ JWT_ISSUER: 'https://id.example.com', JWT_AUDIENCE: 'a' }).generateToken).toBe(
        false,
      );
    });
  });
});
