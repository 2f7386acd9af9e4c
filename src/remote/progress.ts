/**
 * Byte counts and rates in git's progress style ("1.20 MiB | 3.40 MiB/s"): the one formatter of sizes and rates a
 * person reads. Below a KiB a count is whole bytes (a rate is a fraction until rounded).
 */

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(2)} KiB`;
  return `${Math.round(bytes)} bytes`;
}

export function rateOf(bytes: number, startedMs: number, nowMs = Date.now()): string {
  const seconds = Math.max((nowMs - startedMs) / 1000, 0.001);
  return `${formatBytes(bytes / seconds)}/s`;
}
