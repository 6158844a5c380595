// docs/examples/webhook-receiver.mjs, run as a reader runs it (node, with standardwebhooks installed
// beside it), receiving deliveries made by this package's own attempt, as the service makes them.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { eventually, newSecret } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery } from './attempt.ts';
import { parseWebhookSecrets } from './secrets.ts';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'docs', 'examples', 'webhook-receiver.mjs');
const BODY = '{"id":9007199254740993,"name":"Monstera","tag":"aroid"}';

interface Receiver {
  readonly child: ChildProcess;
  readonly url: string;
  stdout(): string;
  stderr(): string;
}

const folder = mkdtempSync(join(tmpdir(), 'webhook-receiver-example-'));
const running: ChildProcess[] = [];

/** Starts the example from a folder of its own, with standardwebhooks in its node_modules. */
async function startExample(env: NodeJS.ProcessEnv): Promise<Receiver> {
  const child = spawn(process.execPath, [join(folder, 'webhook-receiver.mjs')], {
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  await eventually(() => /listening on (\S+)/.test(out) || child.exitCode !== null, 'the example listens');
  const url = /listening on (\S+)/.exec(out)?.[1];
  if (url === undefined) throw new Error(`the example did not start: ${err}`);
  return { child, url, stdout: () => out, stderr: () => err };
}

beforeAll(() => {
  copyFileSync(EXAMPLE, join(folder, 'webhook-receiver.mjs'));
  // As after `npm install standardwebhooks` in the example's folder: the version this package tests with.
  const manifest = createRequire(import.meta.url).resolve('standardwebhooks/package.json');
  mkdirSync(join(folder, 'node_modules'));
  symlinkSync(dirname(manifest), join(folder, 'node_modules', 'standardwebhooks'), 'dir');
});

afterAll(() => {
  for (const child of running) child.kill();
  rmSync(folder, { recursive: true, force: true });
});

describe('the example webhook receiver, docs/examples/webhook-receiver.mjs', () => {
  const secret = newSecret();
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startExample({ WEBHOOK_SECRET: secret });
  });

  it('when a delivery signed with its secret arrives, then it answers 204 and prints the plant, its int64 id exact', async () => {
    const outcome = await attemptDelivery(
      { url: receiver.url, eventId: 'event-1', body: BODY },
      { keys: parseWebhookSecrets(secret), timeoutMs: 10_000 },
    );
    expect(outcome).toStrictEqual({ kind: 'delivered', status: 204 });
    await eventually(() => receiver.stdout().includes('(event event-1)'), 'the plant is printed');
    expect(receiver.stdout()).toContain('plant 9007199254740993 "Monstera" (event event-1)');
  });

  it('when the same event arrives again, then it answers 204 and handles it once', async () => {
    const again = await attemptDelivery(
      { url: receiver.url, eventId: 'event-1', body: BODY },
      { keys: parseWebhookSecrets(secret), timeoutMs: 10_000 },
    );
    expect(again).toStrictEqual({ kind: 'delivered', status: 204 });
    await eventually(() => receiver.stdout().includes('again event-1'), 'the repeat is noticed');
    expect(receiver.stdout().match(/\(event event-1\)/g)).toHaveLength(1);
  });

  it('when the service signs with a new secret and the old one while rotating, then the receiver verifies the one it knows', async () => {
    const outcome = await attemptDelivery(
      { url: receiver.url, eventId: 'event-2', body: BODY },
      { keys: parseWebhookSecrets(`${newSecret()} ${secret}`), timeoutMs: 10_000 },
    );
    expect(outcome).toStrictEqual({ kind: 'delivered', status: 204 });
  });

  it('when a delivery is signed with another secret, then it answers 401 and says no signature matched', async () => {
    const outcome = await attemptDelivery(
      { url: receiver.url, eventId: 'event-3', body: BODY },
      { keys: parseWebhookSecrets(newSecret()), timeoutMs: 10_000 },
    );
    expect(outcome).toMatchObject({ kind: 'failed', status: 401 });
    await eventually(() => receiver.stderr().includes('event-3'), 'the refusal is printed');
    expect(receiver.stderr()).toContain('refused event-3: No matching signature found');
  });

  it('when a rightly signed delivery is stamped more than 5 minutes ago, then it is refused as too old', async () => {
    const outcome = await attemptDelivery(
      { url: receiver.url, eventId: 'event-4', body: BODY },
      {
        keys: parseWebhookSecrets(secret),
        timeoutMs: 10_000,
        now: () => Math.floor(Date.now() / 1000) - 301,
      },
    );
    expect(outcome).toMatchObject({ kind: 'failed', status: 401 });
    await eventually(() => receiver.stderr().includes('event-4'), 'the refusal is printed');
    expect(receiver.stderr()).toContain('refused event-4: Message timestamp too old');
  });

  it('when the secret is given as a file, then it verifies with it', async () => {
    const file = join(folder, 'webhook-secret');
    writeFileSync(file, `${secret}\n`);
    const fromFile = await startExample({ WEBHOOK_SECRET_FILE: file });
    const outcome = await attemptDelivery(
      { url: fromFile.url, eventId: 'event-5', body: BODY },
      { keys: parseWebhookSecrets(secret), timeoutMs: 10_000 },
    );
    expect(outcome).toStrictEqual({ kind: 'delivered', status: 204 });
  });

  it('when no secret is given, then it exits 1 saying what to set', async () => {
    const child = spawn(process.execPath, [join(folder, 'webhook-receiver.mjs')], {
      env: { PATH: process.env.PATH, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const [code] = await once(child, 'close');
    expect(code).toBe(1);
    expect(err).toContain('Set WEBHOOK_SECRET (or WEBHOOK_SECRET_FILE)');
  });
});
