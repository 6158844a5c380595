// The documents' relative links lead somewhere: README.md, docs/ and RELIABILITY.md link to files of the
// repository and to headings of its Markdown files, and a moved section must take its links along.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const DOCS = join(ROOT, 'docs');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const DOCUMENTS = [join(ROOT, 'README.md'), join(ROOT, 'RELIABILITY.md'), ...markdownFiles(DOCS)];

/** The text outside fenced code blocks: code shows commands and output, not links. */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** Every `[text](target)` of a document's prose; inline code spans are not links, but may be link text. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, 'code');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
}

/** GitHub's anchor of a heading: its text lowercased, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown).split('\n')) {
    const heading = /^#{1,6} (.+?)\s*#*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

const byFile = DOCUMENTS.map((file) => ({
  name: relative(ROOT, file),
  file,
  markdown: readFileSync(file, 'utf8'),
}));

describe("the documents' relative links", () => {
  it('when the documents are read, then README.md, RELIABILITY.md and the docs/ pages are among them', () => {
    expect(byFile.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['README.md', 'RELIABILITY.md', 'docs/configuration.md', 'docs/webhook.md']),
    );
  });

  it.each(byFile)(
    'when $name links to a file or a heading of the repository, then it exists',
    ({ file, markdown }) => {
      const broken: string[] = [];
      for (const target of linkTargets(markdown)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
        const [path = '', anchor] = target.split('#');
        const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
        if (!existsSync(resolved)) {
          broken.push(`${target}: no such file`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
          broken.push(`${target}: an anchor into a file that is not Markdown`);
        } else if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push(`${target}: no such heading in ${relative(ROOT, resolved)}`);
        }
      }
      expect(broken).toStrictEqual([]);
    },
  );

  it('when the README is read, then every page of docs/ and every example is one click away', () => {
    const linked = new Set(
      linkTargets(readFileSync(join(ROOT, 'README.md'), 'utf8'))
        .filter((target) => target.startsWith('docs/'))
        .map((target) => target.split('#')[0]),
    );
    const pages = readdirSync(DOCS, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((page) => !linked.has(page))).toStrictEqual([]);
  });
});

describe('the anchors of headings, as GitHub makes them', () => {
  it.each([
    ['## The client: `@plant-store/client`', 'the-client-plant-storeclient'],
    [
      '## 5. Metrics for operators (`GET /metrics`, `test/metrics.test.ts`)',
      '5-metrics-for-operators-get-metrics-testmetricstestts',
    ],
    ['### Replicas: three api replicas behind HAProxy', 'replicas-three-api-replicas-behind-haproxy'],
    ['## Node.js 22 or later', 'nodejs-22-or-later'],
    ['## `JWT_ISSUER` and **its** pitfall', 'jwt_issuer-and-its-pitfall'],
  ])('when a heading reads %s, then its anchor is %s', (heading, anchor) => {
    expect([...anchorsOf(heading)]).toStrictEqual([anchor]);
  });

  it('when two headings read the same, then the second anchor ends in -1', () => {
    expect([...anchorsOf('## Tests\n\n## Tests\n')]).toStrictEqual(['tests', 'tests-1']);
  });
});
