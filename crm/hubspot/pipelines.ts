// Deal pipelines and stages by label: the mappings and the rest of the worker speak labels ("Marketplace
// offers", "Accepted"); HubSpot stores ids. Read once, read again when a label is not known (a pipeline
// made since, e.g. by `crm-sync setup`).
import type { HubSpotTransport } from './transport.ts';

type Pipeline = { id: string; label: string; stages: { id: string; label: string }[] };

export type PipelineLabels = {
  /** The pipeline id and stage id for labels; undefined names what is missing. */
  ids(pipeline: string | undefined, stage: string | undefined): Promise<{ pipelineId?: string; stageId?: string; missing?: string }>;
  /** Labels for ids (ids that are no pipeline or stage are kept as they are). */
  labels(): Promise<{ pipeline(id: string): string; stage(id: string): string }>;
  allStageLabels(): Promise<string[]>;
  pipelineLabels(): Promise<string[]>;
};

export function createPipelineLabels(transport: HubSpotTransport): PipelineLabels {
  let pipelines: Promise<Pipeline[]> | undefined;
  const load = (fresh = false) => {
    if (fresh || !pipelines) {
      pipelines = transport.call('reading the deal pipelines', (client) => client.crm.pipelines.pipelinesApi.getAll('deals')).then((answer) => answer.results as Pipeline[]);
      pipelines.catch(() => (pipelines = undefined));
    }
    return pipelines;
  };
  const find = (all: Pipeline[], pipeline: string | undefined, stage: string | undefined) => {
    const chosen = pipeline === undefined ? undefined : all.find((candidate) => candidate.label === pipeline || candidate.id === pipeline);
    // A stage alone is looked up in the record's pipeline when known, else in every pipeline.
    const pool = chosen ? [chosen] : all;
    const found = stage === undefined ? undefined : pool.flatMap((candidate) => candidate.stages).find((candidate) => candidate.label === stage || candidate.id === stage);
    return { chosen, found };
  };
  return {
    async ids(pipeline, stage) {
      let { chosen, found } = find(await load(), pipeline, stage);
      if ((pipeline !== undefined && !chosen) || (stage !== undefined && !found)) ({ chosen, found } = find(await load(true), pipeline, stage));
      if (pipeline !== undefined && !chosen) return { missing: `the deal pipeline "${pipeline}"` };
      if (stage !== undefined && !found) return { missing: `the deal stage "${stage}"${pipeline ? ` in the pipeline "${pipeline}"` : ''}` };
      return { pipelineId: chosen?.id, stageId: found?.id };
    },
    async labels() {
      const all = await load();
      const pipelineLabel = new Map(all.map((pipeline) => [pipeline.id, pipeline.label]));
      const stageLabel = new Map(all.flatMap((pipeline) => pipeline.stages.map((stage) => [stage.id, stage.label] as const)));
      return { pipeline: (id) => pipelineLabel.get(id) ?? id, stage: (id) => stageLabel.get(id) ?? id };
    },
    allStageLabels: async () => [...new Set((await load()).flatMap((pipeline) => pipeline.stages.map((stage) => stage.label)))],
    pipelineLabels: async () => (await load()).map((pipeline) => pipeline.label),
  };
}
