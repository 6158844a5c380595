import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * HTTP/1.1 pipelining, made safe. Node parses the requests a client pipelines on one connection and
 * hands each to the app, possibly while an earlier one is still being answered; answers leave in
 * order. Two things go wrong there:
 *
 * - a request pipelined behind one answered with `Connection: close` would run (and store) though
 *   its answer can never be sent;
 * - bytes the parser refuses behind a valid request would be answered (400) before that request,
 *   whose own answer then never leaves: stored, yet told 400.
 *
 * So each connection takes turns: a request starts when the one before it on the same connection
 * has been answered, and not at all when the connection is closing by then, or once the parser
 * refused what followed. A refusal is answered after every request started before it.
 * One request per connection at a time costs nothing to a client that does not pipeline.
 *
 * Requests waiting for their turn have written nothing, so Node's own brake (it stops reading a
 * connection whose answers pile up unsent) never comes on: a client pipelining requests it never reads
 * the answers of would have them all parsed and queued here. So a connection is not read further while
 * MAX_WAITING of its requests wait, and again once half of them have had their turn. What is already
 * read is parsed whole: Node's parser takes one read (up to 64 KiB) at a time, and the pause comes
 * into effect after it. A connection thus holds at most MAX_WAITING requests, plus those one read
 * holds (about 3,600 of the smallest possible, 18 bytes each), whatever the client sends.
 */

/** How many requests of one connection may wait for their turn before it is not read further. */
export const MAX_WAITING = 32;

/** What the parser refused on a connection, as the answer it gets. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}

interface Connection {
  /** Requests handed over by Node and not yet answered (or given up): the running one and those waiting. */
  inFlight: number;
  /** Requests waiting for their turn, in order. */
  readonly waiting: Array<() => void>;
  /** Called once inFlight is 0. */
  readonly onIdle: Array<() => void>;
  refusal: Refusal | undefined;
  /** The running request while it reads its body: told when the rest can never come. */
  bodyReader: { readonly req: IncomingMessage; readonly onRefused: (refusal: Refusal) => void } | undefined;
  /** Reading was stopped here because too many requests wait (undefined: never; false: resumed since). */
  stopped: boolean | undefined;
  /** handOver is starting the next request: a turn that ends meanwhile leaves the next to it. */
  handingOver: boolean;
}

const connections = new WeakMap<Socket, Connection>();

function connectionOf(socket: Socket): Connection {
  let connection = connections.get(socket);
  if (connection === undefined) {
    const created: Connection = {
      inFlight: 0,
      waiting: [],
      onIdle: [],
      refusal: undefined,
      bodyReader: undefined,
      stopped: undefined,
      handingOver: false,
    };
    // Whatever still waits when the connection closes is given up (each waiting turn then ends).
    socket.once('close', () => {
      for (const start of created.waiting.splice(0)) start();
    });
    connections.set(socket, created);
    connection = created;
  }
  return connection;
}

/**
 * Stops reading the connection until resumeReading. Node resumes a socket itself (after each request
 * parsed, when its own answers drain, when a body is read), each time through `resume()`: whichever
 * resumes it while requests wait here, it is paused again before anything is read.
 */
function stopReading(socket: Socket, connection: Connection): void {
  if (connection.stopped === undefined) {
    socket.on('resume', () => {
      if (connection.stopped) socket.pause();
    });
  }
  connection.stopped = true;
  socket.pause();
}

/** Reads the connection again, unless Node holds it paused for answers that have not drained. */
function resumeReading(socket: Socket, connection: Connection): void {
  connection.stopped = false;
  socket.resume();
}

/**
 * Once no request runs on the connection, starts the next one waiting. A turn given up (the connection
 * is closing) ends at once and the next is taken here, in a loop: a recursion as deep as the queue
 * would exhaust the stack when thousands wait behind an answer that closes the connection.
 */
function handOver(socket: Socket, connection: Connection): void {
  if (connection.handingOver) return;
  connection.handingOver = true;
  while (connection.inFlight === connection.waiting.length) {
    const next = connection.waiting.shift();
    if (next === undefined) break;
    if (connection.stopped && connection.waiting.length <= MAX_WAITING / 2 && !socket.destroyed)
      resumeReading(socket, connection);
    next();
  }
  connection.handingOver = false;
  if (connection.inFlight === 0) for (const idle of connection.onIdle.splice(0)) idle();
}

function isClosing(socket: Socket, connection: Connection): boolean {
  return connection.refusal !== undefined || socket.destroyed || socket.writableEnded;
}

/** Wraps the app's request listener so that requests on one connection run one after the other. */
export function inConnectionTurns(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const connection = connectionOf(socket);
    connection.inFlight += 1;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      connection.inFlight -= 1;
      handOver(socket, connection);
    };
    // 'close' comes once the answer is sent, or the connection is gone.
    res.once('close', end);
    // Never run what cannot be answered: the client learns from the closed connection that this
    // request was not answered, so it was not executed either. (Node may hand over the request
    // after the previous answer was written, with `Connection: close`: then it is refused here.)
    const take = (): void => {
      if (isClosing(socket, connection)) end();
      else listener(req, res);
    };
    if (connection.inFlight === 1) take();
    else if (connection.waiting.push(take) >= MAX_WAITING && !connection.stopped)
      stopReading(socket, connection);
  };
}

/**
 * Whether the connection still owes answers to requests it was handed, none of them reading its body:
 * then a request behind them that Node calls timed out was held unread by the service itself (its turns,
 * or Node's own brake while answers pile up unsent), not kept waiting by the client.
 */
export function isHeldByTurns(socket: Socket): boolean {
  const connection = connections.get(socket);
  if (connection === undefined || connection.inFlight === 0) return false;
  return connection.bodyReader === undefined || connection.bodyReader.req.complete;
}

/**
 * Records that the parser refused the bytes after the requests already handed over, and calls
 * `answer` once they are answered (at once when there are none). A request still reading its
 * body gets the refusal as its own answer instead, so `answer` receives whether one did.
 * Returns false when the connection had already been refused (Node reports a broken parser on
 * every later chunk): nothing more to do.
 */
export function refuseAfterTurns(
  socket: Socket,
  refusal: Refusal,
  answer: (answeredByRequest: boolean) => void,
): boolean {
  const connection = connectionOf(socket);
  if (connection.refusal !== undefined) return false;
  connection.refusal = refusal;
  // A body already complete is not cut off: the refused bytes came after it.
  const reader = connection.bodyReader;
  const answeredByRequest = reader !== undefined && !reader.req.complete;
  if (answeredByRequest) reader.onRefused(refusal);
  if (connection.inFlight === 0) answer(answeredByRequest);
  else connection.onIdle.push(() => answer(answeredByRequest));
  return true;
}

/**
 * For the request reading its body: `onRefused` is called if the parser refuses the connection
 * (a malformed chunk, the request timeout) before the body is complete. Returns the function that
 * stops listening, to call once the body is read.
 */
export function whileReadingBody(req: IncomingMessage, onRefused: (refusal: Refusal) => void): () => void {
  const connection = connectionOf(req.socket);
  if (connection.refusal !== undefined && !req.complete) {
    // Refused before this request began to read: the rest of its body will never be parsed.
    onRefused(connection.refusal);
    return () => {};
  }
  const reader = { req, onRefused };
  connection.bodyReader = reader;
  return () => {
    if (connection.bodyReader === reader) connection.bodyReader = undefined;
  };
}
