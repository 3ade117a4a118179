import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from './processes.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path, keep) : keep(entry.name) ? [path] : [];
  });
}

// `npm ci --omit=dev && npm start` must work: the service needs Node 24 (the `node` package) and
// every package its code imports at run time installed without the dev dependencies; and a fresh
// clone (no ../shared beside it) must pass `npm test`.
describe('what a fresh clone needs', () => {
  test('the pinned Node and every package the service imports are runtime dependencies, pinned exactly', () => {
    assert.ok(manifest.dependencies.node, 'node is a runtime dependency');
    const missing = new Set<string>();
    for (const file of [...files(join(ROOT, 'src'), (n) => n.endsWith('.ts') && !n.endsWith('.test.ts')), join(ROOT, 'bin', 'sightline.js')]) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"./][^'"]*)['"]/g)) {
        const name = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
        if (name.startsWith('node:') || builtinModules.includes(name)) continue;
        if (!manifest.dependencies[name]) missing.add(`${name} (${relative(ROOT, file)})`);
      }
    }
    assert.deepEqual([...missing], []);
    for (const [name, version] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      assert.match(version, /^\d+\.\d+\.\d+(-[\w.]+)?$/, `${name} is pinned to an exact version`);
    }
  });

  test('no source, test or benchmark reads outside the repository', () => {
    const outside = files(ROOT, (n) => /\.(ts|js)$/.test(n))
      .filter((f) => !relative(ROOT, f).startsWith('node_modules') && !relative(ROOT, f).startsWith('.'))
      .filter((f) => /\.\.\/(\.\.\/)*shared\/|\/work\/shared/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    assert.deepEqual(outside, []);
  });
});
