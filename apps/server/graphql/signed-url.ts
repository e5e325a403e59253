/** SignedUrl: a long-lived download link, Business and up (POST /api/v1/signed-url). */
import type { SignedUrl } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { runOperation } from '../operations/operation.js';
import { createSignedUrlOperation } from '../operations/table.js';

export function addSignedUrl(builder: Builder) {
  const SignedUrlRef = builder.objectRef<SignedUrl>('SignedUrl').implement({
    description: "A download link for a job's output that works without the API key until it expires.",
    fields: (t) => ({
      url: t.exposeString('url', { description: 'The link.' }),
      expiresIn: t.exposeInt('expiresIn', { description: 'Seconds.' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the link stops working.' }),
      reusable: t.exposeBoolean('reusable', { description: 'False: the link works once.' }),
    }),
  });

  builder.mutationField('createSignedUrl', (t) =>
    t.field({
      type: SignedUrlRef,
      nullable: true,
      description: 'Keeps the output of a done job until the URL expires.',
      args: {
        jobId: t.arg.id({ required: true, description: 'A done job of the caller.' }),
        expirySeconds: t.arg.int({ description: 'At least 60; capped by the plan.' }),
        reusable: t.arg.boolean({ description: 'Default true.' }),
      },
      // Decoded by the operation's own zod, as REST decodes the body.
      resolve: (_root, args, ctx) =>
        runOperation(
          createSignedUrlOperation,
          ctx,
          {
            jobId: String(args.jobId),
            expirySeconds: args.expirySeconds ?? undefined,
            reusable: args.reusable ?? undefined,
          },
          { decode: true },
        ),
    }),
  );
}
