import { type Attributes, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { plantCreated } from '@plant-store/domain';
import {
  EMBEDDED_POSTGRES_TEST_TIMEOUT_MS,
  type InMemoryTracing,
  pgliteDataFolders,
  provideTestPostgres,
  randomPlantId,
  startInMemoryTracing,
  unsampledContext,
} from '@plant-store/test-support';
import { Kysely, PGliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openPglitePlantStorage } from './open-pglite-plant-storage.ts';
import { openPostgresPlantStorage } from './open-postgres-plant-storage.ts';
import { FIND_BY_ID, INSERT_PLANTS_AND_EVENTS } from './plant-statements.ts';
import { PooledPostgresDialect, pooledConnectionAttributes } from './pooled-postgres-dialect.ts';
import type { PostgresPlantRepositoryOptions } from './postgres-plant-repository.ts';
import type { SqlPlantStorage } from './sql-plant-storage.ts';
import { tracedDialect } from './traced-dialect.ts';

const server = await provideTestPostgres();
const tracing = startInMemoryTracing();
// Each PGlite storage on a data folder of its own, a copy of one initdb'd once for the file.
const folders = pgliteDataFolders();
afterAll(async () => {
  await tracing.stop();
  await server?.cleanup();
  await folders.cleanup();
});
beforeEach(() => tracing.reset());

type ReadableSpan = ReturnType<InMemoryTracing['spans']>[number];

interface Database {
  /** What every statement span says of where it ran. */
  readonly connection: Attributes;
  open(options?: PostgresPlantRepositoryOptions): Promise<SqlPlantStorage>;
  /** A Kysely of the same dialect, traced, for statements the storage never sends. */
  kysely(): Kysely<unknown>;
}

/** The one span of that name. */
function spanNamed(name: string): ReadableSpan {
  const found = tracing.spans().filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toStrictEqual([name]);
  return found[0] as ReadableSpan;
}

const childrenOf = (parent: ReadableSpan) =>
  tracing.spans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

function describeStatementSpans(name: string, database: Database): void {
  // Each test opens a storage of its own: on PGlite, a start of embedded PostgreSQL on a folder of its own.
  describe(`statement spans: ${name}`, { timeout: EMBEDDED_POSTGRES_TEST_TIMEOUT_MS }, () => {
    let storage: SqlPlantStorage | undefined;
    const open = async (options?: PostgresPlantRepositoryOptions): Promise<SqlPlantStorage> => {
      await storage?.close();
      storage = await database.open(options);
      return storage;
    };
    afterAll(async () => {
      await storage?.close();
    });

    it('when the storage opens (migrations) and reads outside any span, then no span is made', async () => {
      const opened = await open();
      await opened.plants.findById(randomPlantId());
      expect(tracing.spans()).toStrictEqual([]);
    });

    it('when a statement runs under a span that records nothing (unsampled), then no statement span is begun at all', async () => {
      const opened = await open({ groupCommit: false });
      const getTracer = vi.spyOn(trace, 'getTracer');
      try {
        await context.with(unsampledContext(), async () => {
          await opened.plants.findById(randomPlantId());
          await opened.plants.insertIfAbsent({ id: randomPlantId(), name: 'Fern' });
        });
        expect(getTracer).not.toHaveBeenCalled();
      } finally {
        getTracer.mockRestore();
      }
      expect(tracing.spans()).toStrictEqual([]);
    });

    it('when a statement runs under a span, then it is a CLIENT child of that span, named by its summary, with the database conventions and no parameter value', async () => {
      const opened = await open();
      tracing.reset();
      const id = randomPlantId();
      await tracing.withinSpan('request', () => opened.plants.findById(id));

      const request = spanNamed('request');
      const select = spanNamed('SELECT plants');
      expect(select.kind).toBe(SpanKind.CLIENT);
      expect(select.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(select.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(select.instrumentationScope).toMatchObject({
        name: '@plant-store/storage-postgres',
        version: '2.2.0',
      });
      expect(select.attributes).toStrictEqual({
        ...database.connection,
        'db.query.text': FIND_BY_ID.sql,
        'db.query.summary': 'SELECT plants',
        'db.operation.name': 'SELECT',
        'db.collection.name': 'plants',
      });
      expect(JSON.stringify(select.attributes)).not.toContain(id.toString());
      expect(select.status.code).toBe(SpanStatusCode.UNSET);
      expect(tracing.spans()).toHaveLength(2);
    });

    it('when concurrent creates under spans of their own form one batch, then one group commit span, a child of the first and linked to each, has their INSERT as its child', async () => {
      const opened = await open({ events: true });
      tracing.reset();
      const plants = Array.from({ length: 5 }, (_, i) => ({ id: randomPlantId(), name: `batched ${i}` }));
      // Made in one turn of the event loop: they join one batch.
      await Promise.all(
        plants.map((plant, index) =>
          tracing.withinSpan(`create ${index}`, () =>
            opened.plants.insertIfAbsent(plant, plantCreated(plant)),
          ),
        ),
      );

      const creates = plants.map((_, index) => spanNamed(`create ${index}`));
      const batch = spanNamed('group commit');
      expect(batch.kind).toBe(SpanKind.INTERNAL);
      expect(batch.parentSpanContext?.spanId).toBe(creates[0]?.spanContext().spanId);
      expect(batch.links.map((link) => link.context.spanId)).toStrictEqual(
        creates.map((create) => create.spanContext().spanId),
      );
      expect(batch.attributes['db.operation.batch.size']).toBe(5);

      const summary = 'INSERT plants SELECT INSERT plant_events SELECT inserted SELECT inserted';
      expect(childrenOf(batch).map((span) => span.name)).toStrictEqual([summary]);
      const insert = spanNamed(summary);
      expect(insert.kind).toBe(SpanKind.CLIENT);
      expect(insert.attributes).toStrictEqual({
        ...database.connection,
        'db.query.text': INSERT_PLANTS_AND_EVENTS.sql,
        'db.query.summary': summary,
      });
      for (const create of creates) expect(childrenOf(create).length).toBe(create === creates[0] ? 1 : 0);
    });

    it('when group commit is off, then a create makes no batch span: its INSERT is a child of the create', async () => {
      const opened = await open({ groupCommit: false });
      tracing.reset();
      await tracing.withinSpan('create', () =>
        opened.plants.insertIfAbsent({ id: randomPlantId(), name: 'alone' }),
      );
      expect(tracing.spans().map((span) => span.name)).toStrictEqual(['INSERT plants', 'create']);
      expect(spanNamed('INSERT plants').parentSpanContext?.spanId).toBe(
        spanNamed('create').spanContext().spanId,
      );
    });

    it('when a relay runs under a span, then BEGIN, its statements and COMMIT are its children, in order', async () => {
      const opened = await open({ events: true });
      const plant = { id: randomPlantId(), name: 'relayed' };
      await opened.plants.insertIfAbsent(plant, plantCreated(plant));
      tracing.reset();
      await tracing.withinSpan('relay', async () => opened.events?.relay(10, async () => {}));
      const relay = spanNamed('relay');
      const statements = childrenOf(relay);
      expect(statements.map((span) => span.name)).toStrictEqual([
        'BEGIN',
        'SELECT plant_events',
        'DELETE plant_events',
        'COMMIT',
      ]);
      for (const statement of statements) expect(statement.kind).toBe(SpanKind.CLIENT);
      expect(spanNamed('COMMIT').attributes).toStrictEqual({
        ...database.connection,
        'db.operation.name': 'COMMIT',
        'db.query.summary': 'COMMIT',
      });
    });

    it('when a statement fails, then its span is an error with the SQLSTATE as error.type and db.response.status_code', async () => {
      const db = database.kysely();
      try {
        await expect(
          tracing.withinSpan('request', () => sql`select 1 / 0`.execute(db)),
        ).rejects.toMatchObject({
          code: '22012',
        });
      } finally {
        await db.destroy();
      }
      const select = spanNamed('SELECT');
      expect(select.parentSpanContext?.spanId).toBe(spanNamed('request').spanContext().spanId);
      expect(select.status.code).toBe(SpanStatusCode.ERROR);
      expect(select.attributes).toMatchObject({
        'error.type': '22012',
        'db.response.status_code': '22012',
        'db.query.text': 'select 1 / 0',
      });
    });
  });
}

const pgliteAttributes = { 'db.system.name': 'postgresql', 'db.namespace': 'postgres' };
describeStatementSpans('PGlite', {
  connection: pgliteAttributes,
  open: async (options) => openPglitePlantStorage({ dataDir: await folders.next(), ...options }),
  kysely: () =>
    new Kysely({
      dialect: tracedDialect(
        new PGliteDialect({
          pglite: async () =>
            new (await import('@electric-sql/pglite')).PGlite({ dataDir: await folders.next() }),
        }),
        {
          connectionAttributes: () => pgliteAttributes,
        },
      ),
    }),
});

describe.skipIf(!server)('PostgreSQL server', () => {
  const connectionString = server?.connectionString ?? 'postgres://localhost/none';
  const url = new URL(connectionString);
  describeStatementSpans('PostgreSQL server', {
    connection: {
      'db.system.name': 'postgresql',
      'db.namespace': url.pathname.slice(1),
      'server.address': url.hostname,
      'server.port': Number(url.port || 5432),
    },
    open: (options) => openPostgresPlantStorage({ connectionString, ...options }),
    kysely: () =>
      new Kysely({
        dialect: tracedDialect(
          new PooledPostgresDialect({ pool: new pg.Pool({ connectionString, max: 1 }) }),
          {
            connectionAttributes: pooledConnectionAttributes,
          },
        ),
      }),
  });
});
