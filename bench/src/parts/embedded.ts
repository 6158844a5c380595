// The embedded default (PGlite in ./data) against "node:http + PGlite": the same insert through
// PGlite's public API, without the service's features. json-server, which keeps its plants in one
// JSON file, stays beside them as a reference, with no target.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Context,
  freshPlant,
  type Part,
  plantBody,
  runGroup,
  type Side,
  selected,
  serverEnv,
  serverSide,
  startBaseline,
  startNode,
  startService,
  tempDir,
} from '../harness.ts';

// json-server reads ids as doubles and refuses a second plant of an equal double: small ids of its own.
let nextSafeId = 0;

async function run(context: Context) {
  const want = (key: string) => selected(context, 'on-pglite', key);
  const traffic = { token: context.token, body: freshPlant };
  const sides: Side[] = [];
  if (want('json-server')) {
    const dir = tempDir('json-server');
    writeFileSync(join(dir, 'db.json'), '{ "plants": [] }\n');
    const bin = join(context.root, 'bench', 'node_modules', 'json-server', 'lib', 'cli', 'bin.js');
    sides.push(
      serverSide(context, {
        key: 'json-server',
        label: 'reference: json-server',
        launch: async (run) => {
          run.notes.push(
            'json-server 0.17 rewrites its one JSON file on each create, so it slows as the file grows',
          );
          return startNode(
            'json-server',
            (port) => [bin, '--quiet', '--host', '127.0.0.1', '--port', String(port), 'db.json'],
            serverEnv(context),
            {
              cwd: dir,
              readyPath: '/plants',
            },
          );
        },
        traffic: { token: context.token, body: () => plantBody(++nextSafeId) },
      }),
    );
  }
  if (want('pglite'))
    sides.push(
      serverSide(context, {
        key: 'pglite',
        label: 'baseline: node:http + PGlite',
        launch: () =>
          startBaseline(context, 'node:http + PGlite', 'node-http.ts', [
            '--store',
            'pglite',
            '--url',
            join(tempDir('pglite'), 'data'),
          ]),
        traffic,
      }),
    );
  if (want('embedded'))
    sides.push(
      serverSide(context, {
        key: 'embedded',
        label: 'service, embedded PGlite',
        baselines: ['pglite', 'json-server'],
        // As a user starts it: DATABASE_URL unset, PGlite in ./data of the working folder.
        launch: () => startService(context, 'service (embedded)', {}, { cwd: tempDir('embedded') }),
        traffic,
      }),
    );
  return runGroup(context, sides);
}

export const embeddedPart: Part = {
  name: 'on-pglite',
  keys: ['json-server', 'pglite', 'embedded'],
  usesPostgres: false,
  run,
};
