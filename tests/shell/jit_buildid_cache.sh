#!/usr/bin/env bash
# perftk jit --buildid-cache stores the jitted files in perf's build-id
# cache, so perf report still names the JS functions after the .so files are
# deleted; without the option nothing is written to $HOME (checked by
# perftk_jit) and, the files gone, the names are gone too. Without DIR the
# cache is where perf and perftk's other commands look: $PERF_BUILDID_DIR,
# else ~/.debug.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/jit_node.bash"
require_perf
require_node

record_node perf.data
mkdir ours merged plain home
HOME="$WORK/home" "$PERFTK" jit -q -i perf.data -o ours.data --jit-dir ours --buildid-cache ||
  fail "perftk jit --buildid-cache failed"
"$PERFTK" jit -q -i perf.data -o merged.data --jit-dir merged --merge \
  --buildid-cache="$WORK/cache" || fail "perftk jit --buildid-cache=DIR failed"
perftk_jit -i perf.data -o plain.data --jit-dir plain

# perf's layout: <dir>/<path>/<build id>/elf and .build-id/xx/<rest> -> ../../<path>/<build id>.
so=$(find ours -name "*.so" -print -quit)
id=$(perf buildid-list -i ours.data 2>/dev/null | awk -v f="$WORK/$so" '$2 == f { print $1 }')
[ -n "$id" ] || fail "ours.data has no build id for $WORK/$so"
[ -f "home/.debug$WORK/$so/$id/elf" ] || fail "no home/.debug$WORK/$so/$id/elf"
[ "$(readlink "home/.debug/.build-id/${id:0:2}/${id:2}")" = "../..$WORK/$so/$id" ] ||
  fail "bad .build-id link: $(readlink "home/.debug/.build-id/${id:0:2}/${id:2}")"
cached=$(find home/.debug -name elf | wc -l)
[ "$cached" -eq "$(ls ours | wc -l)" ] || fail "$cached cached files for $(ls ours | wc -l) .so"

mkdir envjit envhome
PERF_BUILDID_DIR="$WORK/envcache" HOME="$WORK/envhome" "$PERFTK" jit -q -i perf.data \
  -o env.data --jit-dir envjit --buildid-cache || fail "perftk jit --buildid-cache failed"
[ "$(find envcache -name elf | wc -l)" -eq "$(ls envjit | wc -l)" ] ||
  fail "PERF_BUILDID_DIR: $(find envcache -name elf | wc -l) cached files for $(ls envjit | wc -l) .so"
[ -z "$(ls -A envhome)" ] || fail "PERF_BUILDID_DIR set, yet written to HOME: $(ls -A envhome)"

for out in ours merged; do
  cache="$WORK/home"
  [ $out = merged ] && { mkdir -p cachehome; ln -sfn "$WORK/cache" cachehome/.debug; cache="$WORK/cachehome"; }
  HOME="$cache" report_of $out.data --sort dso,sym -g none >$out.before
  grep -q 'JS:\*fib' $out.before || fail "$out: no JS:*fib in the report: $(head -3 $out.before)"
  rm -rf $out
  HOME="$cache" report_of $out.data --sort dso,sym -g none >$out.after
  same_listing "perf report after deleting the .so files ($out)" $out.before $out.after
done

# Without a cache, deleting the files loses the names: the cache is what found them.
rm -rf plain
HOME="$WORK/perftk-home" report_of plain.data --sort dso,sym -g none >plain.after
! grep -q 'JS:\*fib' plain.after || fail "JS:*fib resolved without the files or a cache"
echo "ok: $cached files cached; reports identical after deleting the .so files"
