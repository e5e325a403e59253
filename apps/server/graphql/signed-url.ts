/** SignedUrl: a long-lived download link, Business and up (POST /api/v1/signed-url). */
import { signedUrlSchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { addZodObject } from './zod-objects.js';

export function addSignedUrl(builder: Builder) {
  addZodObject(builder, 'SignedUrl', signedUrlSchema, {
    description: "A download link for a job's output that works without the API key until it expires.",
  });
}
