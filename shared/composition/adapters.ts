import type { Ports } from '../ports/ports.ts';
import { runtime, type Runtime } from '../runtime.ts';

/**
 * The composition root: which adapter backs each port. AWS, unless the local server or the test setup
 * installed its stand-ins (bin/local/local-runtime.ts) before any function module loaded. Each port
 * has a module of its own beside this one naming its AWS adapter, so a function bundles, configures
 * and is granted only the services it uses, and no function bundles a stand-in.
 */

/** A stand-in for every port, and how the local server and the tests keep time, the stream and the registries. */
export type LocalAdapters = Ports & Pick<Runtime, 'clock' | 'eventsCommitted' | 'eventsInDoubt' | 'registryScope'>;

let local: LocalAdapters | undefined;

/** Makes this process local: every port module loaded from now on takes its stand-in. */
export function installLocalAdapters(adapters: LocalAdapters): void {
  local = adapters;
  runtime.clock = adapters.clock;
  runtime.eventsCommitted = adapters.eventsCommitted;
  runtime.eventsInDoubt = adapters.eventsInDoubt;
  runtime.registryScope = adapters.registryScope;
}

/** The adapter behind a port: the installed stand-in, else what `aws` builds (at its module's import, so a missing setting fails the cold start). */
export function adapterFor<K extends keyof Ports>(port: K, aws: () => Ports[K]): Ports[K] {
  return local ? local[port] : aws();
}
