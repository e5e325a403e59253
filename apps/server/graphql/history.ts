/** History: the caller's conversions, newest first (GET /api/v1/history). */
import { historyRecordSchema, historySchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { addZodObject } from './zod-objects.js';

export function addHistory(builder: Builder) {
  addZodObject(builder, 'HistoryRecord', historyRecordSchema, {
    description: 'One conversion or tool job of the caller.',
  });
  addZodObject(builder, 'History', historySchema, {
    description: "A page of the caller's history, newest first.",
    types: { history: 'HistoryRecord' },
  });
}
