// The publishable packages as a new user gets them. Each is packed as its publisher would (`npm pack`,
// and `pnpm pack`), read, installed by npm from the tarballs in a fresh project outside the workspace,
// type-checked there with TypeScript 5 (nodenext, strict), and run on Node 24; Node 20 is below their
// one engines range, and the client refuses to load there.
// Network: only the npm registry, for the packages' dependencies (npm's cache first).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNode, warnDidNotRun } from '@plant-store/test-support';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumerProject, userEnvironment } from '../src/consumer-project.ts';
import { engineProblems } from '../src/engine-checks.ts';
import { PACKERS, type PackedPackage, type Packer, pack } from '../src/pack.ts';
import { type CommandResult, describeRun, runCommand } from '../src/run-command.ts';
import { fileProblems, importProblems, manifestProblems } from '../src/tarball-checks.ts';
import { loadTypeScript5, type TypeScript5 } from '../src/typescript-5.ts';
import {
  manifestForUsers,
  publishablePackages,
  readManifest,
  runtimeDependencies,
  workspacePackages,
} from '../src/workspace.ts';

const NODE_20 = findNode(20);
// CI has Debian's Node 20 beside the workspace's Node 24, so there a missing one fails the run.
if (NODE_20 === undefined) {
  if (process.env.CI) throw new Error('no Node.js 20 on this machine (PATH, /usr/local/bin, /usr/bin)');
  warnDidNotRun('The packed packages on Node 20', 'no Node.js 20 on PATH, in /usr/local/bin or /usr/bin');
}
const NODE_20_VERSION =
  NODE_20 && spawnSync(NODE_20, ['--version'], { encoding: 'utf8' }).stdout.trim().slice(1);

const packages = publishablePackages();
const names = packages.map(({ manifest }) => manifest.name);
const work = mkdtempSync(join(tmpdir(), 'plant-store-tarballs-'));
const builtBefore = new Set(
  packages.filter(({ dir }) => existsSync(join(dir, 'dist'))).map(({ dir }) => dir),
);
const packed: Record<Packer, PackedPackage[]> = { npm: [], pnpm: [] };

beforeAll(async () => {
  // One packer after the other (both build into dist/), each on every package at once.
  for (const packer of PACKERS)
    packed[packer] = await Promise.all(
      packages.map((pkg) => {
        // As on a fresh clone: what goes into the tarball is the packer's own build, never an older one.
        rmSync(join(pkg.dir, 'dist'), { recursive: true, force: true });
        return pack(pkg, packer, work);
      }),
    );
});

afterAll(() => {
  // The builds are left where they were before (a fresh one), and only there.
  for (const { dir } of packages)
    if (!builtBefore.has(dir)) rmSync(join(dir, 'dist'), { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('the publishable packages', () => {
  it('when the workspace is read, then they are the domain, both storage adapters, the client and the HTTP hardening, each tried below', () => {
    expect([...names].sort()).toEqual([
      '@plant-store/client',
      '@plant-store/domain',
      '@plant-store/http-hardening',
      '@plant-store/storage-memory',
      '@plant-store/storage-postgres',
    ]);
  });

  it('when their manifests are read, then every one says the same engines.node, and its README says it', () => {
    const ranges = packages.map(({ manifest }) => manifest.engines?.node);
    expect(new Set(ranges)).toStrictEqual(new Set([ENGINES_NODE]));
    for (const { dir, manifest } of packages)
      expect(readFileSync(join(dir, 'README.md'), 'utf8'), manifest.name).toContain(
        `\`engines.node\` \`${ENGINES_NODE}\``,
      );
  });

  it("when the workspace is installed, then a package's dependency on another is the workspace's own, never the registry's", () => {
    const byName = new Map(workspacePackages().map(({ dir, manifest }) => [manifest.name, dir]));
    const links = packages.flatMap(({ dir, manifest }) =>
      Object.keys(runtimeDependencies(manifest))
        .filter((name) => byName.has(name))
        .map((name) => ({
          from: manifest.name,
          name,
          installed: realpathSync(join(dir, 'node_modules', name)),
          workspace: byName.get(name),
        })),
    );
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link.installed, `${link.from} -> ${link.name}`).toBe(link.workspace);
  });

  it('when packed by npm and by pnpm, then the tarballs hold the same files, and manifests that agree on what users get', () => {
    for (const [index, fromNpm] of packed.npm.entries()) {
      const fromPnpm = packed.pnpm[index] as PackedPackage;
      expect(fromPnpm.files, fromNpm.name).toEqual(fromNpm.files);
      for (const file of fromNpm.files.filter((name) => name !== 'package.json'))
        expect(
          readFileSync(join(fromPnpm.contents, file)).equals(readFileSync(join(fromNpm.contents, file))),
          file,
        ).toBe(true);
      // Scripts and devDependencies aside: pnpm drops prepack and writes workspace: as versions there.
      expect(manifestForUsers(fromPnpm.contents), fromNpm.name).toEqual(manifestForUsers(fromNpm.contents));
    }
  });
});

describe.each(PACKERS)('packed with %s pack', (packer) => {
  const tarballs = () => packed[packer];

  it('then each tarball holds the build, its sources, README and LICENSE, and no test', () => {
    for (const tarball of tarballs()) expect(fileProblems(tarball), tarball.name).toEqual([]);
  });

  it('then every export reaches built JavaScript and declarations, and every dependency is a version range', () => {
    for (const tarball of tarballs()) expect(manifestProblems(tarball), tarball.name).toEqual([]);
  });

  describe('installed by npm in a fresh project outside the workspace', () => {
    const project = join(work, `consumer-${packer}`);
    let typescript: TypeScript5;
    let compileErrors: string;

    beforeAll(async () => {
      await createConsumerProject(
        project,
        tarballs().map(({ tarball }) => tarball),
      );
      typescript = loadTypeScript5(project);
      compileErrors = typescript.compile(project, names);
    });

    /** Runs one of the consumer's compiled scripts on the given Node binary. */
    const run = (node: string, script: string): Promise<CommandResult> =>
      runCommand(node, [join('out', `${script}.js`)], { cwd: project, env: userEnvironment() });
    /** The JSON line a consumer script printed, or a failure that shows everything it printed. */
    const outputOf = (node: string, script: string, result: CommandResult): unknown => {
      if (result.status !== 0) throw new Error(describeRun(node, [`out/${script}.js`], project, result));
      return JSON.parse(result.stdout);
    };

    it('then each @plant-store package is its tarball, installed once', () => {
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { resolved?: string }>;
      };
      const installed = Object.entries(lock.packages).filter(([folder]) =>
        folder.includes('node_modules/@plant-store/'),
      );
      expect(Object.fromEntries(installed.map(([folder, { resolved }]) => [folder, resolved]))).toEqual(
        Object.fromEntries(
          tarballs().map(({ name, tarball }) => [
            `node_modules/${name}`,
            expect.stringMatching(new RegExp(`${tarball.split('/').at(-1)}$`)),
          ]),
        ),
      );
    });

    it('then no packed file imports a devDependency, or anything else its users do not install', () => {
      for (const tarball of tarballs()) expect(importProblems(tarball, typescript), tarball.name).toEqual([]);
    });

    it('then that check names a file that imports a devDependency, as dist/testing.js once did', () => {
      // The defect the check is for, rebuilt: a helper for tests shipped beside the adapter.
      const contents = join(project, 'fake-package');
      mkdirSync(join(contents, 'dist'), { recursive: true });
      writeFileSync(
        join(contents, 'package.json'),
        JSON.stringify({
          name: '@plant-store/fake',
          dependencies: { pg: '^8.0.0' },
          devDependencies: { '@testcontainers/postgresql': '12.2.0' },
        }),
      );
      writeFileSync(
        join(contents, 'dist', 'testing.js'),
        "import pg from 'pg';\nimport { join } from 'node:path';\nimport './index.js';\n" +
          "export const start = () => import('@testcontainers/postgresql');\n",
      );
      writeFileSync(join(contents, 'dist', 'testing.d.ts'), "import type { Pool } from 'vitest/node';\n");
      const fake = {
        name: '@plant-store/fake',
        packer,
        tarball: '',
        contents,
        files: ['dist/testing.d.ts', 'dist/testing.js'],
      };
      expect(importProblems(fake, typescript)).toEqual([
        'dist/testing.d.ts imports vitest/node, not a dependency',
        'dist/testing.js imports @testcontainers/postgresql, a devDependency',
      ]);
    });

    it("then each package's engines promise no Node its dependencies refuse", () => {
      for (const name of names) expect(engineProblems(project, name), name).toEqual([]);
    });

    it("then the consumer type-checks with TypeScript 5 (nodenext, strict), and so do the packages' declarations", () => {
      expect(typescript.version).toMatch(/^5\./);
      expect(compileErrors).toBe('');
    });

    // Three Node processes, one compiling PGlite's WebAssembly: the bound only tells a hang from a slow
    // machine (RELIABILITY.md, "The suite under load", has the times).
    it('then on Node 24 the domain works with the memory adapter and with PGlite, the client keeps int64 ids exact, and the HTTP hardening serves a pipelined connection', async () => {
      const node = process.execPath;
      expect(process.versions.node).toMatch(/^24\./);
      expect(outputOf(node, 'memory', await run(node, 'memory'))).toEqual(EXPECTED.memory);
      expect(outputOf(node, 'hardening', await run(node, 'hardening'))).toEqual(EXPECTED.hardening);
      expect(outputOf(node, 'postgres', await run(node, 'postgres'))).toEqual(EXPECTED.postgres);
      expect(outputOf(node, 'client', await run(node, 'client'))).toEqual(EXPECTED.client);
    }, 240_000);

    it.skipIf(NODE_20 === undefined)(
      "then Node 20 is below every package's engines, so npm warns there, and the client refuses to load, naming the Node it needs",
      async () => {
        const node = NODE_20 as string;
        for (const { contents, name } of tarballs()) {
          const range = readManifest(contents).engines?.node ?? '';
          expect(semver.satisfies(NODE_20_VERSION as string, range), `${name} ${range}`).toBe(false);
        }
        const client = await run(node, 'client');
        expect(client.status).not.toBe(0);
        expect(client.stdout).toBe('');
        expect(client.stderr).toContain(
          `Error: @plant-store/client needs Node.js 22 or later, found Node.js ${NODE_20_VERSION}: it keeps int64 ids exact`,
        );
      },
    );
  });
});

/** The one range every publishable package runs on (docs/publishing.md says why). */
const ENGINES_NODE = '>=22';
const INT64_MAX = '9223372036854775807';
/** What each consumer script prints when the packages do their job (see consumer/src/). */
const EXPECTED = {
  memory: {
    created: { plant: { name: 'Monstera', tag: 'aroid' }, created: true },
    retryCreated: false,
    conflict: `a plant with id ${INT64_MAX} already exists with a different name or tag`,
    invalid: [{ field: 'id', problem: expect.stringContaining('integer') }],
    storedId: INT64_MAX,
  },
  postgres: {
    created: { plant: { name: 'Monstera', tag: '' }, created: true },
    storedId: '-9223372036854775808',
    storedTag: '',
  },
  hardening: {
    pipelined: {
      statuses: [200, 200, 200],
      bodies: ['{"path":"/first"}', '{"path":"/second"}', '{"path":"/third"}'],
    },
    refused: { statuses: [200, 400], bodies: ['{"path":"/valid"}', '{"error":400,"message":"bad request"}'] },
    said: ['malformed request refused'],
    maxConnections: 10,
    read: { id: ['bigint', INT64_MAX], nested: [] },
    fraction: 0.5,
  },
  client: {
    requests: [
      { authorization: 'Bearer consumer-token', body: `{"id":${INT64_MAX},"name":"Monstera","tag":"aroid"}` },
      { authorization: 'Bearer consumer-token', body: `{"id":${INT64_MAX},"name":"Fern"}` },
    ],
    created: {
      ok: true,
      status: 200,
      plant: { name: 'Monstera', tag: 'aroid' },
      etag: '"YurG9qb1Iqq1vedvKlQ8RBzcupht5Cm9xExs3fSWmf0"',
    },
    refused: { status: 409, ok: false },
    parsed: ['bigint', INT64_MAX, 1],
  },
};
