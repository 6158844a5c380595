import { createServer, type ServerOptions } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import {
  type HardenedServer,
  type HardeningLogger,
  type HardenServerOptions,
  hardenServer,
} from '../../src/index.ts';

export interface LogLine {
  readonly level: 'info' | 'warn';
  readonly fields: Record<string, unknown>;
  readonly message: string;
  /** performance.now() when it was said. */
  readonly at: number;
}

/** A logger that keeps its lines, and tells a test when the line it waits for comes. */
export interface CapturingLogger extends HardeningLogger {
  readonly lines: LogLine[];
  /** Resolves with the first line, said already or to come, whose message is `message`. */
  said(message: string): Promise<LogLine>;
}

export function capturingLogger(): CapturingLogger {
  const lines: LogLine[] = [];
  const waiting: { readonly message: string; readonly resolve: (line: LogLine) => void }[] = [];
  const say = (level: LogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    const line = { level, fields, message, at: performance.now() };
    lines.push(line);
    for (const waiter of waiting.filter((candidate) => candidate.message === message)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  };
  return {
    lines,
    info: say('info'),
    warn: say('warn'),
    said: (message) => {
      const line = lines.find((candidate) => candidate.message === message);
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve) => waiting.push({ message, resolve }));
    },
  };
}

export interface RunningApp {
  readonly port: number;
  readonly logger: CapturingLogger;
  readonly hardened: HardenedServer;
  /** Resolves with the server's side of the next connection it accepts (and does not drop). */
  nextConnection(): Promise<Socket>;
  close(): Promise<void>;
}

/** Serves a Koa app on 127.0.0.1, any free port, through hardenServer, as the README says to. */
export async function startHardened(
  app: Koa,
  options: Partial<HardenServerOptions> = {},
  serverOptions: ServerOptions = {},
): Promise<RunningApp> {
  const logger = capturingLogger();
  // requireHostHeader: false lets checkRequestHead answer a missing Host, as it does every other refusal.
  const server = createServer({ requireHostHeader: false, ...serverOptions });
  const hardened = hardenServer(server, app.callback(), { logger, ...options });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    logger,
    hardened,
    nextConnection: () => new Promise((resolve) => server.once('connection', resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
