import { connect, type Socket } from 'node:net';

export interface Answer {
  readonly status: number;
  readonly head: string;
  readonly text: string;
}

/** Every response in what a server sent, in order, each framed by its Content-Length (none: no body). */
export function answersIn(bytes: Buffer): Answer[] {
  const answers: Answer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`an incomplete response head: ${JSON.stringify(rest.toString('latin1'))}`);
    const head = rest.subarray(0, end).toString('latin1');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    answers.push({ status, head, text: rest.subarray(end + 4, end + 4 + length).toString('utf8') });
    rest = rest.subarray(end + 4 + length);
  }
  return answers;
}

/** A raw TCP client: what it sends is written as given, and what comes back is kept. */
export interface RawConnection {
  readonly socket: Socket;
  /** Everything the server sent so far. */
  received(): Buffer;
  /** Resolves once what the server sent holds `text`. */
  receivedText(text: string): Promise<void>;
  /** Resolves with every answer once the server has closed the connection. */
  closed(): Promise<Answer[]>;
}

export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const waiting: { readonly text: string; readonly resolve: () => void }[] = [];
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    const sent = Buffer.concat(chunks).toString('latin1');
    for (const waiter of waiting.filter((candidate) => sent.includes(candidate.text))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  let failure: Error | undefined;
  // The server closes connections it refuses while the client may still be writing.
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') failure = error;
  });
  const closed = new Promise<void>((resolve, reject) =>
    socket.once('close', () => (failure === undefined ? resolve() : reject(failure))),
  );
  await new Promise((resolve) => socket.once('connect', resolve));
  return {
    socket,
    received: () => Buffer.concat(chunks),
    receivedText: (text) => {
      if (Buffer.concat(chunks).toString('latin1').includes(text)) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ text, resolve }));
    },
    closed: async () => {
      await closed;
      return answersIn(Buffer.concat(chunks));
    },
  };
}

/** Sends the bytes on a fresh connection and resolves with every answer once the server closes it. */
export async function exchange(port: number, bytes: string): Promise<Answer[]> {
  const connection = await rawConnection(port);
  connection.socket.write(bytes);
  return connection.closed();
}
