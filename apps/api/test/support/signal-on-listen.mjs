// Loaded into the service with `node --import` by test/stopping.test.ts: the process sends itself
// SIGTERM the moment its server listens, before the start has returned to the entry point: the
// moment a supervisor's SIGTERM meets a service that has only just started.
import { Server } from 'node:net';

const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  this.once('listening', () => process.kill(process.pid, 'SIGTERM'));
  return listen.apply(this, args);
};
