/**
 * Failures on demand for the local stand-ins of outside services (scheduler, email, sms, the
 * completion queue), as the chaos tests set them through `POST /__dev/faults`: for a chosen share of
 * calls the stand-in throws before it does anything, as a throttled or failing AWS API would after
 * the SDK's own tries. Seeded, so a run's sequence of failures per port can be repeated.
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

/** The failures in force: none until set; each port draws from a sequence of its own. */
export class PortFaults {
  private rate = 0;
  private seed = 0;
  private readonly sequences = new Map<string, () => number>();
  private readonly injected = new Map<string, number>();

  set({ seed, rate }: FaultSetting): void {
    this.seed = seed;
    this.rate = rate;
    this.sequences.clear();
  }

  /** Calls failed so far, by `port.method`. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.injected);
  }

  /** Throws for the share of calls the setting asks for. */
  check(port: string, method: string): void {
    if (this.rate <= 0) return;
    let next = this.sequences.get(port);
    if (!next) {
      next = seededRandom(this.seed ^ hashOf(port));
      this.sequences.set(port, next);
    }
    if (next() >= this.rate) return;
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
          this.check(port, property as string);
          return value.apply(object, args);
        };
      },
    });
  }
}

function hashOf(text: string): number {
  let hash = 2_166_136_261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16_777_619);
  return hash >>> 0;
}
