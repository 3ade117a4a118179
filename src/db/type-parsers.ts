import pg from 'pg';

/**
 * One set of type parsers for both drivers, so a query returns the same JavaScript values on the
 * embedded database and on a PostgreSQL server:
 * - int8 (count, sum of integers) and numeric (sums, money) come back as numbers: every count we
 *   keep is far below 2^53 and every amount has at most four decimals.
 * - date comes back as the `YYYY-MM-DD` string it is (a UTC day), never a local-midnight Date.
 * - timestamptz comes back as a Date.
 */
export const PG_TYPE = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
} as const;

const toNumber = (value: string): number => Number(value);
const identity = (value: string): string => value;
const toDate = (value: string): Date => new Date(value.includes('T') ? value : value.replace(' ', 'T'));

export const textParsers: Record<number, (value: string) => unknown> = {
  [PG_TYPE.int8]: toNumber,
  [PG_TYPE.numeric]: toNumber,
  [PG_TYPE.date]: identity,
  [PG_TYPE.timestamptz]: (value) => toDate(normaliseOffset(value)),
};

/** PostgreSQL prints `+00` offsets; JavaScript's Date wants `+00:00`. */
function normaliseOffset(value: string): string {
  return value.replace(/([+-]\d\d)$/, '$1:00');
}

/** The `types` option of a `pg` client: our parsers first, pg's own for everything else. */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const parser = format !== 'binary' ? textParsers[oid] : undefined;
    // pg's overloads do not accept a union format; the call is the same at run time.
    return parser ?? (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
} as pg.CustomTypesConfig;
