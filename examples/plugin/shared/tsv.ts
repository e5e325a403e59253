/** TSV is not a built-in format: the plugin declares it, with its sniffer, so `.tsv` uploads and `to=tsv` work. */
import { defineFormat } from 'transmute/contract';

export const tsv = defineFormat({
  id: 'tsv',
  category: 'data',
  mime: 'text/tab-separated-values',
  text: true,
  // Text (no NUL byte) with a tab in its first line.
  sniff: (head) => !head.includes(0) && /^[^\n]*\t/.test(head.toString('utf8')),
});
