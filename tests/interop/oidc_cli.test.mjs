// Federated sign-in with the CLI against `tarn serve --oidc-audience` (docs/design/federation.md).
// This script is the OpenID Connect issuer: node:crypto makes its RSA and P-256 keys and signs
// the ID tokens (a second implementation of JWS next to tarn's OpenSSL one), and a loopback
// HTTP server serves its discovery document, its JWKS and a fake GitHub Actions token endpoint.
// An owner federates a subject with `tarn token federate`; then `tarn` commands without any
// client secret sign in from the GitHub Actions variables and from TARN_OIDC_TOKEN_FILE (read
// again at each exchange), refusals name their reason, and the JWKS is fetched once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { startServe } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('oidc_cli');
const OWNER_ID = 'tarn_oidcclitestowner00';
const OWNER_SECRET = 'oidc-cli-test-owner-secret-0123456789';
const AUDIENCE = 'tarn-ci';
const SUBJECT = 'repo:acme/etl:ref:refs/heads/main';
const REQUEST_TOKEN = 'actions-request-token-1';

const b64 = (b) => Buffer.from(b).toString('base64url');
const keys = {
  rsa1: { alg: 'RS256', ...crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }) },
  ec1: { alg: 'ES256', ...crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }) },
};
const jwks = () => ({
  keys: Object.entries(keys).map(([kid, k]) => ({
    ...k.publicKey.export({ format: 'jwk' }),
    kid,
    alg: k.alg,
    use: 'sig',
  })),
});

let issuer = '';
const hits = { discovery: 0, jwks: 0, actions: 0 };
let actionsAudience = '';

function sign(claims, kid) {
  const k = keys[kid];
  const input = `${b64(JSON.stringify({ alg: k.alg, kid, typ: 'JWT' }))}.${b64(JSON.stringify(claims))}`;
  const sig =
    k.alg === 'RS256'
      ? crypto.sign('sha256', Buffer.from(input), k.privateKey)
      : crypto.sign('sha256', Buffer.from(input), { key: k.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${b64(sig)}`;
}

function idToken({ sub = SUBJECT, aud = AUDIENCE, kid = 'rsa1', exp = 300 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return sign({ iss: issuer, sub, aud, iat: now, nbf: now, exp: now + exp, repository: 'acme/etl' }, kid);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, issuer);
  const json = (status, body) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === '/.well-known/openid-configuration') {
    hits.discovery++;
    return json(200, { issuer, jwks_uri: `${issuer}/jwks`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] });
  }
  if (url.pathname === '/jwks') {
    hits.jwks++;
    return json(200, jwks());
  }
  if (url.pathname === '/actions-token') {
    hits.actions++;
    if (req.headers.authorization !== `bearer ${REQUEST_TOKEN}`) return json(401, { message: 'bad token' });
    actionsAudience = url.searchParams.get('audience');
    return json(200, { count: 1, value: idToken({ aud: actionsAudience }) });
  }
  return json(404, {});
});

let serve = null;
let url = '';

before(async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${server.address().port}`;
  serve = await startServe({
    bin,
    catalog: path.join(dir, 'served'),
    logPath: path.join(dir, 'serve.log'),
    ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET,
    args: ['--oidc-audience', AUDIENCE],
  });
  url = serve.url;
});

after(async () => {
  if (serve) await serve.stop();
  server.close();
});

// Runs tarn without blocking the event loop (this process serves the issuer and the Actions
// endpoint that tarn and tarn serve call meanwhile).
function run(args, env) {
  return new Promise((resolve) => {
    const child = spawn(bin, ['--json', ...args, '--catalog', url], {
      env: { ...process.env, NO_COLOR: '1', TARN_CATALOG: '', TARN_CLIENT_ID: '', TARN_CLIENT_SECRET: '', TARN_TOKEN: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const asOwner = (args) => run(args, { TARN_CLIENT_ID: OWNER_ID, TARN_CLIENT_SECRET: OWNER_SECRET });
const ok = (r) => {
  assert.equal(r.code, 0, `${r.err}\n${serve.log()}`);
  return JSON.parse(r.out);
};
const errorOf = (r) => JSON.parse(r.err.trim().split('\n').pop()).error;
const actionsEnv = {
  ACTIONS_ID_TOKEN_REQUEST_URL: '',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
  TARN_OIDC_AUDIENCE: AUDIENCE,
};

test('a federated subject signs in from GitHub Actions and from a token file', async () => {
  actionsEnv.ACTIONS_ID_TOKEN_REQUEST_URL = `${issuer}/actions-token?api-version=2.0`;
  ok(await asOwner(['workspace', 'create', 'acme']));
  const ci = ok(await asOwner(['token', 'create', '--workspace', 'acme', '--role', 'writer', '--description', 'etl ci']));
  const rule = ok(await asOwner(['token', 'federate', '--issuer', issuer, '--subject', SUBJECT, '--client', ci.client_id]));
  assert.equal(rule.client_id, ci.client_id);
  assert.equal(rule.workspace, 'acme');
  assert.match(rule.id, /^fed_/);
  const rules = ok(await asOwner(['token', 'federations']));
  assert.deepEqual(rules.map((r) => [r.issuer, r.subject, r.client_id]), [[issuer, SUBJECT, ci.client_id]]);

  // GitHub Actions: the CLI asks the job's endpoint for a token for TARN_OIDC_AUDIENCE.
  const me = ok(await run(['whoami'], actionsEnv));
  assert.equal(me.actor, ci.client_id);
  assert.equal(me.workspace, 'acme');
  assert.equal(me.role, 'writer');
  assert.equal(actionsAudience, AUDIENCE);
  assert.equal(hits.actions, 1);
  ok(await run(['workspace', 'list'], actionsEnv));

  // A token file, read at every exchange: ES256 this time.
  const file = path.join(dir, 'id-token');
  const fileEnv = { TARN_OIDC_TOKEN_FILE: file };
  fs.writeFileSync(file, idToken({ kid: 'ec1' }) + '\n');
  assert.equal(ok(await run(['whoami'], fileEnv)).actor, ci.client_id);
  fs.writeFileSync(file, idToken({ exp: -3600 }));
  let r = await run(['whoami'], fileEnv);
  assert.equal(r.code, 5, r.err);
  assert.equal(errorOf(r).code, 'invalid_token', r.err);
  assert.equal(errorOf(r).reason, 'expired', r.err);
  fs.writeFileSync(file, idToken({ aud: 'someone-else' }));
  r = await run(['whoami'], fileEnv);
  assert.equal(errorOf(r).reason, 'wrong_audience', r.err);
  fs.writeFileSync(file, idToken({ sub: 'repo:acme/etl:ref:refs/heads/dev' }));
  r = await run(['whoami'], fileEnv);
  assert.equal(errorOf(r).reason, 'no_mapping', r.err);
  fs.writeFileSync(file, idToken({ kid: 'ec1' }));
  assert.equal(ok(await run(['whoami'], fileEnv)).actor, ci.client_id);

  // Every exchange above used one fetch of the issuer's keys.
  assert.equal(hits.discovery, 1);
  assert.equal(hits.jwks, 1);

  // Without the rule the issuer is no longer trusted at all.
  ok(await asOwner(['token', 'unfederate', rule.id]));
  r = await run(['whoami'], actionsEnv);
  assert.equal(r.code, 5, r.err);
  assert.equal(errorOf(r).reason, 'wrong_issuer', r.err);
  const audit = ok(await asOwner(['audit']));
  const actions = audit.map((a) => `${a.action}:${a.outcome}`).filter((a) => a.startsWith('federation.'));
  assert.deepEqual(actions, ['federation.create:ok', 'federation.delete:ok']);
});

test('a scoped owner cannot federate; bad issuers are refused', async () => {
  const scoped = ok(await asOwner(['token', 'create', '--workspace', 'acme', '--role', 'owner']));
  const env = { TARN_CLIENT_ID: scoped.client_id, TARN_CLIENT_SECRET: scoped.client_secret };
  let r = await run(['token', 'federate', '--issuer', issuer, '--subject', 's', '--client', scoped.client_id], env);
  assert.equal(r.code, 5, r.err);
  assert.equal(errorOf(r).code, 'permission_denied');
  r = await asOwner(['token', 'federate', '--issuer', 'http://issuer.example', '--subject', 's', '--client', scoped.client_id]);
  assert.equal(r.code, 2, r.err);
  assert.equal(errorOf(r).code, 'invalid_issuer');
  r = await asOwner(['token', 'federate', '--issuer', 'https://accounts.google.com', '--subject', 'ci@acme.iam.gserviceaccount.com', '--client', scoped.client_id]);
  assert.equal(errorOf(r).code, 'invalid_subject');
});
