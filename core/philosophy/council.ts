/**
 * The council that deliberates in the philosophy simulation, formed from three published
 * documents: the sentinels' past positions and virtue tags (philosophy/deliberations.json), the
 * council's measured virtue scores (philosophy/virtues.json) and each sentinel's cathedral and GI
 * (government/sentinel-status.json). Pure: documents in, council out; the caller reads and verifies
 * the files. Formed once per version of the data and shared by every simulation run on it.
 *
 * - Members are the sentinels of the status file whose GI is at least 0.95 (the spec's minimum for
 *   session participants); the others are listed as excluded. Sorted by id, so every sum over the
 *   council runs in one order.
 * - A member's record is its statements in past deliberations: the position as a stance
 *   (support +1, conditional +0.5, abstain 0, oppose −1), the topic, the virtue tags.
 * - Its virtue profile is the Laplace-smoothed share of its statements tagged with each virtue:
 *   (tagged + 1) / (statements + 2), so a member without a record has 0.5 for every virtue.
 */
import type { Cathedral, Deliberations, SentinelStatus, Virtue, Virtues } from "../schemas/index.ts";
import { VIRTUES } from "../schemas/index.ts";
import { topicTokens } from "./topics.ts";

/** The spec's minimum GI of a session participant. */
export const MIN_PARTICIPANT_GI = 0.95;

/** A position as a number on the −1 … +1 stance scale. */
export const POSITION_STANCE = { support: 1, conditional: 0.5, abstain: 0, oppose: -1 } as const;

export type VirtueVector = Record<Virtue, number>;

export interface Statement {
  /** Index into `Council.topics`. */
  topic: number;
  stance: number;
}

/** A member's record on one topic: how many statements, and the sum of their stances. */
export interface TopicRecord {
  topic: number;
  count: number;
  sum: number;
}

export interface CouncilMember {
  id: string;
  cathedral: Cathedral;
  gi: number;
  statements: Statement[];
  /** The statements summed per topic, in order of first appearance (what the simulation reads). */
  byTopic: TopicRecord[];
  /** Mean stance over every statement (0 without a record). */
  baseline: number;
  virtueProfile: VirtueVector;
}

export interface Topic {
  text: string;
  tokens: ReadonlySet<string>;
  /** Share of the statements on this topic tagged with each virtue. */
  virtueShare: VirtueVector;
}

export interface CouncilInputs {
  deliberations: string;
  virtues: string;
  sentinel_status: string;
}

export interface Council {
  members: CouncilMember[];
  /** Ids of status-file sentinels left out (GI below the minimum or unknown), sorted. */
  excluded: string[];
  topics: Topic[];
  virtueScores: VirtueVector;
  /** Digests of the three input files, carried into every message. */
  inputs: CouncilInputs;
}

export interface CouncilDocuments {
  deliberations: Deliberations;
  virtues: Virtues;
  sentinelStatus: SentinelStatus;
  inputs: CouncilInputs;
}

const zeroVector = (): VirtueVector => ({ integrity: 0, temperance: 0, justice: 0, prudence: 0, courage: 0 });

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function formCouncil(documents: CouncilDocuments): Council {
  const topicIndex = new Map<string, number>();
  const topicTags: { statements: number; tags: VirtueVector }[] = [];
  const topics: Topic[] = [];
  const records = new Map<string, { statements: Statement[]; tags: VirtueVector }>();

  for (const deliberation of documents.deliberations.deliberations) {
    let topic = topicIndex.get(deliberation.topic);
    if (topic === undefined) {
      topic = topics.length;
      topicIndex.set(deliberation.topic, topic);
      topics.push({ text: deliberation.topic, tokens: topicTokens(deliberation.topic), virtueShare: zeroVector() });
      topicTags.push({ statements: 0, tags: zeroVector() });
    }
    const tally = topicTags[topic]!;
    for (const statement of deliberation.sentinels) {
      let record = records.get(statement.id);
      if (!record) records.set(statement.id, (record = { statements: [], tags: zeroVector() }));
      record.statements.push({ topic, stance: POSITION_STANCE[statement.position] });
      tally.statements += 1;
      // A tag listed twice in one statement counts once.
      for (const virtue of new Set(statement.virtue_tags)) {
        record.tags[virtue] += 1;
        tally.tags[virtue] += 1;
      }
    }
  }
  topics.forEach((topic, i) => {
    const tally = topicTags[i]!;
    for (const v of VIRTUES) topic.virtueShare[v] = tally.statements === 0 ? 0 : tally.tags[v] / tally.statements;
  });

  const members: CouncilMember[] = [];
  const excluded: string[] = [];
  for (const sentinel of [...documents.sentinelStatus.sentinels].sort(byId)) {
    // A repeated id takes part once (the first entry after sorting).
    if (members.at(-1)?.id === sentinel.id || excluded.at(-1) === sentinel.id) continue;
    const gi = sentinel.performance.gi_score;
    if (gi === null || gi < MIN_PARTICIPANT_GI) {
      excluded.push(sentinel.id);
      continue;
    }
    const record = records.get(sentinel.id) ?? { statements: [], tags: zeroVector() };
    const n = record.statements.length;
    let sum = 0;
    for (const s of record.statements) sum += s.stance;
    const virtueProfile = zeroVector();
    for (const v of VIRTUES) virtueProfile[v] = (record.tags[v] + 1) / (n + 2);
    const byTopic = new Map<number, TopicRecord>();
    for (const s of record.statements) {
      const t = byTopic.get(s.topic) ?? { topic: s.topic, count: 0, sum: 0 };
      t.count += 1;
      t.sum += s.stance;
      byTopic.set(s.topic, t);
    }
    members.push({
      id: sentinel.id,
      cathedral: sentinel.cathedral,
      gi,
      statements: record.statements,
      byTopic: [...byTopic.values()],
      baseline: n === 0 ? 0 : sum / n,
      virtueProfile,
    });
  }

  const virtueScores = zeroVector();
  for (const v of VIRTUES) virtueScores[v] = documents.virtues.virtues[v].score;
  return { members, excluded, topics, virtueScores, inputs: { ...documents.inputs } };
}
