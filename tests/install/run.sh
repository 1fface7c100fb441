#!/usr/bin/env bash
# install.sdk: installs this build into a temporary prefix, builds tests/install (a separate
# project that sees only that prefix) and runs its two programs:
#   embedded_app  tarn::tarn: workspace, collection, dataset, append, scan back
#   remote_app    tarn::client: kUnavailable from a closed 127.0.0.1 port; its link line and
#                 the executable carry no SQLite, libpq or argon2 and no embedded catalog
# Usage: run.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 src=$2 scratch=$3
work=$(mktemp -d "$scratch/install.XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
prefix=$work/prefix

# quiet CMD...: its output only when it fails.
quiet() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }; }
quiet cmake --install "$build" --prefix "$prefix"
if grep -rq -- "$src/src" "$prefix/include" "$prefix/lib"*/cmake; then
  echo "the installed package names the source tree's src/:" >&2
  grep -rl -- "$src/src" "$prefix/include" "$prefix/lib"*/cmake >&2
  exit 1
fi
if grep -rhE '#include "(common|catalog|types|table|client|api|upload)/' "$prefix/include"; then
  echo "an installed header includes a src/ header" >&2
  exit 1
fi

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
quiet cmake -S "$src/tests/install" -B "$work/build" "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
quiet cmake --build "$work/build" -j "${TARN_JOBS:-2}"

"$work/build/embedded_app" "$work/catalog"

# The client-only program: nothing of the embedded engine on its link line or in the binary.
if [[ -f $work/build/build.ninja ]]; then
  link=$(ninja -C "$work/build" -t commands remote_app | tail -1)
else
  link=$(cat "$work/build/CMakeFiles/remote_app.dir/link.txt")
fi
if grep -Eo -- '[^ ]*(sqlite3|libpq|-lpq|argon2|tarn_catalog|tarn_metastore|tarn_connect)[^ ]*' \
    <<<"$link"; then
  echo "remote_app's link line pulls the embedded engine: $link" >&2
  exit 1
fi
if readelf -d "$work/build/remote_app" | grep -E 'NEEDED.*(sqlite3|libpq|argon2)'; then
  echo "remote_app needs a library of the embedded engine" >&2
  exit 1
fi
if nm -C "$work/build/remote_app" | grep -E ' (sqlite3_|PQ|argon2)| tarn::Catalog::' | head -5 |
    grep .; then
  echo "remote_app holds code of the embedded engine" >&2
  exit 1
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$work/build/remote_app" "$port"
