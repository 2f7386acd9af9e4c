import { messageOf } from '../core/errors.ts';

/**
 * Runs `pass` at once and then `intervalMs` after each one ends, until `stop()`, which waits for the pass under way.
 * A failed pass is logged and the next one runs on time: the provider's reconciler and the attester both work this way.
 */
export class PassLoop {
  readonly #pass: () => Promise<unknown>;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(pass: () => Promise<unknown>, intervalMs: number, log: (line: string) => void, name: string) {
    this.#pass = pass;
    this.#intervalMs = intervalMs;
    this.#onError = (error) => log(`${name}: pass failed: ${messageOf(error)}`);
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    const loop = async () => {
      if (this.#stopped) return;
      this.#running = this.#pass().then(() => {}, this.#onError);
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(loop, this.#intervalMs);
    };
    void loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
