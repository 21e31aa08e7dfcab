/**
 * Loaded into the ingestion bench's recording server only (NODE_OPTIONS=--import, never into the server
 * it times): every request the server sends while handling an incoming request that carries
 * `x-recorded-for` carries that header too, so the recording proxy (bench/request-tally.ts) can tell
 * which event each DynamoDB request was made for with many events in flight.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';

export const RECORDED_FOR = 'x-recorded-for';
const cause = new AsyncLocalStorage();

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, ...rest) {
  const id = event === 'request' ? request.headers[RECORDED_FOR] : undefined;
  return id ? cause.run(id, () => emit.call(this, event, request, ...rest)) : emit.call(this, event, request, ...rest);
};

const request = http.request;
http.request = function (...args) {
  const outgoing = request.apply(this, args);
  const id = cause.getStore();
  if (id) outgoing.setHeader(RECORDED_FOR, id);
  return outgoing;
};
