import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { AppError, BadRequestError } from '../http/errors.ts';
import { Envelope, Uuid } from '../http/schemas.ts';
import { importRuns } from '../runs/import-runs.ts';
import { linesOf } from './lines-of.ts';
import { listProviders } from '../sampling/providers/list-providers.ts';
import type { ProviderSettings } from '../sampling/providers/provider.ts';
import { sampleNow } from '../sampling/sample-now.ts';
import type { SamplerDeps } from '../sampling/sampler.ts';
import type { VerifierDeps } from '../verification/verifier.ts';
import { verifyRounds } from '../verification/verify-now.ts';
import { MANAGEMENT, memberOf, ownerOf, projectIn, promptIn } from './access.ts';

/** The largest run file the app uploads in one request; the CLI streams files of any size. */
export const RUNS_UPLOAD_LIMIT = 32 * 1024 * 1024;

export interface WorkDeps {
  db: Kysely<DB>;
  /** Each engine's provider as configured (the providers list); empty without a sampling configuration. */
  providers: readonly ProviderSettings[];
  /** What sampling queues with; absent: an instance that cannot sample refuses. */
  sampler?: Omit<SamplerDeps, 'onError'> | undefined;
  verifier?: Omit<VerifierDeps, 'onError'> | undefined;
  importBatch?: number | undefined;
  /** How long one request checks pages (no new round after it). */
  verifyForMs: number;
  onError: (error: unknown) => void;
}

const Id = Type.Object({ id: Uuid });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A project's work: `runs import`, `sample`, `verify`, and `providers list`. */
export async function workManagementRoutes(app: FastifyInstance, deps: WorkDeps): Promise<void> {
  const { db } = deps;
  // Run files come in a context of their own that reads bodies as text: JSON Lines (a JSON parser would refuse several lines).
  await app.register(async (upload) => {
    // Who may upload, and where, is settled before a byte of the body is read: 401, 403 or 404 at once.
    upload.addHook('onRequest', async (request) => {
      const session = ownerOf(request);
      const id = (request.params as { id?: string }).id ?? '';
      if (!UUID.test(id)) throw new BadRequestError('id must be a UUID', { id: 'must be a UUID' });
      await projectIn(db, session.workspaceId, id);
    });
    upload.removeContentTypeParser('application/json');
    for (const type of ['application/json', 'application/x-ndjson', 'application/jsonl', 'application/octet-stream']) {
      upload.addContentTypeParser(type, { parseAs: 'string', bodyLimit: RUNS_UPLOAD_LIMIT }, (_request, body, done) => done(null, body));
    }
    upload.withTypeProvider<TypeBoxTypeProvider>().post(
      '/app/api/projects/:id/runs',
      {
        bodyLimit: RUNS_UPLOAD_LIMIT,
        config: { accepts: 'JSON Lines (application/x-ndjson or text/plain)' },
        schema: {
          ...MANAGEMENT,
          summary: 'Import run records (JSON Lines, operations.md section 3), as `sightline runs import` does',
          description: 'Body: JSON Lines (application/x-ndjson or text/plain), at most 32 MiB. A run already imported is skipped; a bad line is rejected alone, with its line number.',
          params: Id,
          response: {
            200: Envelope(
              Type.Object({
                imported: Type.Integer(),
                skipped: Type.Integer(),
                rejected: Type.Integer(),
                errors: Type.Array(Type.Object({ line: Type.Integer(), message: Type.String() })),
              }),
            ),
          },
        },
      },
      async (request) => {
        const projectId = await projectIn(db, ownerOf(request).workspaceId, request.params.id);
        const body = typeof request.body === 'string' ? request.body : '';
        return { data: await importRuns(db, projectId, linesOf(body), { batchSize: deps.importBatch }) };
      },
    );
  });
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post(
    '/app/api/projects/:id/sample',
    {
      schema: {
        ...MANAGEMENT,
        summary: "A cycle of the project's prompts (or one prompt) now, as `sightline sample` does: queued for the service's workers",
        description: 'Returns at once: the counts are of the checks ended by then. A check already run today is not run again; each is charged once, if answered.',
        params: Id,
        body: Type.Object({ promptId: Type.Optional(Uuid) }),
        response: {
          200: Envelope(
            Type.Object({ checks: Type.Integer(), ok: Type.Integer(), failed: Type.Integer(), noAnswer: Type.Integer(), skipped: Type.Integer(), creditsCharged: Type.Number() }),
          ),
        },
      },
    },
    async (request) => {
      const session = ownerOf(request);
      const projectId = await projectIn(db, session.workspaceId, request.params.id);
      const promptId = request.body.promptId === undefined ? undefined : await promptIn(db, session.workspaceId, request.body.promptId);
      if (!deps.sampler) throw new AppError('bad_request', 'this instance has no sampling configuration');
      return { data: await sampleNow({ ...deps.sampler, onError: deps.onError }, projectId, promptId, false) };
    },
  );

  typed.post(
    '/app/api/projects/:id/verify',
    {
      schema: {
        ...MANAGEMENT,
        summary: "Check the project's cited pages that are due now, as `sightline verify --wait` does, for up to about 20 s",
        params: Id,
        response: {
          200: Envelope(
            Type.Object({
              checked: Type.Integer(),
              verified: Type.Integer(),
              stale: Type.Integer(),
              broken: Type.Integer(),
              hallucinated: Type.Integer(),
              unchecked: Type.Integer(),
              complete: Type.Boolean({ description: 'false: pages are still due (no new round starts after 20 s); ask again, or the verifier takes them' }),
            }),
          ),
        },
      },
    },
    async (request) => {
      const projectId = await projectIn(db, ownerOf(request).workspaceId, request.params.id);
      if (!deps.verifier) throw new AppError('bad_request', 'this instance has no verification configuration');
      const { result, complete } = await verifyRounds({ ...deps.verifier, onError: deps.onError }, projectId, Date.now() + deps.verifyForMs);
      return { data: { ...result, complete } };
    },
  );

  typed.get(
    '/app/api/providers',
    {
      schema: {
        ...MANAGEMENT,
        summary: "Each engine's provider: configured (its key is set) or not, its base URL and model",
        response: {
          200: Envelope(
            Type.Object({ providers: Type.Array(Type.Object({ engine: Type.String(), provider: Type.String(), configured: Type.Boolean(), baseUrl: Type.String(), model: Type.String() })) }),
          ),
        },
      },
    },
    async (request) => {
      memberOf(request);
      return { data: { providers: listProviders(deps.providers) } };
    },
  );
}
