/**
 * How far each speed figure (a quick run's ratio against its in-run baseline, or the service's CPU per job in ms)
 * may move the wrong way before the speed ratchet fails (absolute, in the figure's unit; bench/lib/ratchet.ts).
 * Each ratio's is its range over three quick runs on a 2-core machine shared with seven other sessions (load
 * 14-43, 28 November 2026), rounded up: wide enough that none of those runs fails against their median. On a quiet
 * machine the spread is still to be measured; these tolerances are then to be narrowed (bench/README.md, "The
 * speed ratchet").
 */
export const SPEED_TOLERANCES: Readonly<Record<string, number>> = {
  'speed.office.latency1': 0.051,
  'speed.office.throughput1': 11,
  'speed.office.throughput4': 3.7,
  'speed.image.tiny': 28,
  'speed.media.mp4': 0.48,
  'speed.media.webm': 0.91,
  'speed.uploads.speed': 0.18,
  'speed.polling.throughput': 0.28,
  'speed.chromium.latency1': 0.077,
  'speed.chromium.throughput1': 11,
  'speed.chromium.throughput4': 2.5,
  // Service CPU per job, ms (held as values, not ratios): the range over quick runs at load 25-48 on the same machine
  // (28-29 November 2026, 23:21-00:05 UTC), rounded up; bench/README.md, "CPU figures".
  'speed.service-cpu.image': 6,
  'speed.service-cpu.office': 20,
  'speed.service-cpu.html': 14,
};

export function speedTolerance(id: string): number {
  const tolerance = SPEED_TOLERANCES[id];
  if (tolerance === undefined) throw new Error(`no speed tolerance for ${id}: add it to bench/lib/speed-tolerances.ts`);
  return tolerance;
}
