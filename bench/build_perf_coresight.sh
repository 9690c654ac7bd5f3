#!/usr/bin/env bash
# Builds perf with CoreSight (OpenCSD) support from Debian's kernel source, to
# compare perftk cs-etm-decode with `perf script --itrace=...` (the perf of
# linux-perf is built without it). Not a test; takes ~6 min on 2 cores.
#
#   bench/build_perf_coresight.sh [DIR]     (default /tmp/perf-coresight)
#   → DIR/out/perf; pass it as PERF_CORESIGHT=DIR/out/perf to bench/cs_etm.sh
#     and tests/shell/cs_etm_perf61_oracle.sh
set -euo pipefail
dir=$(realpath -m "${1:-/tmp/perf-coresight}")
if [ ! -f /usr/src/linux-source-6.1.tar.xz ]; then
  apt-get install -y -q linux-source-6.1 flex bison >/dev/null
fi
mkdir -p "$dir/out"
cd "$dir"
if [ ! -d linux-source-6.1/tools/perf ]; then
  tar xJf /usr/src/linux-source-6.1.tar.xz --wildcards 'linux-source-6.1/tools/*' \
    'linux-source-6.1/include/*' 'linux-source-6.1/arch/x86/*' 'linux-source-6.1/arch/arm64/*' \
    'linux-source-6.1/arch/arm/*' 'linux-source-6.1/scripts/*' 'linux-source-6.1/Makefile' \
    'linux-source-6.1/lib/*'
fi
# Only what cs-etm decoding needs; CORESIGHT=1 links libopencsd (libopencsd-dev).
make -C linux-source-6.1/tools/perf -j"$(nproc)" O="$dir/out" CORESIGHT=1 \
  NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_JVMTI=1 NO_LIBBPF=1 NO_BPF_SKEL=1 \
  NO_LIBTRACEEVENT=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBCRYPTO=1 NO_LIBBABELTRACE=1 NO_SDT=1 \
  NO_LIBCAP=1 >"$dir/build.log" 2>&1 || { tail -20 "$dir/build.log"; exit 1; }
[ -f "$dir/out/util/cs-etm.o" ] || { echo "perf was built without CoreSight support" >&2; exit 1; }
echo "$dir/out/perf"
