# The vendored Lua interpreter (third_party/lua) cross-built for aarch64 and
# run under qemu-aarch64, for the cs_etm_*lua* tests and bench/. Sourced
# after common.bash (or with PERFTK_SOURCE_DIR set), never run.
# shellcheck source=qemu_etm.bash
source "$(dirname "${BASH_SOURCE[0]}")/qemu_etm.bash"
LUA_SOURCE=${PERFTK_SOURCE_DIR:?set by ctest}/third_party/lua/src/onelua.c

# `build_lua OUT COMPILER...`: Lua non-PIE with relocations kept (BOLT's
# relocation mode), dynamically linked. luai_makeseed: Lua seeds its string
# hashes with the time, and the instructions it runs depend on the seed.
build_lua() {
  local out=$1
  shift
  "$@" -std=gnu99 -O2 -g -no-pie -Wl,--emit-relocs -DLUA_USE_POSIX '-Dluai_makeseed(L)=0' \
    -o "$out" "$LUA_SOURCE" -lm
}
