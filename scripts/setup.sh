#!/usr/bin/env bash
# Installs perftk's Debian packages (when run as root) and builds the release
# binary, build/src/perftk; scripts/test.sh builds what the tests need.
#   sudo scripts/setup.sh        # or as root: scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config clang clang-format lld binutils xz-utils
  libelf-dev libdw-dev libopencsd-dev libabsl-dev libcli11-dev libgtest-dev libgmock-dev
  libzstd-dev liblzma-dev zlib1g-dev libclang-rt-14-dev linux-perf python3 nodejs llvm elfutils
  gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu gcc-s390x-linux-gnu binutils-s390x-linux-gnu
  libc6-dev-arm64-cross libc6-dev-s390x-cross
  bolt-16 autofdo llvm-16 dpkg-dev man-db parallel systemtap-sdt-dev python3.11 qemu-user jq
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

source scripts/lib/build.bash
configure_release
# The binary and its manual pages and completion (cmake --install needs them);
# scripts/test.sh builds the tests and the other configurations it runs.
build build perftk perftk_docs
echo "perftk built: build/src/perftk"
