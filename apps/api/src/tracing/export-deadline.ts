// The exporter's own timeout (its http transport's `req.setTimeout`) is an idle-socket one: a collector
// that answers 200 and then a byte a second keeps an export going for ever, and the batch processor,
// once it stops waiting, opens another connection beside it. Here each export has a deadline, its
// retries included, and the agent the exporter is given cuts any connection still in use by then.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type ClientRequest, type ClientRequestArgs, Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** When the export under way must end (performance.now()), for the sockets it opens or reuses. */
const deadlines = new AsyncLocalStorage<number>();

/** The export gave up at its deadline: what the log says of it. */
export class ExportDeadlineError extends Error {
  override readonly name = 'ExportDeadlineError';
}

/** `exporter`, each of whose exports (retries included) is given `timeoutMs` from its start. */
export function withExportDeadline(exporter: SpanExporter, timeoutMs: number): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
      deadlines.run(performance.now() + timeoutMs, () => exporter.export(spans, done)),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

type AgentClass = new (options: HttpsAgentOptions) => HttpAgent;

/**
 * An agent class whose sockets are destroyed at the deadline of the export using them: armed when a
 * socket is made or taken from the pool for a request, disarmed when it goes back to the pool.
 * `timeoutMs` stands in for a request made outside an export (none is).
 */
function cutAtDeadline(Base: AgentClass, timeoutMs: number): AgentClass {
  const timers = new WeakMap<Duplex, NodeJS.Timeout>();
  const disarm = (socket: Duplex) => {
    clearTimeout(timers.get(socket));
    timers.delete(socket);
  };
  const arm = (socket: Duplex) => {
    disarm(socket);
    const deadline = deadlines.getStore() ?? performance.now() + timeoutMs;
    const timer = setTimeout(
      () => socket.destroy(new ExportDeadlineError(`the export did not end within ${timeoutMs} ms`)),
      Math.max(0, deadline - performance.now()),
    );
    timer.unref();
    timers.set(socket, timer);
  };
  return class extends Base {
    override createConnection(
      options: ClientRequestArgs,
      callback?: (error: Error | null, socket: Duplex) => void,
    ): Duplex | null | undefined {
      const socket = super.createConnection(options, callback);
      if (socket) {
        arm(socket);
        socket.once('close', () => disarm(socket));
      }
      return socket;
    }

    override reuseSocket(socket: Duplex, request: ClientRequest): void {
      arm(socket);
      super.reuseSocket(socket, request);
    }

    // Node's types say void; Node uses the answer (true: keep the socket, false: destroy it).
    override keepSocketAlive(socket: Duplex): boolean {
      disarm(socket);
      return super.keepSocketAlive(socket) as unknown as boolean;
    }
  };
}

/**
 * The exporter's `httpAgentOptions` factory: a keep-alive agent for the endpoint's protocol (with the
 * TLS files for https) whose connections end at their export's deadline.
 */
export function deadlineAgentFactory(
  timeoutMs: number,
  tls: Pick<HttpsAgentOptions, 'ca' | 'cert' | 'key'>,
): (protocol: string) => HttpAgent {
  const HttpClass = cutAtDeadline(HttpAgent, timeoutMs);
  const HttpsClass = cutAtDeadline(HttpsAgent, timeoutMs);
  return (protocol) =>
    protocol === 'https:' ? new HttpsClass({ keepAlive: true, ...tls }) : new HttpClass({ keepAlive: true });
}
