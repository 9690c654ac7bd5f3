# The vendored Lua interpreter (third_party/lua) cross-built for aarch64 and
# run under qemu-aarch64, for the cs_etm_*lua* tests and bench/. Sourced
# after common.bash (or with PERFTK_SOURCE_DIR set), never run.
# shellcheck source=qemu_etm.bash
source "$(dirname "${BASH_SOURCE[0]}")/qemu_etm.bash"
LUA_SOURCE=${PERFTK_SOURCE_DIR:?set by ctest}/third_party/lua/src/onelua.c
QEMU_LUA_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# `build_lua OUT COMPILER...`: Lua non-PIE with relocations kept (BOLT's
# relocation mode), dynamically linked. luai_makeseed: Lua seeds its string
# hashes with the time, and the instructions it runs depend on the seed.
build_lua() {
  local out=$1
  shift
  "$@" -std=gnu99 -O2 -g -no-pie -Wl,--emit-relocs -DLUA_USE_POSIX '-Dluai_makeseed(L)=0' \
    -o "$out" "$LUA_SOURCE" -lm
}

# `exec_ranges BINARY`: its executable PT_LOADs as FIRST-END (hex).
exec_ranges() {
  aarch64-linux-gnu-readelf -lW "$1" | while read -r type _ vaddr _ _ memsz flags; do
    if [ "$type" = LOAD ] && [[ $flags == *E* ]]; then
      printf '%x-%x\n' $((vaddr)) $((vaddr + memsz))
    fi
  done
}

# `taken_branches BINARY ARG...`: runs BINARY (an aarch64 program) under
# qemu one instruction at a time, its stdout in BINARY.out, and prints
# "TAKEN EXECUTED": the instructions it executed in BINARY's own code and
# the taken branches among them (taken_branches.pl). qemu runs with an
# empty environment, so that two runs are one.
taken_branches() {
  local binary=$1
  shift
  local ranges
  ranges=$(exec_ranges "$binary")
  [ -n "$ranges" ] || return 1
  # shellcheck disable=SC2086 # one argument per range
  env -i "$(command -v qemu-aarch64)" -L "$QEMU_PREFIX" -singlestep -d exec,nochain \
    -D /dev/stderr "$binary" "$@" 2>&1 >"$binary.out" | perl "$QEMU_LUA_LIB/taken_branches.pl" $ranges
}
