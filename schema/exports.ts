import { z } from 'zod';

/**
 * Export to S3-compatible storage: the output (a batch's ZIP) is uploaded there when
 * the job is done. The credentials serve that upload alone: never stored, logged or echoed.
 */
export const s3ExportSchema = z.strictObject({
  type: z.literal('s3').meta({ description: 'The storage: "s3" (S3 or an S3-compatible service).' }),
  bucket: z.string().min(3).max(63).meta({ description: 'The bucket.' }),
  key: z.string().min(1).max(1024).meta({ description: 'The object key the output is written to.' }),
  region: z.string().min(1).max(64).meta({ description: 'The region, e.g. eu-west-1.' }),
  /** An S3-compatible service (MinIO, R2, ...); default AWS. Checked like import URLs. */
  endpoint: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .meta({ description: 'An S3-compatible service (MinIO, R2...); default AWS. Checked like import URLs.' }),
  accessKeyId: z.string().min(1).max(256).meta({ description: 'Access key id: used for this upload only.' }),
  secretAccessKey: z.string().min(1).max(256).meta({ description: 'Secret access key: used for this upload only.' }),
  sessionToken: z.string().min(1).max(4096).optional().meta({ description: 'Session token of temporary credentials.' }),
  forcePathStyle: z.boolean().optional().meta({ description: 'Path-style URLs (bucket in the path), as MinIO wants.' }),
});
export type S3Export = z.infer<typeof s3ExportSchema>;

export const exportStateSchema = z.enum(['pending', 'uploading', 'done', 'failed']);

/** The export in the job status. */
export const exportStatusSchema = z.object({
  status: exportStateSchema,
  /** Where the object landed (when done). */
  location: z.string().optional(),
  etag: z.string().optional(),
  /** When failed: the S3 error's code and message. */
  error: z.string().optional(),
});
export type ExportStatus = z.infer<typeof exportStatusSchema>;
