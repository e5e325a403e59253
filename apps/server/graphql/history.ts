/** History: the caller's conversions, newest first (GET /api/v1/history). */
import type { History } from '../../../schema/index.js';
import type { Builder } from './builder.js';

type HistoryRecord = History['history'][number];

export function addHistory(builder: Builder) {
  const HistoryRecordRef = builder.objectRef<HistoryRecord>('HistoryRecord').implement({
    description: 'One conversion or tool job of the caller.',
    fields: (t) => ({
      time: t.expose('time', { type: 'DateTime', description: 'When the job was accepted.' }),
      conv: t.exposeString('conv', { description: 'The conversion, e.g. "PNG to WEBP" or "compress (JPG)".' }),
      jobId: t.exposeString('jobId', { description: 'The job (`job(id)` while it is kept).' }),
      viaApi: t.exposeBoolean('viaApi', { description: 'Sent with an API key (false: from the web app).' }),
    }),
  });

  builder.objectRef<History>('History').implement({
    description: "A page of the caller's history, newest first.",
    fields: (t) => ({
      total: t.exposeInt('total', { description: 'Jobs in the whole history.' }),
      limit: t.exposeInt('limit', { description: 'The page size asked for.' }),
      offset: t.exposeInt('offset', { description: 'Jobs skipped before this page.' }),
      hasMore: t.exposeBoolean('hasMore', { description: 'More pages follow.' }),
      history: t.field({
        type: [HistoryRecordRef],
        description: 'The jobs of this page.',
        resolve: (page) => page.history,
      }),
    }),
  });
}
