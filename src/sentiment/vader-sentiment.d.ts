/** The part of vader-sentiment 1.1.3 (a CommonJS bundle without types) that the lexicon scorer uses. */
declare module 'vader-sentiment' {
  interface PolarityScores {
    neg: number;
    neu: number;
    pos: number;
    /** The normalised sum of valences, -1 (most negative) to 1 (most positive). */
    compound: number;
  }
  const vader: {
    SentimentIntensityAnalyzer: {
      polarity_scores(text: string): PolarityScores;
    };
  };
  export = vader;
}
