#!/usr/bin/env bash
# Many recordings into one profile (issue 16): cs-etm-decode with several
# inputs and merge-profiles, on the two real simpleperf recordings of
# etm_test_loop (one formatted ETMv4, one raw ETE; each decodes to
# simpleperf's perf_inject.data on its own):
#   - together they give every count of perf_inject.data twice (106c->1074:200,
#     1080->105c:200), with -i repeated, -i @LIST and --jobs 2 alike;
#   - merge-profiles of their single decodes gives the same bytes, for
#     AutoFDO and BOLT, and perf2bolt --pa reads the merged BOLT text with
#     both loop edges 200 times;
#   - two builds of one path stay apart (AutoFDO) or are refused (BOLT);
#   - --binary, saturation, usage errors, bad inputs.
# Then two generated recordings through two binaries each (program and
# kernel image): the multi-input decode equals the merge of the single ones.
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
PERF2BOLT=${PERF2BOLT:-/usr/lib/llvm-16/bin/perf2bolt}
A=$ETM/perf_etm.data
B=$ETM/perf_with_unformatted_trace.data
decode() { "$PERFTK" cs-etm-decode -q --symfs "$ETM" "$@"; }

# perf_inject.data with every count doubled: the expected sum of the two.
awk -F: '/^[0-9a-f]+(-|->)[0-9a-f]+:[0-9]+$/ { print $1 ":" $2 * 2; next } { print }' \
  "$ETM/perf_inject.data" >want.afdo
grep -qx '106c->1074:200' want.afdo || fail "the doubled oracle lacks 106c->1074:200"
cmp -s want.afdo "$ETM/perf_inject.data" && fail "doubling changed nothing"

decode -i "$A" --format=autofdo -o a.afdo
decode -i "$B" --format=autofdo -o b.afdo
cmp a.afdo "$ETM/perf_inject.data" || fail "perf_etm.data alone is not simpleperf's text"
decode -i "$A" -i "$B" --format=autofdo -o both.afdo
cmp both.afdo want.afdo || fail "two recordings: $(diff want.afdo both.afdo | head -6 | tr '\n' ';')"
for line in '106c->1074:200' '1080->105c:200'; do
  grep -qx "$line" both.afdo || fail "no $line in the sum"
done
printf '%s\n\n%s\n' "$A" "$B" >list
decode -i @list --format=autofdo --jobs 2 -o list.afdo
cmp list.afdo want.afdo || fail "-i @LIST --jobs 2 differs"
decode -i "$B" -i "$A" -i "$A" -i "$B" --format=autofdo --jobs 3 -o four.afdo
grep -qx '106c->1074:400' four.afdo || fail "four recordings: no 106c->1074:400"
"$PERFTK" merge-profiles -q -o merged.afdo a.afdo b.afdo
cmp merged.afdo both.afdo || fail "merge-profiles differs from the multi-input decode (AutoFDO)"
echo "ok: two recordings give perf_inject.data twice; merge-profiles gives the same bytes"

# BOLT: the same sum, through perf2bolt.
decode -i "$A" --format=bolt -o a.pa
decode -i "$B" --format=bolt -o b.pa
decode -i "$A" -i "$B" --format=bolt -o both.pa
"$PERFTK" merge-profiles -q -o merged.pa a.pa b.pa
cmp merged.pa both.pa || fail "merge-profiles differs from the multi-input decode (BOLT)"
head -1 both.pa | has '^F 0c9a20bf9c009d0e4e8bbf9fad0300ae00000000:' ||
  fail "the BOLT text does not name its build id: $(head -1 both.pa)"
join <(sed -E 's/^([FB]) [0-9a-f]+:/\1 /' a.pa | awk '{ print $1 "_" $2 "_" $3, $4 }' | sort) \
  <(sed -E 's/^([FB]) [0-9a-f]+:/\1 /' both.pa | awk '{ print $1 "_" $2 "_" $3, $4 }' | sort) |
  awk '$3 != 2 * $2 { bad = 1; print "not doubled:", $0 } END { exit bad }' ||
  fail "a BOLT count is not twice the single one"
[ "$(wc -l <both.pa)" -eq "$(wc -l <a.pa)" ] || fail "the BOLT sum has other lines than one decode"
if [ -x "$PERF2BOLT" ]; then
  "$PERF2BOLT" --pa -p merged.pa -o merged.fdata "$ETM/etm_test_loop" >p2b.log 2>&1 ||
    fail "perf2bolt --pa rejects the merged profile: $(grep -i error p2b.log | head -2)"
  # "1 __BOLT_FDE_FUNCat<start> OFFSET 1 ... OFFSET MISPRED COUNT": addresses from names.
  while read -r is_sym from off is_sym2 to off2 mispred count; do
    [[ $is_sym == 1 && $is_sym2 == 1 && $from == *FUNCat* && $to == *FUNCat* ]] || continue
    printf '%x->%x %d\n' $((0x${from##*FUNCat} + 0x$off)) $((0x${to##*FUNCat} + 0x$off2)) "$count"
  done <merged.fdata >edges
  for edge in '106c->1074 200' '1080->105c 200'; do
    grep -qx "$edge" edges || fail "perf2bolt --pa: no '$edge' in: $(tr '\n' ';' <edges)"
  done
  echo "ok: perf2bolt --pa reads the merged BOLT profile: $(tr '\n' ';' <edges)"
else
  echo "note: no perf2bolt at $PERF2BOLT: the merged BOLT text is not given to it"
fi

# Two builds of one path: AutoFDO keeps two binaries, BOLT refuses.
sed 's|^// build_id: 0x0c9a|// build_id: 0xffff|' a.afdo >other_build.afdo
"$PERFTK" merge-profiles -q -o builds.afdo a.afdo other_build.afdo b.afdo
[ "$(grep -c '^// /data/local/tmp/etm_test_loop$' builds.afdo)" -eq 2 ] ||
  fail "two builds of one path were not kept apart: $(grep '^//' builds.afdo | tr '\n' ';')"
grep -qx '106c->1074:200' builds.afdo || fail "the first build's counts are not summed"
grep -qx '106c->1074:100' builds.afdo || fail "the second build's counts are not its own"
sed '1s|^F 0c9a|F ffff|' a.pa >other_build.pa
expect_exit 1 "$PERFTK" merge-profiles -o builds.pa a.pa other_build.pa
grep -q "other_build.pa: a BOLT profile of build id ffff.*, but the inputs before it are of build id 0c9a" \
  cmd.err || fail "the refusal does not name both builds: $(cat cmd.err)"
[ ! -e builds.pa ] || fail "a refused merge left its output"
sed '1s|^F [0-9a-f]*:|F |' a.pa >no_build.pa
expect_exit 1 "$PERFTK" merge-profiles -o x.pa a.pa no_build.pa
grep -q "no_build.pa: this BOLT text names no build id" cmd.err || fail "$(cat cmd.err)"
expect_exit 1 "$PERFTK" merge-profiles -o x a.afdo a.pa
grep -q "a.pa: BOLT pre-aggregated text, but the inputs before it are AutoFDO text" cmd.err ||
  fail "mixed formats: $(cat cmd.err)"
echo "ok: two builds of one path stay apart (AutoFDO) or are refused (BOLT); mixed formats refused"

# --binary keeps binaries by path; a bad regex is a usage error.
decode -i "$A" -i "$B" --format=autofdo --binary 'etm_test_loop$' -o kept.afdo
cmp kept.afdo want.afdo || fail "--binary 'etm_test_loop\$' dropped the binary"
decode -i "$A" -i "$B" --format=autofdo --binary '^/system/' -o none.afdo 2>none.err
[ ! -s none.afdo ] || fail "--binary '^/system/' kept: $(tail -2 none.afdo)"
grep -q "matches none of the binaries the trace ran in: /data/local/tmp/etm_test_loop" none.err ||
  fail "no warning that --binary matched nothing: $(cat none.err)"
"$PERFTK" merge-profiles -q --binary 'libc' -o none2.afdo both.afdo
[ ! -s none2.afdo ] || fail "merge-profiles --binary libc kept a binary"
expect_exit 2 "$PERFTK" merge-profiles --binary 'x' -o none.pa a.pa
grep -q "a.pa is a BOLT text, which names no path" cmd.err || fail "$(cat cmd.err)"
expect_exit 2 "$PERFTK" cs-etm-decode -i "$A" --format=autofdo --binary '(' -o x.afdo
expect_exit 2 "$PERFTK" cs-etm-decode -i "$A" --format=script --binary 'x'

# Counts saturate with a warning.
big=9223372036854775000
printf '1\n10-20:%s\n0\n1\n20->10:%s\n// /p\n' $big $big >big.afdo
"$PERFTK" merge-profiles -o sat.afdo big.afdo big.afdo 2>sat.err
grep -qx '10-20:9223372036854775807' sat.afdo || fail "no saturated range: $(cat sat.afdo)"
grep -qx '20->10:9223372036854775807' sat.afdo || fail "no saturated branch"
grep -q "warning: 2 counts reached 9223372036854775807" sat.err || fail "no warning: $(cat sat.err)"

# Several inputs mean nothing for perf.data or script output: usage error.
expect_exit 2 "$PERFTK" cs-etm-decode -i "$A" -i "$B" --symfs "$ETM" -o many.data
grep -q "several recordings add up only into one profile" cmd.err || fail "$(cat cmd.err)"
expect_exit 2 "$PERFTK" cs-etm-decode -i "$A" -i "$B" --format=script
[ ! -e many.data ] || fail "a usage error left an output"
# A bad input names itself; nothing is written.
expect_exit 1 "$PERFTK" cs-etm-decode -i "$A" -i "$ETM/NOTICE" --format=autofdo -o bad.afdo
grep -q "NOTICE" cmd.err || fail "the bad recording is not named: $(cat cmd.err)"
printf '1\n10-zz:5\n' >bad_line.afdo
expect_exit 1 "$PERFTK" merge-profiles -o bad.afdo a.afdo bad_line.afdo
grep -q "bad_line.afdo: line 2: expected START-END:COUNT" cmd.err || fail "$(cat cmd.err)"
expect_exit 1 "$PERFTK" cs-etm-decode -i @missing.list --format=autofdo -o bad.afdo
[ ! -e bad.afdo ] || fail "an error left an output"
ls | has 'tmp\.' && fail "a temporary file was left behind"
echo "ok: --binary, saturation, usage errors, bad inputs"

# Two generated recordings through two binaries each (the program and the
# kernel image): decoded together = merge of their single decodes.
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
if [ ! -x "$GEN" ]; then
  echo "note: no perftk_etm_gen at $GEN: generated recordings not checked"
  exit 0
fi
# One binary, two runs: generated into one folder (the program and kernel
# image are the same files each time), the recordings kept aside.
for seed in 1 2; do
  "$GEN" --cpus 2 --trace-mb 0.3 --buffer-kb 16 --syscalls-per-mille 100 --seed $seed \
    --out gen >gen$seed.txt || fail "perftk_etm_gen --seed $seed failed"
  mv gen/perf.data gen$seed.data
  cp gen/etm_demo etm_demo.$seed
  "$PERFTK" cs-etm-decode -q -i gen$seed.data --format=autofdo -o gen$seed.afdo
done
cmp -s etm_demo.1 etm_demo.2 || fail "the generator made two programs for two seeds"
[ "$(grep -c '^// /' gen1.afdo)" -eq 2 ] || fail "expected 2 binaries in gen1.afdo"
cmp -s gen1.afdo gen2.afdo && fail "the two generated recordings decode alike"
"$PERFTK" cs-etm-decode -q -i gen1.data -i gen2.data --format=autofdo --jobs 2 -o gen.afdo
"$PERFTK" merge-profiles -q -o gen_merged.afdo gen1.afdo gen2.afdo
cmp gen.afdo gen_merged.afdo || fail "generated: decode together != merge of single decodes"
[ "$(grep -c '^// /' gen.afdo)" -eq 2 ] || fail "expected the 2 binaries summed in gen.afdo"
"$PERFTK" cs-etm-decode -q -i gen1.data -i gen2.data --format=bolt --binary 'etm_demo$' -o gen.pa
for seed in 1 2; do
  "$PERFTK" cs-etm-decode -q -i gen$seed.data --format=bolt --dso etm_demo -o gen$seed.pa
done
# etm_demo has no build id: merge-profiles cannot tell its BOLT texts'
# binary and refuses them; the multi-input decode knows it by path.
expect_exit 1 "$PERFTK" merge-profiles -o gen_merged.pa gen1.pa gen2.pa
grep -q "gen1.pa: this BOLT text names no build id" cmd.err || fail "$(cat cmd.err)"
sum_lines() { awk '{ key = $1 " " $2 " " $3; n[key] += $4; m[key] += $5 }
  END { for (k in n) print k, n[k], (substr(k, 1, 1) == "B" ? m[k] : "") }' "$@" | sort; }
sum_lines gen1.pa gen2.pa >want.sum
sum_lines gen.pa >got.sum
[ "$(wc -l <gen.pa)" -gt 10 ] || fail "gen.pa has $(wc -l <gen.pa) lines"
cmp want.sum got.sum || fail "generated BOLT: decode together != the sum of single decodes"
echo "ok: generated recordings through two binaries: together = merged ($(wc -l <gen.afdo) lines)"
