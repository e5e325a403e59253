/**
 * How far each speed figure (a quick run's ratio against its in-run baseline, or the service's CPU per job in ms)
 * may move the wrong way before the speed ratchet fails (absolute, in the figure's unit; bench/lib/ratchet.ts).
 * Wall-time ratios: measured on a quiet machine (three quick runs, four for office, 29 November 2026; bench/README.md
 * "The speed ratchet"), each the larger of 1.5 times its range and a tenth of its median, rounded up; run.ts checks
 * them only when the machine is quiet at the start, since at load 14-48 the same ratios moved by 35-106%.
 */
export const SPEED_TOLERANCES: Readonly<Record<string, number>> = {
  'speed.office.latency1': 0.023,
  'speed.office.throughput1': 5.7,
  'speed.office.throughput4': 4.4,
  'speed.image.tiny': 2.1,
  'speed.media.mp4': 0.21,
  'speed.media.webm': 0.2,
  'speed.uploads.speed': 0.13,
  'speed.polling.throughput': 0.47,
  'speed.chromium.latency1': 0.033,
  'speed.chromium.throughput1': 1.1,
  'speed.chromium.throughput4': 1.5,
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
