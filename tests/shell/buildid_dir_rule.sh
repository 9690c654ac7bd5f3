#!/usr/bin/env bash
# One rule for where perf's build-id cache is, in every subcommand that
# reads or fills it (issue 32): --buildid-dir DIR, else $PERF_BUILDID_DIR,
# else buildid.dir in perf's config ($PERF_CONFIG, else ~/.perfconfig),
# else ~/.debug. cs-etm-decode finds the traced binary there, unwind the
# workload, jit stores its files there; each way of naming the cache gives
# the output the binary in place gives, and no cache gives another.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
build_workload
perf record -q -e cpu-clock --call-graph dwarf -o dwarf.data -- ./workload 100 >/dev/null 2>&1
unset PERF_BUILDID_DIR PERF_CONFIG
mkdir home
export HOME=$WORK/home

# put_in_cache DIR FILE RECORDED_PATH HEX: FILE cached as perf caches it.
put_in_cache() {
  mkdir -p "$1$3/$4" "$1/.build-id/${4:0:2}"
  cp "$2" "$1$3/$4/elf"
  ln -s "../..$3/$4" "$1/.build-id/${4:0:2}/${4:2}"
}
# same_each_way NAME WANT CMD...: CMD (whose output is out.NAME.*) gives
# WANT's bytes with the cache named by each way, and other bytes without.
same_each_way() {
  local name=$1 want=$2 way
  shift 2
  "$@" --buildid-dir "$WORK/cache" >/dev/null 2>&1 && cp out out.option
  PERF_BUILDID_DIR=$WORK/cache "$@" >/dev/null 2>&1 && cp out out.env
  printf '[buildid]\n\tdir = %s\n' "$WORK/cache" >perfconfig
  PERF_CONFIG=$WORK/perfconfig "$@" >/dev/null 2>&1 && cp out out.perf_config
  printf '# perf config\n[buildid]\n  dir = "%s" ; the cache\n' "$WORK/cache" >home/.perfconfig
  "$@" >/dev/null 2>&1 && cp out out.perfconfig
  rm home/.perfconfig
  ln -s "$WORK/cache" home/.debug
  "$@" >/dev/null 2>&1 && cp out out.home
  rm home/.debug
  for way in option env perf_config perfconfig home; do
    check "$name: the cache named by $way gives the output of the binary in place" \
      cmp -s "$want" out.$way
  done
  rm -f out
  "$@" >/dev/null 2>&1 || true
  check "$name: without the cache the output differs (the check can fail)" \
    eval "[ ! -e out ] || ! cmp -s '$want' out"
  rm -f out.*
}

# cs-etm-decode: the traced binary by its recorded path and build id.
copy_etm_recording
put_in_cache "$WORK/cache" etm/etm_test_loop /data/local/tmp/etm_test_loop \
  0c9a20bf9c009d0e4e8bbf9fad0300ae
"$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --symfs etm --format=autofdo -o want.afdo
same_each_way cs-etm-decode want.afdo \
  "$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --format=autofdo -o out
# A --buildid-dir that does not exist is an empty cache; one that is a
# file is refused as a usage error, before anything is read.
"$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --format=autofdo -o nocache.afdo 2>/dev/null
set +e
"$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --format=autofdo --buildid-dir "$WORK/missing" \
  -o missing.afdo 2>missing.err
rc_missing=$?
"$PERFTK" cs-etm-decode -q -i etm/perf_etm.data --format=autofdo --buildid-dir "$WORK/want.afdo" \
  -o file.afdo 2>file.err
rc_file=$?
set -e
check "--buildid-dir naming no directory: exit 0 (got $rc_missing)" test "$rc_missing" = 0
check "--buildid-dir naming no directory: the output of no cache" cmp -s nocache.afdo missing.afdo
check "--buildid-dir naming no directory: nothing made there" test ! -e "$WORK/missing"
check "--buildid-dir naming a file: exit 2 (got $rc_file)" test "$rc_file" = 2
check "--buildid-dir naming a file: the message says so ($(head -1 file.err))" \
  has -F "want.afdo is not a directory" file.err
check "--buildid-dir naming a file: no output" test ! -e file.afdo
rm -rf cache

# unwind: the workload, gone from its path, found in the cache.
"$PERFTK" unwind -q -i dwarf.data -o want.data
hex=$(readelf -n workload | awk '/Build ID/ { print $3 }')
put_in_cache "$WORK/cache" workload "$WORK/workload" "$hex"
mv workload workload.away
same_each_way unwind want.data "$PERFTK" unwind -q -i dwarf.data -o out
mv workload.away workload
rm -rf cache

# jit --buildid-cache (no DIR): the files land in the cache the rule names.
if command -v node >/dev/null; then
  source "$LIB_DIR/jit_node.bash"
  HOME=$WORK BENCH_MS=200 record_node node.data  # perf fills its own ~/.debug
  for way in option env perfconfig; do
    rm -rf jd cache && mkdir jd
    case $way in
      option) "$PERFTK" jit -q -i node.data -o j.data --jit-dir jd --buildid-cache --buildid-dir "$WORK/cache" ;;
      env) PERF_BUILDID_DIR=$WORK/cache "$PERFTK" jit -q -i node.data -o j.data --jit-dir jd --buildid-cache ;;
      perfconfig)
        printf '[buildid]\ndir=%s\n' "$WORK/cache" >home/.perfconfig
        "$PERFTK" jit -q -i node.data -o j.data --jit-dir jd --buildid-cache
        rm home/.perfconfig
        ;;
    esac
    cached=$(find cache -name elf 2>/dev/null | wc -l)
    check "jit --buildid-cache, cache named by $way: one cached file per .so ($cached)" \
      test "$cached" -gt 0 -a "$cached" -eq "$(ls jd | wc -l)"
  done
else
  echo "note: node is not installed: jit's cache is not checked"
fi
checks_summary
