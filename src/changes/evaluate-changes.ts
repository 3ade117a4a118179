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

/** A significant move needs at least this many points (operations.md section 5, for visibility; the same for citations). */
export const MIN_DELTA_POINTS = 10;
/** How far back the compared day may be; also how long a rival's ad must have been absent to "start". */
export const LOOKBACK_DAYS = 7;

export interface SubjectInfo {
  id: string;
  type: 'brand' | 'competitor';
  name: string;
}

/** What a subject's sample holds on one day of one scope. */
export interface SubjectDay {
  /** Completed runs that tracked the subject: its sample (0 before it was tracked). */
  tracked: number;
  mentionRuns: number;
  /** Completed runs citing at least one of its pages (hallucinated ones excluded). */
  citingRuns: number;
}

/** A subject's counts as the rollup keeps them: the runs that did not track it, not those that did. */
export interface SubjectCounts {
  untracked: number;
  mentionRuns: number;
  citingRuns: number;
}

/** One day of one engine scope. */
export interface DayCounts {
  /** Completed runs: the sample of citation rates (a run's citations are recorded whoever is tracked). */
  n: number;
  subjects: Map<string, SubjectCounts>;
}

/** An engine scope: all engines (engineId null) or one. */
export interface Scope {
  engineId: string | null;
  engineLabel: string | null;
  days: Map<string, DayCounts>;
}

/** A competitor's ad beside the answer to a branded prompt, on a day and engine. */
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
/** The rule of operations.md section 5: both measured, intervals apart, at least 10 points. */
const significant = (cur: Rate, old: Rate) => cur.n >= MIN_RUNS && old.n >= MIN_RUNS && Math.abs(cur.p - old.p) >= MIN_DELTA_POINTS && disjoint(cur, old);
/** The rule for a visibility change between two days' counts (the sample-size planner asks it too). */
export function isSignificantChange(currentK: number, currentN: number, previousK: number, previousN: number): boolean {
  return significant(rate(currentK, currentN), rate(previousK, previousN));
}
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

const subjectDay = (c: DayCounts, id: string): SubjectDay => {
  const s = c.subjects.get(id);
  return { tracked: c.n - (s?.untracked ?? 0), mentionRuns: s?.mentionRuns ?? 0, citingRuns: s?.citingRuns ?? 0 };
};
/** A subject's visibility on a day, over the runs that tracked it. */
const visibilityOf = (c: DayCounts, id: string) => rate(subjectDay(c, id).mentionRuns, subjectDay(c, id).tracked);
/** The share of the day's completed runs citing a subject's pages. */
const citingShareOf = (c: DayCounts, id: string) => rate(subjectDay(c, id).citingRuns, c.n);

/**
 * Every event on the evaluated days, from the counts of the days themselves and up to seven days
 * before, and the ad sightings of the same span. Pure: the same counts give the same events.
 * - Visibility: a subject's rate over the runs that tracked it, against the latest earlier day on
 *   which it was measured (never across the day it started being tracked: before, it has no sample).
 * - Rank: among the subjects measured on both days.
 * - Citations: the share of completed runs citing a subject's pages, judged by the same rule as
 *   visibility (both days measured, Wilson intervals apart, at least 10 points).
 * - Rival ads: when a competitor's ad appears on a branded prompt and engine where it was not seen
 *   in the seven days before (a start, not every day it runs on).
 */
export function evaluateChanges(
  evaluatedDays: readonly string[],
  scopes: readonly Scope[],
  subjects: readonly SubjectInfo[],
  ads: readonly AdSighting[],
): DetectedEvent[] {
  const events: DetectedEvent[] = [];
  for (const scope of scopes) {
    for (const day of evaluatedDays) {
      const today = scope.days.get(day);
      if (!today) continue;
      for (const s of subjects) {
        const prevDay = previousDay(scope.days, day, (c) => subjectDay(c, s.id).tracked >= MIN_RUNS);
        if (prevDay === undefined) continue;
        const cur = visibilityOf(today, s.id);
        const old = visibilityOf(scope.days.get(prevDay)!, s.id);
        if (!significant(cur, old)) continue;
        const delta = round2(shown(cur) - shown(old));
        events.push(
          eventOf(
            cur.p > old.p ? 'visibility_gained' : 'visibility_dropped',
            s,
            scope,
            day,
            `${s.name} visibility ${cur.p > old.p ? 'rose' : 'fell'} from ${shown(old)}% to ${shown(cur)}% (${signed(delta)} points) ${where(scope)}, ${day} vs ${prevDay} (n = ${cur.n} and ${old.n})`,
            rateDetail(prevDay, cur, old),
          ),
        );
      }
      const rankPrev = previousDay(scope.days, day, (c) => c.n >= MIN_RUNS);
      if (today.n >= MIN_RUNS && rankPrev !== undefined) {
        const before = scope.days.get(rankPrev)!;
        const ranked = subjects.filter((s) => subjectDay(today, s.id).tracked >= MIN_RUNS && subjectDay(before, s.id).tracked >= MIN_RUNS);
        const now = new Map(ranked.map((s) => [s.id, visibilityOf(today, s.id)]));
        const then = new Map(ranked.map((s) => [s.id, visibilityOf(before, s.id)]));
        events.push(...rankEvents(scope, day, rankPrev, ranked, now, then));
      }
      const citePrev = previousDay(scope.days, day, (c) => c.n >= MIN_RUNS);
      if (citePrev === undefined) continue;
      for (const s of subjects) {
        const cur = citingShareOf(today, s.id);
        const old = citingShareOf(scope.days.get(citePrev)!, s.id);
        if (!significant(cur, old)) continue;
        const gained = cur.p > old.p;
        const engine = scope.engineLabel ?? 'AI engines';
        events.push(
          eventOf(
            gained ? 'citation_gained' : 'citation_lost',
            s,
            scope,
            day,
            `${engine} cited ${s.name}'s pages in ${shown(cur)}% of answers on ${day}, ${gained ? 'up' : 'down'} from ${shown(old)}% on ${citePrev} (${signed(round2(shown(cur) - shown(old)))} points, n = ${cur.n} and ${old.n})`,
            {
              prevDay: citePrev,
              citingShare: shown(cur),
              prevCitingShare: shown(old),
              delta: round2(shown(cur) - shown(old)),
              ci: shownCi(cur),
              prevCi: shownCi(old),
              citingRuns: cur.k,
              prevCitingRuns: old.k,
              sampleSize: cur.n,
              prevSampleSize: old.n,
            },
          ),
        );
      }
    }
  }
  events.push(...adStarts(evaluatedDays, subjects, ads));
  return events;
}

/** A rival's ad that starts on an evaluated day: not seen for that competitor, prompt and engine in the week before. */
function adStarts(evaluatedDays: readonly string[], subjects: readonly SubjectInfo[], ads: readonly AdSighting[]): DetectedEvent[] {
  const subjectById = new Map(subjects.map((s) => [s.id, s]));
  const seen = new Set(ads.map((a) => `${a.competitorId}|${a.promptId}|${a.engineId}|${a.day}`));
  const evaluated = new Set(evaluatedDays);
  const events: DetectedEvent[] = [];
  for (const ad of ads) {
    const s = subjectById.get(ad.competitorId);
    if (!s || !evaluated.has(ad.day)) continue;
    const running = Array.from({ length: LOOKBACK_DAYS }, (_, i) => addDays(ad.day, -(i + 1))).some((d) =>
      seen.has(`${ad.competitorId}|${ad.promptId}|${ad.engineId}|${d}`),
    );
    if (running) continue;
    const kind: ChangeKind = 'rival_ad_on_branded_prompt';
    events.push({
      ...eventOf(
        kind,
        s,
        { engineId: ad.engineId },
        ad.day,
        `${s.name} started advertising on the branded prompt "${ad.prompt}" on ${ad.engineLabel} (${ad.runs} ${ad.runs === 1 ? 'answer' : 'answers'}${ad.url ? `, ${ad.url}` : ''}); not seen there in the ${LOOKBACK_DAYS} days before`,
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
