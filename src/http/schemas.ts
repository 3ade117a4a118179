import { Type, type TSchema } from 'typebox';

/** Schema pieces every route shares. */

/** A UUID in its plain 36-character form (the `urn:uuid:` form JSON Schema's format allows is refused). */
export const Uuid = Type.String({ format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'a UUID' });

/** A calendar day, `YYYY-MM-DD` (UTC). */
export const IsoDate = Type.String({ format: 'date', description: 'a UTC day, YYYY-MM-DD' });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(
        [
          Type.Literal('bad_request'),
          Type.Literal('unauthorized'),
          Type.Literal('forbidden'),
          Type.Literal('not_found'),
          Type.Literal('conflict'),
          Type.Literal('rate_limited'),
          Type.Literal('quota_exceeded'),
          Type.Literal('internal'),
        ],
        { description: 'stable; branch on this, never on the message' },
      ),
      message: Type.String({ description: 'human-readable; not stable across releases' }),
      details: Type.Optional(
        Type.Record(Type.String(), Type.String(), {
          description: 'present only on validation failures: offending field to what is wrong with it',
        }),
      ),
    }),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

/** `{ data: T }`, the success envelope. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ data });
}

/** One of these strings (an `enum` in the OpenAPI document). */
export function enumOf(values: readonly string[], description?: string) {
  return Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {});
}

/** A value or null, in a form OpenAPI 3.0.3 can express (converted to `nullable` in the document). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

const errorRef = Type.Ref('ErrorBody');

function errorResponse(description: string) {
  return { ...errorRef, description } as unknown as typeof errorRef;
}

/** Error responses of an authenticated read endpoint, for its schema (and so the OpenAPI document). */
export const authenticatedErrors = {
  400: errorResponse('invalid parameters; `error.details` names each offending field'),
  401: errorResponse('missing, unknown or revoked API key'),
  403: errorResponse('the key lacks the scope, or the workspace plan has no API access'),
  429: errorResponse('per-key rate limit exceeded; see the Retry-After header (seconds)'),
  500: errorResponse('unexpected server error; retry with backoff'),
};

export const projectErrors = {
  ...authenticatedErrors,
  404: errorResponse('no such project for this key (an unknown id and another workspace look the same)'),
};

export const bearerSecurity = [{ bearerAuth: [] as string[] }];

/** A read answered from the client's own copy: its ETag (If-None-Match) still holds. */
export const notModified = {
  304: Type.Null({ description: 'not modified: the ETag sent in If-None-Match still names this response' }),
};
