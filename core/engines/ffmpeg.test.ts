import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { configureConfinement, probeConfinement, withEngineScope } from './confine.js';
import {
  FFMPEG,
  FFPROBE,
  demuxerOptions,
  describeFfmpegError,
  ffmpegFailure,
  parseTimePosition,
  probe,
  runFfmpeg,
  type FfmpegCommand,
  type FfmpegJob,
} from './ffmpeg.js';
import { configureEnginePaths } from './paths.js';
import { EngineError, runProcess } from './process.js';
import { processesMentioning } from './testing/processes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ffmpeg-engine-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A lavfi tone as input; `realtime` makes ffmpeg read it at playback speed (a long-running job). */
function toneJob(output: string, seconds: number, extra: Partial<FfmpegJob> & { realtime?: boolean } = {}): FfmpegJob {
  const { realtime, ...rest } = extra;
  return {
    input: `sine=frequency=440:duration=${seconds}`,
    output,
    configure: (command) =>
      command.inputOptions(realtime ? ['-re', '-f', 'lavfi'] : ['-f', 'lavfi']).audioCodec('pcm_s16le'),
    signal: new AbortController().signal,
    timeoutMs: 30_000,
    ...rest,
  };
}

async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('parseTimePosition', () => {
  it('reads the time= field of a stats line', () => {
    expect(parseTimePosition('[info] size=  8kB time=00:01:02.50 bitrate= 68.2kbits/s speed=131x')).toBe(62.5);
    expect(parseTimePosition('frame=   12 fps=0.0 q=-1.0 size=N/A time=01:00:00.00 bitrate=N/A')).toBe(3600);
  });
  it('ignores other lines and unknown positions', () => {
    expect(parseTimePosition('[info]   Duration: 00:00:03.00, start: 0.000000')).toBeUndefined();
    expect(parseTimePosition('size=N/A time=N/A bitrate=N/A')).toBeUndefined();
  });
});

describe('describeFfmpegError', () => {
  it('keeps the error lines, without log tags or server paths', () => {
    const stderr = [
      "[info] Input #0, mov, from '/tmp/job-1/in.mp4':",
      '[mov,mp4,m4a,3gp,3g2,mj2 @ 0x564d31180900] [error] moov atom not found',
      '[error] /tmp/job-1/in.mp4: Invalid data found when processing input',
      '[fatal] Conversion failed!',
    ].join('\n');
    expect(describeFfmpegError(stderr, ['/tmp/job-1/in.mp4'])).toBe(
      'moov atom not found; Invalid data found when processing input',
    );
  });
  it('continuation lines keep their message level; info is never shown', () => {
    const stderr =
      "[info] Stream #0:0: Audio\n[fatal] Stream map '0:a:5' matches no streams.\nTo ignore this, add a trailing '?' " +
      'to the map.';
    expect(describeFfmpegError(stderr, [])).toBe(
      "Stream map '0:a:5' matches no streams.; To ignore this, add a trailing '?' to the map.",
    );
    expect(describeFfmpegError('[info] all good\n[warning] odd but fine', [])).toBe('');
  });
});

describe('probe', () => {
  it('reads streams and duration', async () => {
    const file = path.join(dir, 'tone.wav');
    await runFfmpeg(toneJob(file, 1));
    const media = await probe(file, { timeoutMs: 10_000 });
    expect(media.formatName).toBe('wav');
    expect(media.durationSec).toBeCloseTo(1, 1);
    expect(media.streams).toMatchObject([{ type: 'audio', codec: 'pcm_s16le', sampleRate: 44100, channels: 1 }]);
  });

  it('fails with a clean message on a file that is not media', async () => {
    const file = path.join(dir, 'noise.mp4');
    await writeFile(file, Buffer.from('this is not a video file at all'.repeat(50)));
    const error = await rejection(probe(file, { timeoutMs: 10_000 }));
    expect(error.reason).toBe('exit');
    expect(error.message).toMatch(/^ffprobe could not read the file: .+/);
    expect(error.message).not.toContain(dir);
  });
});

describe('runFfmpeg', () => {
  it('reports progress from ffmpeg position over the duration, ending at 100', async () => {
    const progress: number[] = [];
    await runFfmpeg(
      toneJob(path.join(dir, 'progress.wav'), 1.5, {
        realtime: true,
        durationSec: 1.5,
        onProgress: (p) => progress.push(p),
      }),
    );
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.some((p) => p > 0 && p < 100)).toBe(true);
    expect(progress.every((p, i) => p >= 0 && p <= 100 && (i === 0 || p >= progress[i - 1]!))).toBe(true);
    expect(progress.at(-1)).toBe(100);
  });

  // A 60-second tone in real time: the run settles long before it would end only if ffmpeg is killed
  // (the test's timeout is 60 s), and once it has settled no ffmpeg writes its output any more.
  it('kills ffmpeg when the signal aborts', async () => {
    const controller = new AbortController();
    const output = path.join(dir, 'aborted.wav');
    const run = runFfmpeg(toneJob(output, 60, { realtime: true, signal: controller.signal }));
    setTimeout(() => controller.abort(), 500);
    expect((await rejection(run)).reason).toBe('aborted');
    expect(await processesMentioning(output)).toEqual([]);
  });

  it('kills ffmpeg aborted before it has even started', async () => {
    const controller = new AbortController();
    const output = path.join(dir, 'aborted-early.wav');
    const run = runFfmpeg(toneJob(output, 60, { realtime: true, signal: controller.signal }));
    controller.abort();
    expect((await rejection(run)).reason).toBe('aborted');
    expect(await processesMentioning(output)).toEqual([]);
  });

  it('kills ffmpeg at the timeout', async () => {
    const output = path.join(dir, 'slow.wav');
    const error = await rejection(runFfmpeg(toneJob(output, 60, { realtime: true, timeoutMs: 500 })));
    expect(error.reason).toBe('timeout');
    expect(await processesMentioning(output)).toEqual([]);
  });

  it('turns an ffmpeg failure into its error line, without server paths', async () => {
    const error = await rejection(runFfmpeg(toneJob(path.join(dir, 'out.unknownext'), 1)));
    expect(error.reason).toBe('exit');
    expect(error.message).toMatch(/^ffmpeg failed: .*output format/i);
    expect(error.message).not.toContain(dir);
  });
});

describe('ffmpegFailure', () => {
  const live = () => new AbortController().signal;

  it('requires the ffmpeg package for both programs', () => {
    expect([FFMPEG, FFPROBE]).toEqual([
      { command: 'ffmpeg', debian: 'ffmpeg', license: 'GPL-2.0-or-later' },
      { command: 'ffprobe', debian: 'ffmpeg', license: 'GPL-2.0-or-later' },
    ]);
  });

  it('a file ffprobe cannot read: truncated, corrupt or not really that format', async () => {
    const file = path.join(dir, 'fake.mp4');
    await writeFile(file, Buffer.from('not a video'.repeat(100)));
    const err = await rejection(probe(file, { timeoutMs: 10_000 }));
    const error = ffmpegFailure(err, live(), { label: 'MP4', paths: [file] });
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toMatch(
      /^The MP4 file could not be read; it may be truncated, corrupt or not really MP4 \(.+\)$/,
    );
    expect((error as Error).message).not.toContain(dir);
  });

  it('a command ffmpeg could not complete, in its words; a run past its deadline', async () => {
    const output = path.join(dir, 'out.unknownext');
    const failed = ffmpegFailure(await rejection(runFfmpeg(toneJob(output, 1))), live(), {
      label: 'WAV',
      paths: [output],
    });
    expect(failed).toBeInstanceOf(PluginError);
    expect((failed as Error).message).toMatch(/^Could not process the WAV file \(.*output format.*\)$/i);
    const slow = await rejection(
      runFfmpeg(toneJob(path.join(dir, 'slow2.wav'), 60, { realtime: true, timeoutMs: 400 })),
    );
    expect((ffmpegFailure(slow, live(), { label: 'WAV', paths: [], timeoutMs: 400 }) as Error).message).toBe(
      'Processing the WAV file took longer than the 0 s allowed for its length and was stopped',
    );
  });

  it('leaves aborts and a missing engine to the runner', () => {
    const missing = new EngineError('ffmpeg is not installed', 'missing', 'ffmpeg', null, '');
    expect(ffmpegFailure(missing, live(), { label: 'WAV', paths: [] })).toBe(missing);
    const exit = new EngineError('ffmpeg failed', 'exit', 'ffmpeg', 1, '');
    expect(ffmpegFailure(exit, AbortSignal.abort(), { label: 'WAV', paths: [] })).toBe(exit);
  });

  it('runs the configured ffmpeg and ffprobe', async () => {
    try {
      configureEnginePaths({ ffmpeg: path.join(dir, 'no-such-ffmpeg'), ffprobe: path.join(dir, 'no-such-ffprobe') });
      expect((await rejection(runFfmpeg(toneJob(path.join(dir, 'never.wav'), 1)))).reason).toBe('missing');
      expect((await rejection(probe(path.join(dir, 'tone.wav'), { timeoutMs: 5_000 }))).reason).toBe('missing');
    } finally {
      configureEnginePaths({});
    }
    await runFfmpeg(toneJob(path.join(dir, 'again.wav'), 0.2));
  });
});

describe('what a file may make ffmpeg open', () => {
  it(
    'an HLS playlist posing as a media file opens no URL (-protocol_whitelist file,pipe), confined or ' + 'not',
    async () => {
      const hits: string[] = [];
      const beacon = http.createServer((request, response) => {
        hits.push(request.url ?? '');
        response.end();
      });
      await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(beacon.address() as { port: number }).port}`;
      const playlist = path.join(dir, 'playlist.mp4');
      await writeFile(
        playlist,
        `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n${url}/segment.ts\n#EXT-X-ENDLIST\n`,
      );
      const available = (await probeConfinement()).ok;
      try {
        for (const jailed of available ? [false, true] : [false]) {
          configureConfinement(jailed);
          await withEngineScope({ writable: [dir] }, async () => {
            await expect(probe(playlist, { timeoutMs: 30_000 })).rejects.toThrow(EngineError);
            const job = {
              input: playlist,
              output: path.join(dir, `from-playlist-${jailed}.wav`),
              configure: (c: FfmpegCommand) => c.audioCodec('pcm_s16le'),
              signal: new AbortController().signal,
              timeoutMs: 30_000,
            };
            await expect(runFfmpeg(job)).rejects.toThrow(EngineError);
          });
        }
      } finally {
        configureConfinement(false);
        beacon.close();
      }
      expect(hits).toEqual([]);
    },
  );

  // A bwrap killed while it sets its jail up leaves the jail's first process waiting for it for ever, an orphan:
  // that process is in bwrap's process group then, so the run leads a group and an abort kills the group.
  it('an aborted jailed run leaves nothing behind: it leads its own process group, killed whole', async (context) => {
    if (!(await probeConfinement()).ok) return context.skip();
    configureConfinement(true);
    try {
      const controller = new AbortController();
      const output = path.join(dir, 'jailed-aborted.wav');
      const run = withEngineScope({ writable: [dir] }, () =>
        runFfmpeg(toneJob(output, 60, { realtime: true, signal: controller.signal })),
      );
      let launcher: number | undefined;
      for (let i = 0; i < 200 && launcher === undefined; i++) {
        for (const line of await processesMentioning(output)) {
          const pid = Number(line.split(':')[0]);
          const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
          const [ppid, pgid] = stat
            .slice(stat.lastIndexOf(')') + 2)
            .split(' ')
            .slice(1, 3)
            .map(Number);
          if (ppid === process.pid) {
            launcher = pid;
            expect(pgid).toBe(pid);
          }
        }
        if (launcher === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(launcher).toBeDefined();
      controller.abort();
      expect((await rejection(run)).reason).toBe('aborted');
      let left = await processesMentioning(output);
      for (let i = 0; i < 50 && left.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = await processesMentioning(output);
      }
      expect(left).toEqual([]);
    } finally {
      configureConfinement(false);
    }
  });

  it('runs jailed when confinement is on: the run sees its folder and converts', async (context) => {
    if (!(await probeConfinement()).ok) return context.skip();
    configureConfinement(true);
    try {
      const output = path.join(dir, 'jailed.wav');
      await withEngineScope({ writable: [dir] }, () => runFfmpeg(toneJob(output, 1)));
      expect(
        (await withEngineScope({ writable: [dir] }, () => probe(output, { timeoutMs: 30_000 }))).durationSec,
      ).toBeCloseTo(1, 1);
    } finally {
      configureConfinement(false);
    }
  });
});

describe('the demuxer follows the format the upload was accepted as', () => {
  it('forces one demuxer, or whitelists the containers a format`s sniffing admits', () => {
    expect(demuxerOptions('mp3')).toEqual(['-f', 'mp3']);
    expect(demuxerOptions('mp4')).toEqual(['-f', 'mov']);
    expect(demuxerOptions('mpeg')).toEqual(['-format_whitelist', 'mpeg,mpegvideo,mp3']);
    expect(demuxerOptions(undefined)).toEqual([]);
    expect(demuxerOptions('pdf')).toEqual([]);
  });

  it('an MP3 whose ID3 tag hides an ffconcat list is read as MP3, not as the list', async () => {
    const listed = path.join(dir, 'listed.mp3');
    await runProcess('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=d=1', '-q:a', '9', '-y', listed], {
      timeoutMs: 30_000,
    });
    const polyglot = path.join(dir, 'polyglot.mp3');
    // An ID3 header declaring a footer; where the footer would be, an MPEG frame header (what sniffing sees).
    await writeFile(
      polyglot,
      Buffer.concat([
        Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x10, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0, 0, 0]),
        Buffer.from("ffconcat version 1.0\nfile 'listed.mp3'\n"),
      ]),
    );
    // Left to probe, ffmpeg follows the list into the file beside it.
    expect((await probe(polyglot, { timeoutMs: 30_000 })).formatName).toBe('concat');
    const error = await probe(polyglot, { timeoutMs: 30_000, format: 'mp3' }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect(error!.message).not.toContain(dir);
    expect((await probe(listed, { timeoutMs: 30_000, format: 'mp3' })).formatName).toBe('mp3');
  });
});
