/**
 * Text PostgreSQL can store: a NUL (U+0000, which `text` cannot hold) and a lone UTF-16 surrogate
 * (not UTF-8 encodable) each become U+FFFD. Everything else is kept as it is.
 */
export function cleanText(text: string): string {
  const noNul = text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
  return noNul.toWellFormed();
}
