/**
 * Base64 of what the devnet itself records (transaction bytes, effects, event contents, object contents), through
 * Node's native codec: the SDK's `fromBase64`/`toBase64` go through `atob`/`btoa` one character at a time, which cost
 * a many-ref push's transaction tens of milliseconds per read of its ~100 KB of effects. Same standard, padded
 * alphabet. Only for text this process wrote: input from clients keeps the SDK's stricter decoder.
 */
export function fromStoredBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64')); // a copy: Buffer.from may hand out a view of a shared pool
}

export function toStoredBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
