#!/usr/bin/env bash
# CI, the Citus part (docs/scaling.md "On Citus"): builds and installs Citus into the machine's
# PostgreSQL 15 (../shared/citus/install.sh; does nothing when installed), starts a coordinator and
# two workers on loopback ports (CITUS_BASE_PORT, default 9710..9712), runs the named part of the
# suite (vitest.citus.config.ts) against the coordinator, and drops the cluster again. .ci/run runs it
# in the background beside its PGlite and PostgreSQL passes.
set -euo pipefail
cd "$(dirname "$0")/.."
citus_dir="${CITUS_DIR:-}"
if [ -z "$citus_dir" ]; then
  # Beside the project (../shared), one level up, or the workplace's own copy (a fresh clone made elsewhere).
  for d in ../shared/citus ../../shared/citus /work/shared/citus; do
    if [ -f "$d/install.sh" ]; then citus_dir="$(cd "$d" && pwd)"; break; fi
  done
fi
[ -n "$citus_dir" ] || { echo "Citus sources not found (set CITUS_DIR)" >&2; exit 1; }
base="${CITUS_BASE_PORT:-9710}"
name="mrs_ci_citus_$base"

bash "$citus_dir/install.sh"
bash "$citus_dir/cluster.sh" stop "$name" 3 >/dev/null 2>&1 || true
trap 'bash "$citus_dir/cluster.sh" stop "$name" 3' EXIT
# Stopped by .ci/run (SIGTERM to the process group): end through the EXIT trap, dropping the cluster.
trap 'exit 143' TERM
trap 'exit 130' INT
url="$(bash "$citus_dir/cluster.sh" start "$name" "$base" 2)"
echo "== the Citus part on a coordinator and two workers ($url)"
CITUS_DIR="$citus_dir" CITUS_CLUSTER_NAME="$name" CITUS_BASE_PORT="$base" DATABASE_URL="$url" \
  npm run test:citus
