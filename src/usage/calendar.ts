/** UTC calendar helpers: every day in this service is a UTC day, `YYYY-MM-DD`. */

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** First day of the UTC month of `at`. */
export function monthStart(at: Date): string {
  return `${utcDay(at).slice(0, 7)}-01`;
}

/** First day of the month before the one starting on `period`. */
export function previousMonthStart(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(year, month - 2, 1));
  return utcDay(d);
}

/** First day of the month after the one starting on `period`. */
export function nextMonthStart(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return utcDay(new Date(Date.UTC(year, month, 1)));
}
