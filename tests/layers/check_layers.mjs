// The layering test (ctest unit.layers): every `#include "module/..."` in src/ and include/ is
// an edge the dependency table of docs/architecture.md allows.
//
// The table is the one under the heading "## Dependencies": one row per module,
//   | `module` | `dep`, `dep` | `test dep`, ... |
// where the second column lists the modules its library may include (directly; what those
// include is allowed through them) and the third what its tests (*_test.cc, *test_util.h,
// test_fixture.h) may include besides. `-` means none. The check fails when
//   - a directory of src/ has no row, or a row names no directory of src/;
//   - the table has a cycle;
//   - a file includes a module outside the transitive closure of its row (tests: of its row and
//     its test column);
//   - a file includes another module's internal header (*_internal.h);
//   - a public header (include/tarn/*.h) includes anything but the standard library and other
//     public headers;
//   - a file that is not a test includes a third-party header (a row of the table under
//     "## Third-party libraries": | library | `header`, `dir/` | `module`, ... |) outside the
//     modules that row names.
// Usage: node tests/layers/check_layers.mjs [repository root]
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] || path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..'));
const problems = [];

function readTable() {
  const text = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const at = text.indexOf('\n## Dependencies');
  if (at < 0) throw new Error('docs/architecture.md has no "## Dependencies" section');
  const section = text.slice(at + 1).split(/\n## /)[0];
  const rows = new Map();
  for (const line of section.split('\n')) {
    const m = line.match(/^\|\s*`([a-z_]+)`\s*\|([^|]*)\|([^|]*)\|/);
    if (!m) continue;
    const list = (cell) => [...cell.matchAll(/`([a-z_]+)`/g)].map((x) => x[1]);
    if (rows.has(m[1])) problems.push(`docs/architecture.md: module ${m[1]} has two rows`);
    rows.set(m[1], { deps: list(m[2]), testDeps: list(m[3]) });
  }
  if (rows.size === 0) throw new Error('the "## Dependencies" table of docs/architecture.md has no rows');
  return rows;
}

// [{ library, headers: ['zstd.h', 'openssl/'], modules: Set }]: a header ending in '/' is a
// directory prefix.
function readThirdParty() {
  const text = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const at = text.indexOf('\n## Third-party libraries');
  if (at < 0) throw new Error('docs/architecture.md has no "## Third-party libraries" section');
  const section = text.slice(at + 1).split(/\n## /)[0];
  const libs = [];
  for (const line of section.split('\n')) {
    const m = line.match(/^\|([^|`]+)\|([^|]*)\|([^|]*)\|/);
    if (!m || m[1].trim() === 'library' || /^-+$/.test(m[1].trim())) continue;
    const ticks = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((x) => x[1]);
    const modules = new Set(ticks(m[3]).filter((x) => rows.has(x)));
    libs.push({ library: m[1].trim(), headers: ticks(m[2]), modules });
  }
  if (libs.length === 0) throw new Error('the "## Third-party libraries" table has no rows');
  return libs;
}

const rows = readTable();
const thirdParty = readThirdParty();
const libraryOf = (header) =>
  thirdParty.find((l) => l.headers.some((h) => (h.endsWith('/') ? header.startsWith(h) : header === h)));
const modules = fs.readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory()).map((d) => d.name);
for (const m of modules) if (!rows.has(m)) problems.push(`src/${m} has no row in the dependency table`);
for (const [m, r] of rows) {
  if (!modules.includes(m)) problems.push(`the dependency table names ${m}, which is not a directory of src/`);
  for (const d of [...r.deps, ...r.testDeps]) {
    if (!rows.has(d)) problems.push(`the row of ${m} names ${d}, which has no row`);
  }
}

// Transitive closure, with cycle detection.
const closure = new Map();
function reach(m, stack = []) {
  if (closure.has(m)) return closure.get(m);
  if (stack.includes(m)) {
    problems.push(`the dependency table has a cycle: ${[...stack, m].join(' -> ')}`);
    return new Set();
  }
  const out = new Set();
  for (const d of rows.get(m)?.deps ?? []) {
    out.add(d);
    for (const x of reach(d, [...stack, m])) out.add(x);
  }
  closure.set(m, out);
  return out;
}
for (const m of rows.keys()) reach(m);

function* files(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'testdata') yield* files(p);
    } else if (/\.(h|cc)$/.test(e.name)) {
      yield p;
    }
  }
}
const includeRe = /^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm;
const isTestFile = (f) => /(_test\.cc|test_util\.h|test_fixture\.h)$/.test(f);

let edges = 0;
let thirdPartyIncludes = 0;
for (const m of modules) {
  if (!rows.has(m)) continue;
  for (const f of files(path.join(root, 'src', m))) {
    const rel = path.relative(root, f);
    const allowed = new Set([m, ...closure.get(m)]);
    if (isTestFile(f)) {
      for (const d of rows.get(m).testDeps) {
        allowed.add(d);
        for (const x of closure.get(d) ?? []) allowed.add(x);
      }
    }
    for (const inc of fs.readFileSync(f, 'utf8').matchAll(includeRe)) {
      if (inc[1] === '<') {
        const lib = isTestFile(f) ? undefined : libraryOf(inc[2]);
        if (lib) {
          thirdPartyIncludes++;
          if (!lib.modules.has(m)) {
            problems.push(`${rel} includes <${inc[2]}>: ${lib.library} is wrapped by ${[...lib.modules].join(', ') || 'no module (tests only)'}, not ${m}`);
          }
        }
        continue;
      }
      const first = inc[2].split('/')[0];
      if (first === 'tarn' || !inc[2].includes('/')) continue;  // public headers; same folder
      if (!rows.has(first)) continue;  // not a module (a third-party path)
      edges++;
      if (first !== m && /_internal\.h$/.test(inc[2])) {
        problems.push(`${rel} includes "${inc[2]}": a module's *_internal.h is for its own files`);
      }
      if (!allowed.has(first)) problems.push(`${rel} includes "${inc[2]}": ${m} may not depend on ${first}`);
    }
  }
}

const publicDir = path.join(root, 'include', 'tarn');
for (const f of fs.existsSync(publicDir) ? files(publicDir) : []) {
  const rel = path.relative(root, f);
  for (const inc of fs.readFileSync(f, 'utf8').matchAll(includeRe)) {
    const name = inc[2];
    if (inc[1] === '"' ? !name.startsWith('tarn/') : name.includes('/') && !name.startsWith('tarn/')) {
      problems.push(`${rel} includes ${inc[1]}${name}${inc[1] === '"' ? '"' : '>'}: a public header includes only the standard library and tarn/ headers`);
    } else if (inc[1] === '<' && name.includes('.') && !name.startsWith('tarn/')) {
      problems.push(`${rel} includes <${name}>: a public header includes only the standard library and tarn/ headers`);
    }
  }
}

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`layers: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`layers: ${edges} includes across ${modules.length} modules and ${thirdPartyIncludes} third-party includes follow docs/architecture.md`);
