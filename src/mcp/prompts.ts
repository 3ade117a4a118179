/** MCP prompt templates for the questions people ask most, each naming the tools that answer it. */
export interface PromptTemplate {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  text(args: Record<string, string>): string;
}

const project = { name: 'projectId', description: 'the project (see list_projects)', required: true };

export const PROMPTS: PromptTemplate[] = [
  {
    name: 'weekly_pulse',
    title: 'Weekly pulse',
    description: "How the brand's AI visibility moved this week, and why.",
    arguments: [project],
    text: (a) =>
      `For project ${a.projectId}: compare the last 7 days with the 7 before using get_visibility_timeseries and get_ranking (from/to), list the significant changes from get_changes, and say what moved. Quote every rate with its sample size and interval; call a difference real only if the intervals do not overlap or get_changes reports it.`,
  },
  {
    name: 'competitor_radar',
    title: 'Competitor radar',
    description: 'Which rivals the engines name instead of the brand, where, and on which prompts.',
    arguments: [project, { name: 'engineId', description: 'one engine id (optional)', required: false }],
    text: (a) =>
      `For project ${a.projectId}${a.engineId ? ` on engine ${a.engineId}` : ''}: use get_ranking over the last 28 days to find the competitors ahead of the brand, then list_runs (status ok) to find answers that name them but not the brand, and get_run on a few of them to quote what the engines say. Report visibility with n and intervals.`,
  },
  {
    name: 'why_not_cited',
    title: 'Why are we not cited?',
    description: "Which pages the engines cite instead of the brand's, and which of the brand's cited pages do not exist.",
    arguments: [project],
    text: (a) =>
      `For project ${a.projectId}: use get_citations over the last 28 days to see the domains cited most and how many are the brand's (sourceType owned), then list_runs and get_run to see the pages cited for prompts where the brand is not mentioned. Point out hallucinated or stale pages on the brand's own domain (statusCounts) that should be created or redirected.`,
  },
];
