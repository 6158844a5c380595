import type { PlantStorage } from '@plant-store/domain';
import type { ConnectionPoolStats, SchemaRefusal, SqlPlantStorage } from '@plant-store/storage-postgres';
import type { WebhookConfig, WebhookDispatcher, WebhookObserver } from '@plant-store/webhooks';
import type { QueueDatabase } from '@plant-store/webhooks/pg-boss';
import { DEFAULT_PGLITE_DIR, pgliteFolder } from './pglite-folder.ts';

/** What the service asks of every adapter it opens. */
export interface StorageOptions {
  /** GROUP_COMMIT: concurrent creates share one INSERT where the adapter can (on), or each has its own (off). */
  readonly groupCommit: boolean;
  /** DATABASE_PREPARED_STATEMENTS: a server adapter prepares its frequent statements once per connection. */
  readonly preparedStatements: boolean;
  /** Record the event of each plant created (the webhook's outbox), and be ready to deliver them. */
  readonly events: boolean;
  /** `memory:` only: the most events its outbox holds (WEBHOOK_MEMORY_BACKLOG); a create past it is refused. */
  readonly maxEventsInMemory?: number | undefined;
}

/** Starts delivering the storage's events as webhooks, the way that suits the storage. */
export type StartWebhooks = (
  config: WebhookConfig,
  observer: WebhookObserver,
  onError: (error: unknown) => void,
) => Promise<WebhookDispatcher>;

/** A durable queue of webhook deliveries in the storage's own database, shared by every process on it. */
export interface WebhookQueue {
  readonly start: StartWebhooks;
  /** Puts every dead delivery back in the queue with a fresh schedule, whether a service runs or not; how many. */
  redeliverDead(): Promise<number>;
}

/** A storage as the service runs it: the port, and what its adapter adds to it. */
export interface OpenedStorage {
  readonly storage: PlantStorage;
  /** Its connection pool's figures, where it has a pool (/metrics). */
  readonly connectionPool?: (() => ConnectionPoolStats) | undefined;
  /** Where its events wait for delivery; absent, they wait in this process's memory (webhooks.ts). */
  readonly webhookQueue?: WebhookQueue | undefined;
  /** No other process may use it while this one has it open (an embedded folder). */
  readonly exclusive?: boolean;
}

/**
 * The storage cannot be used as it is, for a reason its operator must fix (its data folder is held
 * by another process or cannot be written, its database does not exist, refuses the user, has no TLS
 * or stores another encoding than UTF8): the start ends with this message, in one line.
 */
export class StorageRefusedError extends Error {
  override readonly name: string = 'StorageRefusedError';
}

/** The storage is held by another process (an embedded folder it has open): `held` says which. */
export class StorageInUseError extends StorageRefusedError {
  override readonly name: string = 'StorageInUseError';
  readonly held: string;

  constructor(held: Error, advice: string) {
    super(`${held.message}${advice}`, { cause: held });
    this.held = held.message;
  }
}

/**
 * Rethrows an adapter's refusal as a StorageRefusedError, its message followed by the advice that
 * `adviceFor` gives; an error it gives no advice for (undefined) passes unchanged, and one it throws
 * (a StorageInUseError) is thrown.
 */
function refusing(adviceFor: (error: unknown) => string | undefined): (error: unknown) => never {
  return (error) => {
    const advice = adviceFor(error);
    if (advice !== undefined) {
      throw new StorageRefusedError(`${(error as Error).message}${advice}`, { cause: error });
    }
    throw error;
  };
}

/** Why a DATABASE_URL is refused, worded to follow the variable's name. Never the URL: it may hold a password. */
export interface DatabaseUrlProblem {
  readonly problem: string;
}

export function isDatabaseUrlProblem(parsed: object): parsed is DatabaseUrlProblem {
  return 'problem' in parsed;
}

/** One adapter: the DATABASE_URL schemes it serves, what it reads from such a URL, how it opens. */
interface StorageAdapter<Settings extends object> {
  /** Lower case, with the colon: `postgres:`. Schemes are case-insensitive, as in any URL. */
  readonly schemes: readonly string[];
  /** What its URLs look like, for the message that refuses a URL no adapter serves. */
  readonly accepts: string;
  /** Its settings; a problem; or undefined when the URL is none of its own after all (`memory:x`). */
  parse(url: string): Settings | DatabaseUrlProblem | undefined;
  /**
   * Opens it, running its migrations. The adapter's package is imported here, when it is chosen:
   * a memory run never loads pg or PGlite.
   */
  open(settings: Settings, options: StorageOptions): Promise<OpenedStorage>;
}

/**
 * The queue of a storage on PostgreSQL or PGlite: pg-boss on that same database, imported only when
 * it is used.
 */
export function pgBossQueue(database: QueueDatabase, storage: SqlPlantStorage): WebhookQueue {
  return {
    async start(config, observer, onError) {
      const { startPgBossDispatcher } = await import('@plant-store/webhooks/pg-boss');
      return startPgBossDispatcher({
        database,
        storeSchema: storage.schema,
        outbox: storage.events,
        config,
        observer,
        onError,
      });
    },
    async redeliverDead() {
      const { redeliverDeadWebhooks } = await import('@plant-store/webhooks/pg-boss');
      return redeliverDeadWebhooks(database, storage.schema);
    },
  };
}

function adapter<Settings extends object>(entry: StorageAdapter<Settings>): StorageAdapter<Settings> {
  return entry;
}

/** DATABASE_URL when it is unset: embedded PostgreSQL in ./data, a store that needs no setup. */
export const DEFAULT_DATABASE_URL = `pglite:${DEFAULT_PGLITE_DIR}`;

// Off: one INSERT per create. On: the adapter's own defaults.
function groupCommitOption({ groupCommit }: StorageOptions): { groupCommit?: false } {
  return groupCommit ? {} : { groupCommit: false };
}

/** What to do about each refusal of the service's tables, after the database's words. */
const SCHEMA_ADVICE: Readonly<Record<SchemaRefusal, string>> = {
  'no schema':
    ": create it, or set DATABASE_URL's search_path (options=-c search_path=<schema>) to a schema that exists",
  'not permitted':
    ": grant DATABASE_URL's user CREATE on that schema, or set its search_path to a schema the user owns",
  'read-only':
    ': DATABASE_URL must name the primary server, not a standby, and a user or database not set to default_transaction_read_only',
  'newer version': ': run that version, or give this one a database (or schema) of its own',
};

function afterScheme(url: string): string {
  return url.slice(url.indexOf(':') + 1);
}

/** Every storage the service can run on, one entry per adapter. */
const ADAPTERS = {
  postgres: adapter<{ readonly connectionString: string }>({
    schemes: ['postgres:', 'postgresql:'],
    accepts: 'postgres://… or postgresql://… (a server)',
    parse(url) {
      if (!afterScheme(url).startsWith('//')) return undefined;
      return URL.canParse(url) ? { connectionString: url } : { problem: 'is not a valid postgres:// URL' };
    },
    async open({ connectionString }, options) {
      const { connectionRefusal, DatabaseEncodingError, openPostgresPlantStorage, SchemaRefusedError } =
        await import('@plant-store/storage-postgres');
      const storage = await openPostgresPlantStorage({
        connectionString,
        ...groupCommitOption(options),
        preparedStatements: options.preparedStatements,
        events: options.events,
      }).catch(
        refusing((error) => {
          if (error instanceof DatabaseEncodingError) return '';
          if (error instanceof SchemaRefusedError) return SCHEMA_ADVICE[error.reason];
          const refusal = connectionRefusal(error);
          if (refusal === 'no such database')
            return ': create it, or set DATABASE_URL to a database that exists';
          if (refusal === 'credentials refused') return ": check DATABASE_URL's user and password";
          if (refusal === 'no TLS') {
            return ': DATABASE_URL asks for TLS (sslmode, ssl): turn TLS on at the server, or set sslmode=disable where the network to it is private';
          }
          if (refusal === 'options refused') {
            return ": the server refuses a setting of DATABASE_URL's options (-c name=value): correct or remove it";
          }
          return undefined;
        }),
      );
      return {
        storage,
        connectionPool: () => storage.connectionPool(),
        // A job queue (pg-boss) on the same server: durable, shared by every replica.
        webhookQueue: pgBossQueue({ kind: 'postgres', connectionString }, storage),
      };
    },
  }),
  pglite: adapter<{ readonly dataDir: string }>({
    schemes: ['pglite:'],
    accepts: 'pglite:<dir> (embedded)',
    parse: (url) => pgliteFolder(afterScheme(url)),
    async open({ dataDir }, options) {
      const { DataFolderInUseError, DataFolderUnusableError, openPglitePlantStorage } = await import(
        '@plant-store/storage-postgres'
      );
      const storage = await openPglitePlantStorage({
        dataDir,
        ...groupCommitOption(options),
        events: options.events,
      }).catch(
        refusing((error) => {
          if (error instanceof DataFolderInUseError) {
            throw new StorageInUseError(
              error,
              ': one process at a time may use it; stop that one, or give this one a folder of its own (DATABASE_URL=pglite:<dir>)',
            );
          }
          if (error instanceof DataFolderUnusableError) {
            return ": set DATABASE_URL=pglite:<dir> to a folder this process may make and write, empty or PGlite's own";
          }
          return undefined;
        }),
      );
      return {
        storage,
        // The same job queue, in the embedded database: PGlite's one connection is shared with pg-boss.
        webhookQueue: pgBossQueue({ kind: 'pglite', pglite: storage.pglite }, storage),
        exclusive: true,
      };
    },
  }),
  memory: adapter<Record<never, never>>({
    schemes: ['memory:'],
    accepts: 'memory: (nothing kept)',
    parse: (url) => (afterScheme(url) === '' ? {} : undefined),
    async open(_settings, options) {
      const { openMemoryPlantStorage } = await import('@plant-store/storage-memory');
      const storage = openMemoryPlantStorage({
        events: options.events,
        maxWaitingEvents: options.maxEventsInMemory,
      });
      // DESIGN.md: with memory: storage, events live in memory only; no queue.
      return { storage };
    },
  }),
};

type SettingsOf = {
  [Kind in keyof typeof ADAPTERS]: (typeof ADAPTERS)[Kind] extends StorageAdapter<infer Settings>
    ? Settings
    : never;
};
type Kind = keyof SettingsOf;
// Typed per kind, so that an adapter is only ever opened with the settings its own parse made.
const ADAPTERS_BY_KIND: { readonly [K in Kind]: StorageAdapter<SettingsOf[K]> } = ADAPTERS;

/** Where plants are kept, as DATABASE_URL chose: the adapter's kind and its settings. */
export type DatabaseConfig = { [K in Kind]: { readonly kind: K } & SettingsOf[K] }[Kind];

const ADAPTER_BY_SCHEME = new Map(
  (Object.keys(ADAPTERS_BY_KIND) as Kind[]).flatMap((kind) =>
    ADAPTERS_BY_KIND[kind].schemes.map((scheme) => [scheme, kind] as const),
  ),
);

const ACCEPTED = [
  ...Object.values(ADAPTERS_BY_KIND).map((entry) => entry.accepts),
  `or unset (embedded, in ${DEFAULT_PGLITE_DIR})`,
].join(', ');

/** The storage a DATABASE_URL names, or why it names none. Loads no adapter. */
export function parseDatabaseUrl(url: string): DatabaseConfig | DatabaseUrlProblem {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
  const kind = scheme === undefined ? undefined : ADAPTER_BY_SCHEME.get(scheme);
  const parsed = kind === undefined ? undefined : ADAPTERS_BY_KIND[kind].parse(url);
  if (parsed === undefined) return { problem: `must be ${ACCEPTED}` };
  if (isDatabaseUrlProblem(parsed)) return parsed;
  // The settings are those kind's own parse made: TypeScript cannot follow that through the union.
  return { kind, ...parsed } as DatabaseConfig;
}

function openAs<K extends Kind>(
  kind: K,
  settings: SettingsOf[K],
  options: StorageOptions,
): Promise<OpenedStorage> {
  return ADAPTERS_BY_KIND[kind].open(settings, options);
}

/** Opens the storage DATABASE_URL chose, importing its adapter only now. */
export function openStorage(database: DatabaseConfig, options: StorageOptions): Promise<OpenedStorage> {
  return openAs(database.kind, database, options);
}
