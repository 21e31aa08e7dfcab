import { createHash } from 'node:crypto';

/**
 * Failures on demand for the local stand-ins of outside services (scheduler, email, sms, the
 * completion queue), as the chaos tests set them through `POST /__dev/faults`: for a chosen share of
 * calls the stand-in throws before it does anything, as a throttled or failing AWS API would after
 * the SDK's own tries. Seeded by what is called (FaultDraws), so a run can be repeated.
 */

/** A small, fast PRNG (mulberry32): the same seed gives the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Seeded draws keyed on what a call carries and how many times the same call came before (its try),
 * not on its place in a sequence: calls made side by side meet the same faults whatever order they
 * arrive in, so a failing run can be repeated. What differs between runs of one seed by construction
 * (ids made at random or from the time, timestamps, the table's name) is left out of the key.
 */
export class FaultDraws {
  private readonly tries = new Map<string, number>();

  constructor(private readonly seed: number) {}

  /** Two numbers in [0, 1) for this call: whether it fails, and how. */
  draw(call: string): [number, number] {
    const key = sameAcrossRuns(call);
    const tried = this.tries.get(key) ?? 0;
    this.tries.set(key, tried + 1);
    const digest = createHash('sha256').update(`${this.seed}\u0000${tried}\u0000${key}`).digest();
    return [digest.readUInt32BE(0) / 4_294_967_296, digest.readUInt32BE(4) / 4_294_967_296];
  }
}

/** A call with its run-specific parts replaced: ids of ours (prefix_ and 26 characters), uuids, times, epoch numbers, table names. */
export function sameAcrossRuns(call: string): string {
  return call
    .replace(/"TableName":"[^"]*"/g, '"TableName":"<table>"')
    .replace(/\b([a-z]+)_[0-9a-z]{26}\b/g, '$1_<id>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?/g, '<time>')
    .replace(/\b\d{10,}\b/g, '<n>');
}

export class LocalPortFault extends Error {
  constructor(port: string, method: string) {
    super(`${port}.${method}: failure injected by /__dev/faults`);
    this.name = 'LocalPortFault';
  }
}

export interface FaultSetting {
  seed: number;
  /** Share of calls that fail, 0 to 1. */
  rate: number;
}

/** The failures in force: none until set. */
export class PortFaults {
  private rate = 0;
  private draws = new FaultDraws(0);
  private readonly injected = new Map<string, number>();

  set({ seed, rate }: FaultSetting): void {
    this.rate = rate;
    this.draws = new FaultDraws(seed);
  }

  /** Calls failed so far, by `port.method`. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.injected);
  }

  /** Throws for the share of calls the setting asks for, drawn on the call's arguments. */
  check(port: string, method: string, args: readonly unknown[] = []): void {
    if (this.rate <= 0) return;
    const [chance] = this.draws.draw(`${port}.${method} ${JSON.stringify(args)}`);
    if (chance >= this.rate) return;
    const name = `${port}.${method}`;
    this.injected.set(name, (this.injected.get(name) ?? 0) + 1);
    throw new LocalPortFault(port, method);
  }

  /** The stand-in with the named methods failing on demand; its other methods (the local runners') as they are. */
  wrap<T extends object>(port: string, target: T, methods: readonly (keyof T & string)[]): T {
    return new Proxy(target, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || !methods.includes(property as keyof T & string)) return typeof value === 'function' ? value.bind(object) : value;
        return async (...args: unknown[]) => {
          this.check(port, property as string, args);
          return value.apply(object, args);
        };
      },
    });
  }
}
