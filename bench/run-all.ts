/**
 * `npm run bench`: runs bench/projects-endpoint.ts, bench/startup.ts and bench/embedded.ts, each in
 * its own process (arguments such as --concurrency=8 are passed on), and prints compact tables.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ROOT, table } from './lib/common.ts';
import type { EmbeddedBenchResult } from './embedded.ts';
import type { ProjectsBenchResult } from './projects-endpoint.ts';
import type { StartupBenchResult } from './startup.ts';

function runScript(script: string, jsonOut: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(BENCH_DIR, script), `--json-out=${jsonOut}`, ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code ?? signal}`))));
  });
}

const work = mkdtempSync(join(tmpdir(), 'sightline-bench-all-'));
const t0 = performance.now();
try {
  const projectsFile = join(work, 'projects.json');
  const startupFile = join(work, 'startup.json');
  const embeddedFile = join(work, 'embedded.json');
  await runScript('projects-endpoint.ts', projectsFile);
  console.log('');
  await runScript('startup.ts', startupFile);
  console.log('');
  await runScript('embedded.ts', embeddedFile);
  const projects = JSON.parse(readFileSync(projectsFile, 'utf8')) as ProjectsBenchResult;
  const startup = JSON.parse(readFileSync(startupFile, 'utf8')) as StartupBenchResult;
  const embedded = JSON.parse(readFileSync(embeddedFile, 'utf8')) as EmbeddedBenchResult;

  const s = projects.settings;
  console.log(`\n=== GET throughput, concurrency ${s.concurrency}, up to ${s.requests} requests or ${s.durationMs / 1000} s each`);
  console.log(
    table(
      ['server', 'req/s', 'p50 ms', 'p99 ms', 'failed', 'bare/this'],
      [
        [`${projects.bare.name} (GET /bare)`, projects.bare.result.rps, projects.bare.result.p50Ms, projects.bare.result.p99Ms, projects.bare.result.non200 + projects.bare.result.errors, 1],
        ...projects.projects.map((run) => [
          `${run.name} (GET ${run.path})`,
          run.result.rps,
          run.result.p50Ms,
          run.result.p99Ms,
          run.result.non200 + run.result.errors,
          projects.ratios[run.name] ?? '-',
        ]),
      ],
    ),
  );
  console.log(`\n=== start-up (spawn to first 200) and RSS; load on the last restart: ${startup.loadRequests} requests at concurrency ${startup.concurrency}`);
  console.log(
    table(
      ['server', 'start ms', 'RSS start MiB', 'RSS after load MiB', 'cluster RSS after load MiB', 'peak RSS MiB'],
      [...(startup.bare ? [startup.bare] : []), ...startup.first, ...startup.second].map((r) => [
        r.name,
        r.startMs,
        r.rssAfterStartMiB,
        r.rssAfterLoadMiB ?? '-',
        r.clusterAfterLoad?.rssMiB ?? '-',
        r.peakRssMiB,
      ]),
    ),
  );
  console.log(`median of ${startup.reps}: first start ${startup.firstMedianMs} ms, restart ${startup.secondMedianMs} ms`);
  console.log(`\n=== embedded PostgreSQL against the server (bench/embedded.ts): the issue's targets`);
  console.log(table(['target', 'met', 'figures'], embedded.verdicts.map((v) => [v.target, v.met ? 'met' : 'NOT MET', v.detail])));
  console.log(`\nwhole run: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
