# The build folders scripts/setup.sh and scripts/test.sh share, configured on
# first use and then built incrementally. Sourced, never run; the caller is
# at the top of the repository.
#   configure DIR [cmake options]   cmake -G Ninja with warnings as errors, once
#   build DIR [targets]             ninja, quiet unless it fails

# Let ccache share objects between checkouts in different folders (CI clones).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

configure() {
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] || cmake -S . -B "$dir" -G Ninja -DPERFTK_WERROR=ON "$@" >/dev/null
}

build() {
  local dir=$1 output
  shift
  output=$(ninja -C "$dir" "$@" 2>&1) || { echo "$output" >&2; return 1; }
}

# The four configurations: release (the default compiler, gcc on Debian),
# ASan+UBSan, TSan and libFuzzer (clang). The sanitizer builds use clang:
# it compiles them in about half gcc's time (an ASan build of the CLI and
# the tests: 45% less CPU), and its -Wthread-safety checks the lock
# annotations (CMakeLists.txt) of every room and test. A build folder that
# gcc made before is made again.
configure_clang() {
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] &&
    ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  CC=clang CXX=clang++ configure "$dir" "$@"
}
configure_release() { configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo; }
configure_asan() { configure_clang build-asan -DCMAKE_BUILD_TYPE=Debug -DPERFTK_SANITIZE=ON; }
configure_tsan() { configure_clang build-tsan -DCMAKE_BUILD_TYPE=Debug -DPERFTK_TSAN=ON; }
configure_fuzz() { configure_clang build-fuzz -DPERFTK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo; }
