// Running tarn in the interop tests: a command off a terminal with the owner's credentials, and
// `tarn serve` over a catalog directory on a free loopback port with a bootstrap owner, up once
// /livez answers. The server's log goes to a file, not a pipe: the tests block in spawnSync, and
// a full pipe would stall the server on its next log line.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

// A port nothing listens on now (the kernel's choice on 127.0.0.1).
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Starts `bin serve --catalog catalog ...args` with the owner as bootstrap client and resolves to
// { url, port, pid, child, log(), stop() }: log() is the end of its log, stop() sends SIGTERM and
// resolves to the exit code (at once when it has already exited). `env` is added to the
// server's environment.
export async function startServe({ bin, catalog, logPath, ownerId, ownerSecret, args = [], env = {} }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = () => (fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8').slice(-4000) : '');
  const logFd = fs.openSync(logPath, 'w');
  // No catalog: `args` names the metastore and warehouse (--metastore, --warehouse).
  const argv = ['serve', ...(catalog ? ['--catalog', catalog] : []), '--listen', `127.0.0.1:${port}`, ...args];
  const child = spawn(bin, argv, {
    env: {
      ...process.env,
      TARN_CATALOG: '',
      TARN_BOOTSTRAP_CLIENT_ID: ownerId,
      TARN_BOOTSTRAP_CLIENT_SECRET: ownerSecret,
      ...env,
    },
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`tarn serve exited: ${log()}`);
    try {
      if ((await fetch(`${url}/livez`)).ok) return { url, port, pid: child.pid, child, log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`tarn serve did not come up: ${log()}`);
}

// The environment of a tarn command: no colour, no catalog or credentials of the machine's, the
// given owner's credentials, then `extra`.
export function tarnEnv(ownerId, ownerSecret, extra = {}) {
  return {
    ...process.env,
    NO_COLOR: '1',
    TARN_CATALOG: '',
    TARN_AUTHOR: 'tester',
    TARN_CLIENT_ID: ownerId,
    TARN_CLIENT_SECRET: ownerSecret,
    TARN_TOKEN: '',
    ...extra,
  };
}

// Runs `bin ...args --catalog target` with stdin from /dev/null (off a terminal).
export function runTarn(bin, target, args, env) {
  const r = spawnSync(bin, [...args, '--catalog', target], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

// Retries `check` (which throws while its condition does not hold) until it returns, for at
// most `ms`; then its last error is thrown.
export async function eventually(check, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// Polls `fn` (sync or async) every 200 ms until it returns something truthy, which it resolves
// to; past `ms` it throws naming the condition.
export async function until(fn, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${fn}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The command helpers of a test acting as one owner: run (the result), ok (stdout, asserting
// exit 0), json (ok with --json, parsed), jsonError (the error object of a failed --json
// run), fails (asserting the exit code and, when given, the error code).
export function tarnCli(bin, ownerId, ownerSecret) {
  const run = (target, args, env = {}) => runTarn(bin, target, args, tarnEnv(ownerId, ownerSecret, env));
  const ok = (target, args, env) => {
    const r = run(target, args, env);
    if (r.code !== 0) throw new Error(`tarn ${args.join(' ')} exited ${r.code}: ${r.err}`);
    return r.out;
  };
  const json = (target, args, env) => JSON.parse(ok(target, [...args, '--json'], env));
  const jsonError = (r) => JSON.parse(r.err.trim().split('\n').pop()).error;
  const fails = (target, args, code, exit, env) => {
    const r = run(target, [...args, '--json'], env);
    if (r.code !== exit) throw new Error(`tarn ${args.join(' ')} exited ${r.code}, not ${exit}: ${r.err}`);
    if (code && jsonError(r).code !== code) throw new Error(`tarn ${args.join(' ')}: ${r.err}`);
    return r;
  };
  return { run, ok, json, jsonError, fails };
}
