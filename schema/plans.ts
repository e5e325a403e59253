import { z } from 'zod';
import { GB, MB } from './units.js';

export const PLAN_IDS = ['free', 'pro', 'business', 'enterprise'] as const;
export const planIdSchema = z.enum(PLAN_IDS);
export type PlanId = z.infer<typeof planIdSchema>;

export interface Plan {
  id: PlanId;
  label: string;
  /** Monthly allowance; null where it is set per account (Enterprise). */
  creditsIncluded: number | null;
  /** Requests per minute; null where it is set per account (Enterprise). */
  requestsPerMinute: number | null;
  maxFileBytes: number;
  /** Signed URLs: null where the plan cannot mint them. */
  signedUrl: { defaultSeconds: number; maxSeconds: number } | null;
  overageAvailable: boolean;
  /** Files per batch conversion (not shown in the spec: our choice, documented in README). */
  maxBatchFiles: number;
}

/** The spec's plan table as data. Sizes are decimal (1 MB = 10^6 bytes, 1 GB = 10^9 bytes). */
export const PLANS: Record<PlanId, Plan> = {
  free: {
    id: 'free',
    label: 'Free',
    creditsIncluded: 250,
    requestsPerMinute: 30,
    maxFileBytes: 25 * MB,
    signedUrl: null,
    overageAvailable: true,
    maxBatchFiles: 0,
  },
  pro: {
    id: 'pro',
    label: 'Pro',
    creditsIncluded: 3_000,
    requestsPerMinute: 120,
    maxFileBytes: 500 * MB,
    signedUrl: null,
    overageAvailable: true,
    maxBatchFiles: 50,
  },
  business: {
    id: 'business',
    label: 'Business',
    creditsIncluded: 25_000,
    requestsPerMinute: 750,
    maxFileBytes: 5 * GB,
    signedUrl: { defaultSeconds: 24 * 3600, maxSeconds: 604_800 },
    overageAvailable: true,
    maxBatchFiles: 200,
  },
  enterprise: {
    id: 'enterprise',
    label: 'Enterprise',
    creditsIncluded: null,
    requestsPerMinute: null,
    maxFileBytes: 5 * GB,
    signedUrl: { defaultSeconds: 7 * 24 * 3600, maxSeconds: 2_592_000 },
    overageAvailable: false,
    maxBatchFiles: 500,
  },
};

/** Defaults for what the spec leaves to the account on Enterprise (documented in README). */
export const ENTERPRISE_DEFAULTS = { creditsIncluded: 100_000, requestsPerMinute: 3_000 };

/** What each plan unlocks: the lowest plan for each gated feature (spec "Plans" and "Errors"). */
export const FEATURE_MIN_PLAN = {
  'tool-ops': 'pro',
  merge: 'pro',
  batch: 'pro',
  extraction: 'pro',
  transcribe: 'business',
  'signed-urls': 'business',
  /** Beyond the spec: every paid plan (docs/WEBHOOKS.md). */
  webhooks: 'pro',
} as const satisfies Record<string, PlanId>;
export type Feature = keyof typeof FEATURE_MIN_PLAN;

/**
 * The extraction endpoints the spec defines (its "Extraction endpoints"): files per
 * request and the plan feature that gates each. The endpoints on every surface come from the
 * `extract` plugins' manifests, which must declare these limits for a spec tool (checked at
 * start-up); a spec tool without a plugin keeps its endpoints, which answer 400 "not installed"
 * past the plan gate. `title` and `fields`: the name and the spec's form fields of a tool no
 * standard plugin provides, so its endpoints still document them.
 */
export const SPEC_EXTRACTION_TOOLS = {
  'parse-cv': { maxFiles: 50, feature: 'extraction' },
  transcribe: {
    maxFiles: 10,
    feature: 'transcribe',
    title: 'Transcription',
    fields: z.object({
      lang: z
        .string()
        .optional()
        .describe(
          'Spoken language (e.g. "en"), for engines that take one; validated by the installed transcription plugin.',
        ),
    }),
  },
  'file-search': { maxFiles: 50, feature: 'extraction' },
  'pdf-to-markdown': { maxFiles: 25, feature: 'extraction' },
} as const satisfies Record<
  string,
  { maxFiles: number; feature: Feature; title?: string; fields?: z.ZodObject<z.ZodRawShape> }
>;
export type SpecExtractionTool = keyof typeof SPEC_EXTRACTION_TOOLS;

export function isSpecExtractionTool(tool: string): tool is SpecExtractionTool {
  return Object.hasOwn(SPEC_EXTRACTION_TOOLS, tool);
}

/**
 * Plans that pay: everything but Free. A non-paid key gets one free call per extraction tool (unless the tool declares
 * none).
 */
export function isPaidPlan(plan: PlanId): boolean {
  return plan !== 'free';
}

/** How long extraction results stay available (spec: 1 hour). */
export const EXTRACTION_RESULT_SECONDS = 3600;

const RANK: Record<PlanId, number> = { free: 0, pro: 1, business: 2, enterprise: 3 };
export function planAtLeast(plan: PlanId, minimum: PlanId): boolean {
  return RANK[plan] >= RANK[minimum];
}

/** Pay-as-you-go: EUR per 1,000 credits past the allowance. */
export const OVERAGE_RATE_PER_1000 = 5;
