import { addDays } from '../analytics/filters.ts';
import { MIN_RUNS, round2, wilson, wilsonBounds } from '../analytics/statistics.ts';

/** The seven kinds of change event, with their display labels. */
export const KIND_LABELS = {
  visibility_gained: 'Visibility gained',
  visibility_dropped: 'Visibility dropped',
  rank_improved: 'Rank improved',
  rank_dropped: 'Rank dropped',
  citation_gained: 'Citation gained',
  citation_lost: 'Citation lost',
  rival_ad_on_branded_prompt: 'Rival ad on branded prompt',
} as const;
export type ChangeKind = keyof typeof KIND_LABELS;

/** A significant move needs at least this many points of visibility (operations.md section 5). */
export const MIN_DELTA_POINTS = 10;
/** How far back the compared day may be. */
export const LOOKBACK_DAYS = 7;
/** Citation starts and stops are judged against at least this many measured days of the week before. */
export const MIN_WEEK_DAYS = 2;

export interface SubjectInfo {
  id: string;
  type: 'brand' | 'competitor';
  name: string;
}

/** One day of one engine scope: completed runs, and per subject mention runs and owned URLs cited. */
export interface DayCounts {
  n: number;
  mentionRuns: Map<string, number>;
  /** Non-hallucinated URLs of each subject cited that day, with their citation counts. */
  citedUrls: Map<string, Map<string, number>>;
}

/** An engine scope: all engines (engineId null) or one. */
export interface Scope {
  engineId: string | null;
  engineLabel: string | null;
  days: Map<string, DayCounts>;
}

export interface AdSighting {
  day: string;
  engineId: string;
  engineLabel: string;
  competitorId: string;
  promptId: string;
  prompt: string;
  advertiser: string;
  url: string | null;
  runs: number;
}

export interface DetectedEvent {
  key: string;
  day: string;
  kind: ChangeKind;
  subjectType: 'brand' | 'competitor';
  subjectId: string;
  engineId: string | null;
  summary: string;
  detail: Record<string, unknown>;
}

interface Rate {
  k: number;
  n: number;
  p: number;
  low: number;
  high: number;
}

/** Unrounded bounds decide; rounded ones are shown. */
function rate(k: number, n: number): Rate {
  return { k, n, p: (100 * k) / n, ...wilsonBounds(k, n) };
}

const disjoint = (a: Rate, b: Rate) => a.low > b.high || a.high < b.low;
const shown = (r: Rate) => round2(r.p);
const shownCi = (r: Rate) => {
  const { low, high } = wilson(r.k, r.n);
  return [low, high];
};
const signed = (x: number) => (x > 0 ? `+${x}` : String(x));
const where = (scope: { engineLabel: string | null }) => (scope.engineLabel ? `on ${scope.engineLabel}` : 'across all engines');

/** An event of a subject in a scope on a day; its key is its identity across re-detections. */
function eventOf(
  kind: ChangeKind,
  subject: SubjectInfo,
  scope: { engineId: string | null },
  day: string,
  summary: string,
  detail: Record<string, unknown>,
): DetectedEvent {
  return {
    key: `${kind}|${subject.id}|${scope.engineId ?? 'all'}|${day}`,
    day,
    kind,
    subjectType: subject.type,
    subjectId: subject.id,
    engineId: scope.engineId,
    summary,
    detail,
  };
}

/** The two rates behind a visibility or rank event, as reported (rounded; delta of the rounded values). */
function rateDetail(prevDay: string, cur: Rate, old: Rate): Record<string, unknown> {
  return {
    prevDay,
    visibility: shown(cur),
    prevVisibility: shown(old),
    delta: round2(shown(cur) - shown(old)),
    ci: shownCi(cur),
    prevCi: shownCi(old),
    sampleSize: cur.n,
    prevSampleSize: old.n,
  };
}

/** The latest day before `day`, at most LOOKBACK_DAYS back, that passes `ok`. */
function previousDay(days: Map<string, DayCounts>, day: string, ok: (c: DayCounts) => boolean): string | undefined {
  for (let back = 1; back <= LOOKBACK_DAYS; back++) {
    const candidate = addDays(day, -back);
    const counts = days.get(candidate);
    if (counts && ok(counts)) return candidate;
  }
  return undefined;
}

const measured = (c: DayCounts) => c.n >= MIN_RUNS;

/**
 * Every event on the evaluated days, from the counts of the days themselves and up to seven days
 * before. Pure: the same counts give the same events.
 */
export function evaluateChanges(
  evaluatedDays: readonly string[],
  scopes: readonly Scope[],
  subjects: readonly SubjectInfo[],
  ads: readonly AdSighting[],
): DetectedEvent[] {
  const events: DetectedEvent[] = [];
  const subjectById = new Map(subjects.map((s) => [s.id, s]));
  for (const scope of scopes) {
    for (const day of evaluatedDays) {
      const today = scope.days.get(day);
      if (!today) continue;

      // Visibility and rank: both days measured.
      const prevDay = measured(today) ? previousDay(scope.days, day, measured) : undefined;
      if (prevDay !== undefined) {
        const before = scope.days.get(prevDay)!;
        const now = new Map(subjects.map((s) => [s.id, rate(today.mentionRuns.get(s.id) ?? 0, today.n)]));
        const then = new Map(subjects.map((s) => [s.id, rate(before.mentionRuns.get(s.id) ?? 0, before.n)]));
        for (const s of subjects) {
          const cur = now.get(s.id)!;
          const old = then.get(s.id)!;
          if (Math.abs(cur.p - old.p) >= MIN_DELTA_POINTS && disjoint(cur, old)) {
            const kind: ChangeKind = cur.p > old.p ? 'visibility_gained' : 'visibility_dropped';
            const delta = round2(shown(cur) - shown(old));
            events.push(
              eventOf(
                kind,
                s,
                scope,
                day,
                `${s.name} visibility ${cur.p > old.p ? 'rose' : 'fell'} from ${shown(old)}% to ${shown(cur)}% (${signed(delta)} points) ${where(scope)}, ${day} vs ${prevDay} (n = ${cur.n} and ${old.n})`,
                rateDetail(prevDay, cur, old),
              ),
            );
          }
        }
        events.push(...rankEvents(scope, day, prevDay, subjects, now, then));
      }

      // Citations: a subject's pages start being cited (none in the week before) or stop (cited on
      // every measured day of the week before), judged on measured days only.
      if (measured(today)) {
        const week = Array.from({ length: LOOKBACK_DAYS }, (_, i) => addDays(day, -(i + 1)))
          .filter((d) => {
            const c = scope.days.get(d);
            return c !== undefined && measured(c);
          });
        if (week.length >= MIN_WEEK_DAYS) {
          const prevDay = week[0]!;
          const before = scope.days.get(prevDay)!;
          for (const s of subjects) {
            const urlsNow = today.citedUrls.get(s.id) ?? new Map<string, number>();
            const countNow = sum(urlsNow);
            const citedOn = week.filter((d) => sum(scope.days.get(d)!.citedUrls.get(s.id) ?? new Map()) > 0);
            let kind: ChangeKind;
            if (countNow > 0 && citedOn.length === 0) kind = 'citation_gained';
            else if (countNow === 0 && citedOn.length === week.length) kind = 'citation_lost';
            else continue;
            const urlsThen = before.citedUrls.get(s.id) ?? new Map<string, number>();
            const countThen = sum(urlsThen);
            const urls = [...(kind === 'citation_gained' ? urlsNow : urlsThen).keys()].sort();
            const engine = scope.engineLabel ?? 'AI engines';
            const pages = (n: number) => `${n} ${n === 1 ? 'page' : 'pages'}`;
            events.push(
              eventOf(
                kind,
                s,
                scope,
                day,
                kind === 'citation_gained'
                  ? `${engine} started citing ${s.name}: ${countNow} ${countNow === 1 ? 'citation' : 'citations'} of ${pages(urls.length)} on ${day}, none in the ${week.length} measured days before (n = ${today.n})`
                  : `${engine} stopped citing ${s.name}: none on ${day} (n = ${today.n}), after citing it on each of the ${week.length} measured days before (${countThen} on ${prevDay})`,
                {
                  prevDay,
                  citations: countNow,
                  prevCitations: countThen,
                  delta: countNow - countThen,
                  urls,
                  sampleSize: today.n,
                  prevSampleSize: before.n,
                  daysCompared: week.length,
                },
              ),
            );
          }
        }
      }
    }
  }

  for (const ad of ads) {
    const s = subjectById.get(ad.competitorId);
    if (!s) continue;
    const kind: ChangeKind = 'rival_ad_on_branded_prompt';
    events.push({
      ...eventOf(
        kind,
        s,
        { engineId: ad.engineId },
        ad.day,
        `${s.name} advertised on the branded prompt "${ad.prompt}" on ${ad.engineLabel} (${ad.runs} ${ad.runs === 1 ? 'answer' : 'answers'}${ad.url ? `, ${ad.url}` : ''})`,
        { prompt: ad.prompt, advertiser: ad.advertiser, url: ad.url, runs: ad.runs },
      ),
      // One event per prompt, too.
      key: `${kind}|${s.id}|${ad.engineId}|${ad.day}|${ad.promptId}`,
    });
  }
  return events;
}

/**
 * A rank move that is not noise: a subject passes a rival (below it on the compared day, above it
 * now) and now clears that rival's interval (non-overlapping Wilson intervals). The rank is 1 +
 * the number of subjects with a higher visibility. The subject that passed gets `rank_improved`;
 * each subject it cleanly passed gets `rank_dropped`.
 */
function rankEvents(
  scope: Scope,
  day: string,
  prevDay: string,
  subjects: readonly SubjectInfo[],
  now: Map<string, Rate>,
  then: Map<string, Rate>,
): DetectedEvent[] {
  const rankOf = (rates: Map<string, Rate>, id: string) => 1 + subjects.filter((o) => rates.get(o.id)!.p > rates.get(id)!.p).length;
  const passed = new Map<string, SubjectInfo[]>();
  const passedBy = new Map<string, SubjectInfo[]>();
  for (const s of subjects) {
    for (const r of subjects) {
      if (s.id === r.id) continue;
      const sNow = now.get(s.id)!;
      const rNow = now.get(r.id)!;
      const wasBelow = then.get(s.id)!.p < then.get(r.id)!.p;
      if (wasBelow && sNow.p > rNow.p && disjoint(sNow, rNow)) {
        passed.set(s.id, [...(passed.get(s.id) ?? []), r]);
        passedBy.set(r.id, [...(passedBy.get(r.id) ?? []), s]);
      }
    }
  }
  const events: DetectedEvent[] = [];
  for (const s of subjects) {
    for (const [kind, others] of [
      ['rank_improved', passed.get(s.id)],
      ['rank_dropped', passedBy.get(s.id)],
    ] as const) {
      if (!others) continue;
      const rank = rankOf(now, s.id);
      const prevRank = rankOf(then, s.id);
      if (kind === 'rank_improved' ? rank >= prevRank : rank <= prevRank) continue;
      const cur = now.get(s.id)!;
      const old = then.get(s.id)!;
      const names = others.map((o) => o.name).join(', ');
      events.push(
        eventOf(
          kind,
          s,
          scope,
          day,
          kind === 'rank_improved'
            ? `${s.name} rose from #${prevRank} to #${rank} ${where(scope)}, passing ${names} (visibility ${shown(old)}% to ${shown(cur)}%, n = ${old.n} and ${cur.n}), ${day} vs ${prevDay}`
            : `${s.name} fell from #${prevRank} to #${rank} ${where(scope)}, passed by ${names} (visibility ${shown(old)}% to ${shown(cur)}%, n = ${old.n} and ${cur.n}), ${day} vs ${prevDay}`,
          {
            ...rateDetail(prevDay, cur, old),
            rank,
            prevRank,
            [kind === 'rank_improved' ? 'passed' : 'passedBy']: others.map((o) => ({
              subjectId: o.id,
              name: o.name,
              visibility: shown(now.get(o.id)!),
              ci: shownCi(now.get(o.id)!),
            })),
          },
        ),
      );
    }
  }
  return events;
}

function sum(m: Map<string, number>): number {
  let total = 0;
  for (const v of m.values()) total += v;
  return total;
}
