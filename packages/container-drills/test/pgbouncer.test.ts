// The PostgreSQL adapter's storage contract suite, run through PgBouncer in transaction mode: each
// transaction may run on another server connection, so nothing the adapter does may depend on session
// state (named prepared statements, session advisory locks, SET). Debian's PgBouncer (1.18) does not
// carry named statements between server connections: the suite runs with the adapter's
// `preparedStatements: false` (the service's DATABASE_PREPARED_STATEMENTS=off). The adapter's fault tests are not
// run here: they stop and cut the server behind the pooler, and choose a statement_timeout per client.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DRILL_LABEL, docker, REPO_ROOT, removeAll, uniqueName } from '../src/docker.ts';
import { drillsCanRun } from '../src/engine.ts';
import { recordFigure } from '../src/figures.ts';
import { imageFor, PGBOUNCER, POSTGRES } from '../src/images.ts';

const runs = await drillsCanRun('The PgBouncer drill', { images: [POSTGRES, PGBOUNCER] });

/** What this drill reads of vitest's JSON report. */
interface JsonReport {
  readonly testResults: readonly {
    readonly assertionResults: readonly {
      ancestorTitles: readonly string[];
      title: string;
      status: string;
    }[];
  }[];
}

/** The contract suites run here: the adapter's two batch configurations, without named statements. */
const SUITES = 'PlantRepository contract: PostgreSQL server, without prepared statements';

/** PgBouncer's pool of server connections for the one database: the server sees at most this many. */
const POOL_SIZE = 10;

/** A plain environment for the nested run: vitest's own variables must not reach it. */
function outsideVitest(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'LANG', 'NODE_EXTRA_CA_CERTS', 'NO_COLOR'];
  return Object.fromEntries(
    keep.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]),
  );
}

describe.skipIf(!runs)('the PostgreSQL adapter through PgBouncer in transaction mode', () => {
  const network = uniqueName('net');
  const postgres = uniqueName('postgres');
  const pgbouncer = uniqueName('pgbouncer');
  const config = mkdtempSync(join(tmpdir(), 'plant-store-pgbouncer-'));
  let url = '';

  beforeAll(async () => {
    const postgresImage = await imageFor(POSTGRES);
    const pgbouncerImage = await imageFor(PGBOUNCER);
    await docker(['network', 'create', '--label', DRILL_LABEL, network]);
    await docker([
      'run',
      '--detach',
      '--name',
      postgres,
      '--label',
      DRILL_LABEL,
      '--network',
      network,
      '--network-alias',
      'postgres',
      '--env',
      'POSTGRES_USER=plants',
      '--env',
      'POSTGRES_PASSWORD=plants',
      '--env',
      'POSTGRES_DB=plants',
      postgresImage,
    ]);
    for (;;) {
      const ready = await docker([
        'exec',
        postgres,
        'pg_isready',
        '-h',
        '127.0.0.1',
        '-U',
        'plants',
        '-d',
        'plants',
      ]).then(
        () => true,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The adapter sends statement_timeout as a startup parameter, which PgBouncer refuses ("unsupported
    // startup parameter"): it is told to ignore it, and the server applies the adapter's default itself.
    await docker([
      'exec',
      postgres,
      'psql',
      '-U',
      'plants',
      '-d',
      'plants',
      '-qc',
      "alter role plants set statement_timeout = '10s'",
    ]);
    // The harness gives each run a schema through the `options` startup parameter (search_path);
    // PgBouncer cannot pass it on to pooled connections, so it ignores it, and this run's tables go
    // into the public schema of a database made for this drill alone.
    writeFileSync(
      join(config, 'pgbouncer.ini'),
      [
        '[databases]',
        'plants = host=postgres port=5432 dbname=plants',
        '[pgbouncer]',
        'listen_addr = 0.0.0.0',
        'listen_port = 6432',
        'auth_type = scram-sha-256',
        'auth_file = /etc/pgbouncer/userlist.txt',
        'pool_mode = transaction',
        `default_pool_size = ${POOL_SIZE}`,
        'max_client_conn = 500',
        'ignore_startup_parameters = extra_float_digits,options,statement_timeout',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    writeFileSync(join(config, 'userlist.txt'), '"plants" "plants"\n', { mode: 0o644 });
    chmodSync(config, 0o755); // mounted as PgBouncer's /etc/pgbouncer: it runs as the user postgres
    await docker([
      'run',
      '--detach',
      '--name',
      pgbouncer,
      '--label',
      DRILL_LABEL,
      '--network',
      network,
      '--publish',
      '127.0.0.1::6432',
      '--volume',
      `${config}:/etc/pgbouncer:ro`,
      pgbouncerImage,
    ]);
    const binding = (await docker(['port', pgbouncer, '6432/tcp'])).split('\n')[0] ?? '';
    url = `postgres://plants:plants@${binding}/plants`;
  });

  afterAll(async () => {
    await removeAll([pgbouncer, postgres]);
    await docker(['network', 'rm', network]).catch(() => {});
    rmSync(config, { recursive: true, force: true });
  });

  test('the storage contract suite passes through it without prepared statements, on both of its batch configurations', async () => {
    const reportFile = join(config, 'report.json');
    const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        'pnpm',
        [
          'exec',
          'vitest',
          'run',
          'src/postgres-plant-repository.test.ts',
          `--testNamePattern=${SUITES}`,
          '--reporter=json',
          `--outputFile=${reportFile}`,
        ],
        {
          cwd: join(REPO_ROOT, 'packages', 'storage-postgres'),
          env: { ...outsideVitest(), NO_COLOR: '1', TEST_DATABASE_URL: url },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
    const contract = report.testResults.flatMap((file) =>
      file.assertionResults.filter((result) =>
        result.ancestorTitles.some((title) => title.startsWith(SUITES)),
      ),
    );
    const passed = contract.filter((result) => result.status === 'passed').length;
    recordFigure('PgBouncer (transaction mode): contract tests passed', passed);
    recordFigure('PgBouncer (transaction mode): contract tests not passed', contract.length - passed);
    expect(contract.filter((result) => result.status !== 'passed').map((result) => result.title)).toEqual([]);
    expect(passed).toBeGreaterThan(100);
    expect(outcome.code, outcome.output.slice(0, 6000)).toBe(0);
  });
});
