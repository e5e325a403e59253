/** History: the caller's conversions, newest first (GET /api/v1/history). */
import { historyQuerySchema, type History } from '../../../schema/index.js';
import { describeIssue } from '../../../core/contract/options.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Builder } from './builder.js';

type HistoryRecord = History['history'][number];

export function addHistory(builder: Builder) {
  const HistoryRecordRef = builder.objectRef<HistoryRecord>('HistoryRecord').implement({
    fields: (t) => ({
      time: t.exposeString('time', { description: 'Date-time of acceptance.' }),
      conv: t.exposeString('conv', { description: 'The conversion, e.g. "PNG to WEBP" or "compress (JPG)".' }),
      jobId: t.exposeString('jobId'),
      viaApi: t.exposeBoolean('viaApi'),
    }),
  });

  const HistoryRef = builder.objectRef<History>('History').implement({
    fields: (t) => ({
      total: t.exposeInt('total'),
      limit: t.exposeInt('limit'),
      offset: t.exposeInt('offset'),
      hasMore: t.exposeBoolean('hasMore'),
      history: t.field({ type: [HistoryRecordRef], resolve: (page) => page.history }),
    }),
  });

  builder.queryField('history', (t) =>
    t.field({
      type: HistoryRef,
      nullable: true,
      args: { limit: t.arg.int({ description: '1 to 100, default 50.' }), offset: t.arg.int({ description: 'Default 0.' }) },
      resolve: (_root, args, { services, principal }) => {
        const parsed = historyQuerySchema.safeParse({ limit: args.limit ?? undefined, offset: args.offset ?? undefined });
        if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
        return services.jobs.history(principal, parsed.data.limit, parsed.data.offset);
      },
    }),
  );
}
