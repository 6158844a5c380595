// `pnpm dev:issuer` as docs/jwt.md's "Try it locally" uses it: the script started as a process of its
// own, the service started with the settings it prints, and the token it prints, and those of the curl
// lines it prints, taken by that service.
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@plant-store/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from '../support/expect-error.ts';
import { killLeftoverRuns, listeningUrl, runMain } from '../support/run-main.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'dev-issuer.ts');

const issuer = spawn(process.execPath, [SCRIPT], {
  env: { PATH: process.env.PATH, DEV_ISSUER_PORT: '0' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let printed = '';
let errors = '';
issuer.stdout.on('data', (chunk: Buffer) => {
  printed += chunk.toString('utf8');
});
issuer.stderr.on('data', (chunk: Buffer) => {
  errors += chunk.toString('utf8');
});
const issuerExited = new Promise<number | null>((resolve) => issuer.on('exit', resolve));

/** The one printed line that `pattern` matches, its groups. */
function printedLine(pattern: RegExp): RegExpExecArray {
  const match = pattern.exec(printed);
  if (match === null) throw new Error(`dev:issuer printed no line like ${pattern}:\n${printed}`);
  return match;
}

let serviceUrl: string;
let settings: { JWT_ISSUER: string; JWT_AUDIENCE: string };

beforeAll(async () => {
  // The block ends with the reader's curl line.
  await eventually(
    () => issuer.exitCode !== null || /client_id=plant-reader.*\n\n/.test(printed),
    'dev:issuer printed its settings',
  );
  expect(issuer.exitCode, errors).toBeNull();
  const [, jwtIssuer = '', audience = ''] = printedLine(
    /^ {3}JWT_ISSUER=(\S+) JWT_AUDIENCE=(\S+) pnpm start$/m,
  );
  settings = { JWT_ISSUER: jwtIssuer, JWT_AUDIENCE: audience };
  const run = runMain({ ...settings, DATABASE_URL: 'memory:', PORT: '0' });
  serviceUrl = await listeningUrl(run);
  // Ready once it has the issuer's keys, fetched through its discovery document.
  await eventually(
    async () => (await fetch(`${serviceUrl}/readyz`)).status === 200,
    "the service loaded the issuer's keys",
  );
}, 120_000);

afterAll(async () => {
  killLeftoverRuns();
  issuer.kill('SIGINT');
  await issuerExited;
});

const list = (token: string) =>
  fetch(`${serviceUrl}/plants`, { headers: { Authorization: `Bearer ${token}` } });
const create = (token: string, id: number) =>
  fetch(`${serviceUrl}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id, name: 'Calathea' }),
  });

/** Runs a printed curl line as a shell would, and takes the access_token of its answer. */
async function tokenFromCurl(client: string): Promise<string> {
  const [line = ''] = printedLine(new RegExp(`^ {3}curl .*client_id=${client} .*$`, 'm'));
  const { stdout } = await promisify(execFile)('/bin/sh', ['-c', line.trim()]);
  const answer = JSON.parse(stdout) as { access_token?: string; token_type?: string };
  expect(answer.token_type).toBe('Bearer');
  return answer.access_token ?? '';
}

describe('pnpm dev:issuer, a local OpenID Connect provider', () => {
  it('when it starts, then it prints JWT_ISSUER (its own address) and JWT_AUDIENCE to start the service with, and nothing on stderr', () => {
    expect(settings.JWT_ISSUER).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(settings.JWT_AUDIENCE).toBe('plant-store');
    expect(errors).toBe('');
  });

  it('when the service started with those settings is sent the printed token, then GET /plants is 200 and a create too', async () => {
    const [, token = ''] = printedLine(/^ {3}TOKEN=(\S+)$/m);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    expect(claims).toMatchObject({
      iss: settings.JWT_ISSUER,
      aud: 'plant-store',
      scope: 'plants:read plants:write',
    });
    expect((await list(token)).status).toBe(200);
    expect((await create(token, 1)).status).toBe(200);
  });

  it('when a token is taken with the printed curl (client credentials), then the service takes it too', async () => {
    const token = await tokenFromCurl('plant-importer');
    expect((await list(token)).status).toBe(200);
    expect((await create(token, 2)).status).toBe(200);
  });

  it("when a token is taken with the reader's printed curl, then it lists, and a create is a 403", async () => {
    const token = await tokenFromCurl('plant-reader');
    expect((await list(token)).status).toBe(200);
    await expectErrorResponse(await create(token, 3), 403);
  });

  it('when it is sent Ctrl-C (SIGINT), then it stops and exits 0', async () => {
    issuer.kill('SIGINT');
    expect(await issuerExited).toBe(0);
  });
});
