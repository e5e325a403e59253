/**
 * Byte units, decimal everywhere (the spec's limits and credit table are decimal): 1 MB = 10^6
 * bytes, 1 GB = 10^9 bytes. Every "MB" in a limit, a timeout scale or a message uses these.
 */
export const MB = 1_000_000;
export const GB = 1_000_000_000;

/** Bytes as whole megabytes for messages ("30 MB"), rounded up so a limit is never understated. */
export function megabytes(bytes: number): number {
  return Math.ceil(bytes / MB);
}
