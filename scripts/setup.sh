#!/usr/bin/env bash
# Installs perftk's Debian packages (when run as root) and builds every
# configuration the tests use: release, ASan+UBSan, TSan, and the fuzzer.
#   sudo scripts/setup.sh        # or as root: scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config clang lld binutils xz-utils
  libelf-dev libdw-dev libopencsd-dev libabsl-dev libcli11-dev libgtest-dev libgmock-dev
  libzstd-dev liblzma-dev libclang-rt-14-dev linux-perf python3 nodejs llvm elfutils
  gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu gcc-s390x-linux-gnu binutils-s390x-linux-gnu
  libc6-dev-arm64-cross libc6-dev-s390x-cross systemtap-sdt-dev python3.11
)

if [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
else
  missing=$(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>&1 |
    grep -v 'install ok installed' | awk '{print $1}' | tr '\n' ' ' || true)
  if [ -n "$missing" ]; then
    echo "missing packages (run as root to install): $missing" >&2
    exit 1
  fi
fi

# Let ccache share objects between checkouts in different folders (CI clones).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

configure() {  # build-dir, then cmake options
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] || cmake -S . -B "$dir" -G Ninja -DPERFTK_WERROR=ON "$@" >/dev/null
}

configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo
configure build-asan -DCMAKE_BUILD_TYPE=Debug -DPERFTK_SANITIZE=ON
configure build-tsan -DCMAKE_BUILD_TYPE=Debug -DPERFTK_TSAN=ON
if [ -f tests/fuzz/CMakeLists.txt ]; then
  [ -f build-fuzz/build.ninja ] || CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja \
    -DPERFTK_WERROR=ON -DPERFTK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi

ninja -C build
ninja -C build-asan
ninja -C build-tsan perftk_machine_tests perftk_cs_etm_tests perftk_jit_tests
[ ! -d build-fuzz ] || ninja -C build-fuzz perftk_reader_fuzzer perftk_cs_etm_info_fuzzer \
  perftk_cs_etm_decoder_fuzzer
echo "perftk built: build/src/perftk"
