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

# The four configurations: release, ASan+UBSan, TSan (clang), and libFuzzer
# (clang). TSan is built with clang so that its whole build, every room and
# test, also passes clang's -Wthread-safety check of the lock annotations
# (CMakeLists.txt); a build-tsan made by gcc before is made again.
configure_release() { configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo; }
configure_asan() { configure build-asan -DCMAKE_BUILD_TYPE=Debug -DPERFTK_SANITIZE=ON; }
configure_tsan() {
  if [ -f build-tsan/CMakeCache.txt ] &&
    ! grep -q '^CMAKE_CXX_COMPILER:.*clang' build-tsan/CMakeCache.txt; then
    rm -rf build-tsan
  fi
  CC=clang CXX=clang++ configure build-tsan -DCMAKE_BUILD_TYPE=Debug -DPERFTK_TSAN=ON
}
configure_fuzz() {
  CC=clang CXX=clang++ configure build-fuzz -DPERFTK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
}
