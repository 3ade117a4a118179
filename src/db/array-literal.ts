/**
 * PostgreSQL array literals (`{a,b,NULL}`), built directly: a statement that passes a column of
 * thousands of values as one array parameter sends one string, which the server casts (`::uuid[]`,
 * `::int[]`), instead of the driver escaping each element. Elements that are uuids, dates,
 * booleans or numbers need no quoting; text is quoted and escaped.
 */

/** Values that print as themselves: uuids, dates, integers, finite numbers, booleans. null is NULL. */
export function plainArray(values: readonly (string | number | boolean | null | undefined)[]): string {
  // join makes one flat string; appending piece by piece would make a rope the driver flattens again.
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    parts[i] = v === null || v === undefined ? 'NULL' : String(v);
  }
  return `{${parts.join(',')}}`;
}

const NEEDS_ESCAPE = /["\\]/;

/** One text element, quoted (so empty strings, spaces, commas and braces survive); null is NULL. */
export function quoteElement(value: string | null | undefined): string {
  if (value === null || value === undefined) return 'NULL';
  return NEEDS_ESCAPE.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : `"${value}"`;
}

/** Text values; null is NULL. */
export function textArray(values: readonly (string | null | undefined)[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = quoteElement(values[i]);
  return `{${parts.join(',')}}`;
}
