import { chromium } from 'playwright-core';
import { treeRssBytes, processTree } from '/work/wt/chromium/core/engines/process-tree.ts';
import { chromiumCommand } from '/work/wt/chromium/core/engines/chromium.ts';
const c = await chromiumCommand();
const s = await chromium.launchServer({ ...c, headless: true, chromiumSandbox: false });
const b = await chromium.connect(s.wsEndpoint());
const pid = s.process().pid!;
console.log('idle', (await treeRssBytes(pid))/1e6, (await processTree(pid)).map(p=>[p.pid,p.rssBytes/1e6|0]));
const ctx = await b.newContext(); const p = await ctx.newPage(); await p.setContent('<h1>x</h1>'); await p.pdf({path:'/tmp/chr/x.pdf'});
console.log('page', (await treeRssBytes(pid))/1e6);
await ctx.close();
console.log('after', (await treeRssBytes(pid))/1e6);
let pss=0; for (const q of await processTree(pid)) { try { const t = (await import('node:fs')).readFileSync(`/proc/${q.pid}/smaps_rollup`,'utf8'); pss += Number(/Pss:\s+(\d+)/.exec(t)![1])*1024; } catch {} }
console.log('pss', pss/1e6);
await s.kill();
