import { mean, percentage, visibilityRate, type Rate } from './statistics.ts';

/** The additive counts behind a point or a row (sums of rollup rows). */
export interface Counts {
  sampleSize: number;
  mentionRuns: number;
  mentions: number;
  allMentions: number;
  positionSum: number;
  positionCount: number;
  sentimentSum: number;
  sentimentCount: number;
  citations: number;
}

export const NO_COUNTS: Counts = {
  sampleSize: 0,
  mentionRuns: 0,
  mentions: 0,
  allMentions: 0,
  positionSum: 0,
  positionCount: 0,
  sentimentSum: 0,
  sentimentCount: 0,
  citations: 0,
};

export type Measures = {
  sampleSize: number;
  mentionRuns: number;
  shareOfVoice: number | null;
  avgPosition: number | null;
  sentiment: number | null;
  sentimentCount: number;
  mentions: number;
  citations: number;
} & Rate;

/** Every metric of a point or row from its counts, with the rules of the interface. */
export function measure(c: Counts, span: 'day' | 'range'): Measures {
  return {
    sampleSize: c.sampleSize,
    mentionRuns: c.mentionRuns,
    ...visibilityRate(c.mentionRuns, c.sampleSize, span),
    shareOfVoice: percentage(c.mentions, c.allMentions),
    avgPosition: mean(c.positionSum, c.positionCount),
    sentiment: mean(c.sentimentSum, c.sentimentCount),
    sentimentCount: c.sentimentCount,
    mentions: c.mentions,
    citations: c.citations,
  };
}
