import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP relay on 127.0.0.1 to a server (the database), which a test can cut, silence or freeze. */
export interface TcpRelay {
  readonly port: number;
  /** Listens again, on the same port, after stop(). */
  start(): Promise<void>;
  /** Drops every connection and stops listening: the server is gone. */
  stop(): Promise<void>;
  /** The connections open now stop carrying bytes either way, but stay open; new ones work. */
  silenceOpenConnections(): void;
  /**
   * Nothing is carried any more: open connections stay open and silent, new ones are accepted and
   * never answered. A frozen relay or host (SIGSTOP), as a client sees it.
   */
  freeze(): void;
  /** Bytes clients sent since their connection went silent, which the server never got. */
  heldBytes(): number;
}

interface Link {
  silent: boolean;
}

/** Starts a relay from a free port on 127.0.0.1 to host:port. */
export async function startTcpRelay(host: string, port: number): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const links = new Set<Link>();
  let relay: Server | undefined;
  let listenPort = 0;
  let frozen = false;
  let held = 0;

  const track = (socket: Socket): Socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  };

  const carry = (incoming: Socket): void => {
    track(incoming);
    const link: Link = { silent: frozen };
    links.add(link);
    incoming.on('close', () => links.delete(link));
    // A frozen relay opens nothing towards the server: the client waits for an answer that never comes.
    const outgoing = frozen ? undefined : track(connect(port, host));
    incoming.on('data', (chunk: Buffer) => {
      if (link.silent || outgoing === undefined) held += chunk.length;
      else outgoing.write(chunk);
    });
    if (outgoing === undefined) return;
    outgoing.on('data', (chunk: Buffer) => {
      if (!link.silent) incoming.write(chunk);
    });
    incoming.on('close', () => outgoing.destroy());
    outgoing.on('close', () => incoming.destroy());
  };

  const start = async (): Promise<void> => {
    relay = createServer(carry);
    relay.listen(listenPort, '127.0.0.1');
    await once(relay, 'listening');
    const address = relay.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    listenPort = address.port;
  };

  const silenceOpenConnections = (): void => {
    for (const link of links) link.silent = true;
  };

  await start();
  return {
    get port() {
      return listenPort;
    },
    start,
    async stop() {
      const closing = relay;
      relay = undefined;
      if (!closing) return;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => closing.close(resolve));
    },
    silenceOpenConnections,
    freeze() {
      frozen = true;
      silenceOpenConnections();
    },
    heldBytes: () => held,
  };
}
