import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';

/** One operation's example: the request that was made and what the service answered. */
export interface OperationExample {
  request: {
    /** Path parameters, by name (the OpenAPI path's `{name}`). */
    params?: Record<string, string>;
    query?: Record<string, string>;
    contentType?: string;
    body?: unknown;
  };
  status: number;
  /** The answer's JSON body, arrays cut to their first few items; absent for a bodyless answer (204). */
  response?: unknown;
}

/** src/docs/examples.json, as scripts/openapi-examples.ts writes it. */
export interface ExamplesFile {
  /** How the file was made: regenerate rather than edit. */
  generatedBy: string;
  /** The clock the demo and the service ran at. */
  now: string;
  /** By `METHOD /openapi/path/{param}`, as the OpenAPI document names operations. */
  operations: Record<string, OperationExample>;
  /** One error body per status, each answered by a real request (or the error handler's shaping): shown on every operation that documents the status. */
  errors: Record<string, unknown>;
}

const EXAMPLES_FILE = new URL('./examples.json', import.meta.url);
let loaded: ExamplesFile | undefined;

/**
 * The committed examples, read once. A missing file gives none (the recording itself starts from
 * a checkout without it); the docs test fails on a document without them.
 */
export function loadExamples(): ExamplesFile {
  if (loaded) return loaded;
  try {
    loaded = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as ExamplesFile;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
    loaded = { generatedBy: '', now: '', operations: {}, errors: {} };
  }
  return loaded;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The operations of an OpenAPI document: `METHOD /path/{param}`, as examples.json keys them. */
export function operationsOf(document: { paths?: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

type Json = Record<string, any>;

/**
 * Writes the recorded examples into a freshly generated OpenAPI 3.0 document, in place: each
 * parameter gets the value the example request used, the request body its example, the success
 * response the answer, and each error response the error body recorded for its status (else a
 * renderer makes one up from the schema: `bad_request` under a 401). An operation without an
 * example is left as it is (the docs test fails on it).
 *
 * Where a route declares no body or no response, @fastify/swagger documents none, or a placeholder
 * `200: Default Response`; the example then says what the route takes and answers (a text body, a
 * 204), because a reference that shows a 200 for a route that answers 204 misleads. A declared
 * schema is never changed.
 */
export function attachExamples(document: Json, examples: ExamplesFile): void {
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) {
      const operation = item[method] as Json;
      const example = examples.operations[`${method.toUpperCase()} ${path}`];
      if (example) attachTo(operation, example);
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (/^[45]/.test(status) && media && media.example === undefined && examples.errors?.[status] !== undefined) media.example = examples.errors[status];
      }
    }
  }
}

function attachTo(operation: Json, example: OperationExample): void {
  const { request } = example;
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    const raw = parameter.in === 'path' ? request.params?.[parameter.name] : parameter.in === 'query' ? request.query?.[parameter.name] : undefined;
    if (raw !== undefined) parameter.example = typed(raw, parameter.schema?.type);
  }

  if (request.body !== undefined) {
    const contentType = request.contentType ?? 'application/json';
    operation.requestBody ??= { content: { [contentType]: { schema: typeof request.body === 'string' ? { type: 'string' } : { type: 'object' } } } };
    const content = operation.requestBody.content as Json;
    const media = content[contentType] ?? content[Object.keys(content)[0]!];
    media.example = request.body;
  }

  const status = String(example.status);
  const responses = (operation.responses ??= {}) as Json;
  if (!responses[status]) {
    const placeholder = Object.keys(responses).find((s) => s.startsWith('2') && responses[s].description === 'Default Response' && !responses[s].content);
    if (placeholder === undefined) return;
    delete responses[placeholder];
    responses[status] = { description: STATUS_CODES[example.status] ?? status };
  }
  const response = responses[status] as Json;
  // @fastify/swagger's word for a response the route left undescribed; the status's own name reads better.
  if (response.description === 'Default Response') response.description = STATUS_CODES[example.status] ?? status;
  if (example.response === undefined) return;
  response.content ??= { 'application/json': {} };
  const media = response.content['application/json'] ?? response.content[Object.keys(response.content)[0]!];
  media.example = example.response;
}

/** A query or path value as its schema types it (a recorded URL holds only strings). */
function typed(raw: string, type: unknown): unknown {
  if ((type === 'integer' || type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}
