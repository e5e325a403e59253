/** SignedUrl: a long-lived download link, Business and up (POST /api/v1/signed-url). */
import type { SignedUrl } from '../../../schema/index.js';
import type { Builder } from './builder.js';

export function addSignedUrl(builder: Builder) {
  builder.objectRef<SignedUrl>('SignedUrl').implement({
    description: "A download link for a job's output that works without the API key until it expires.",
    fields: (t) => ({
      url: t.exposeString('url', { description: 'The link.' }),
      expiresIn: t.exposeInt('expiresIn', { description: 'Seconds.' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the link stops working.' }),
      reusable: t.exposeBoolean('reusable', { description: 'False: the link works once.' }),
    }),
  });
}
