import { request } from 'node:http';
import { connect } from 'node:net';
import { checkRawExchange, checkResponse } from './openapi-validator.ts';

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON. */
  json(): unknown;
}

export interface NodeRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string | number>;
  /** Written one after the other; none: no body is written. */
  readonly chunks?: readonly (string | Uint8Array)[];
  /** Leave the request unfinished after the chunks (the server must answer without the rest). */
  readonly keepOpen?: boolean;
}

/**
 * One request through node:http, for what fetch cannot send: raw bytes, chunked bodies, a
 * Content-Length that the body never fills. Resolves with the response as soon as it is complete.
 */
export function nodeRequest(port: number, options: NodeRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/plants',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          checkResponse({
            method: options.method ?? 'POST',
            path: options.path ?? '/plants',
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string | undefined>,
            body: text,
          });
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
          req.destroy();
        });
        res.on('error', reject);
      },
    );
    // Writing into a connection the server has closed after answering is expected here.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (const chunk of options.chunks ?? []) req.write(chunk);
    if (!options.keepOpen) req.end();
    else req.flushHeaders();
  });
}

/** Sends bytes on a fresh TCP connection and resolves with everything the server sent until it closed. */
export function rawExchange(port: number, data: string | Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      checkRawExchange(data, text);
      resolve(text);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.write(data);
  });
}

/** Status and JSON body of a raw HTTP/1.1 response text. */
export function parseRawResponse(text: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  return { status, headers: head, body: body === '' ? undefined : JSON.parse(body) };
}
