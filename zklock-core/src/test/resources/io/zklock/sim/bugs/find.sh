#!/bin/sh
# Re-introduces each fixed bug of zklock-core, one at a time, and lets the simulation find it.
#
#   zklock-core/src/test/resources/io/zklock/sim/bugs/find.sh [N-name.patch ...]
#
# For each patch (all of this directory by default): a detached git worktree of HEAD in a temporary
# directory, the patch applied there, then the simulation's seeds of the patch's focus (its first
# line) until one fails (SimulationTest#findBug): it prints the seed, how many seeds and how much
# wall time it took, and the shrunk failure with its replay command (which needs the same patch).
# MVN_OPTS=-o builds offline; SEEDS bounds the search (3000). Nothing is installed; each worktree
# builds with its own target directories and is removed after.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
[ $# -gt 0 ] || set -- "$here"/*.patch
for p in "$@"; do
  case "$p" in /*) ;; *) p="$here/$p" ;; esac
  name=$(basename "$p" .patch)
  focus=$(sed -n 's/^# focus: //p' "$p" | head -1)
  tmp=$(mktemp -d)
  git -C "$root" worktree add --detach "$tmp/wt" HEAD >/dev/null
  echo "== $name (focus $focus)"
  (cd "$tmp/wt" && git apply "$p" && \
    ./mvnw -B -q ${MVN_OPTS:-} -pl zklock-core -am test -Dsurefire.failIfNoSpecifiedTests=false \
      -Dtest=SimulationTest#findBug -Dsim.find="$focus" -Dsim.seeds="${SEEDS:-3000}" \
      | grep -v '^\[INFO\]' || true)
  git -C "$root" worktree remove --force "$tmp/wt"
  rm -rf "$tmp"
done
