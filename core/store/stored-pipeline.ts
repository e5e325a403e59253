/**
 * A pipeline's steps as every adapter stores them (a JSON column, a MongoDB subdocument). The stored key of a step's
 * target stays `outputFormat`, its name when the first pipelines were stored: processes of the version before and
 * after this name change read each other's jobs during a rolling upgrade, and no data is migrated.
 */
import type { PipelineRecord, PipelineStepRecord } from './ports/jobs.js';

export type StoredPipelineStep = Omit<PipelineStepRecord, 'target'> & { outputFormat: PipelineStepRecord['target'] };
export interface StoredPipeline {
  steps: StoredPipelineStep[];
}

export function storedPipeline(pipeline: PipelineRecord): StoredPipeline {
  return { steps: pipeline.steps.map(({ target, ...step }) => ({ ...step, outputFormat: target })) };
}

export function pipelineFromStored(stored: StoredPipeline): PipelineRecord {
  return { steps: stored.steps.map(({ outputFormat, ...step }) => ({ ...step, target: outputFormat })) };
}
