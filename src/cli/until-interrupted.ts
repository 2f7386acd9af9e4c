/** Waits until the process is asked to stop (SIGINT or SIGTERM): a server command runs until then, then closes. */
export function untilInterrupted(): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    const stop = (received: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(received);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
