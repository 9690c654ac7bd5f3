#!/usr/bin/env bash
# Progress counts work done (issue 25): cs-etm-decode on a terminal shows
# how much of the input is decoded, also while --jobs 2 decodes behind the
# reader (a recording of few, large AUXTRACE records: progress that counted
# records read, or bytes read, stood still or ran ahead of the decode);
# with several recordings it counts recordings; with stderr not a terminal
# it shows nothing, nor with -q. The terminal is script(1)'s pseudo-terminal.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
command -v script >/dev/null || skip "no script(1) (Debian: bsdutils)"
GEN=${ETM_GEN:-$(dirname "$(dirname "$PERFTK")")/tests/perftk_etm_gen}
[ -x "$GEN" ] || skip "no perftk_etm_gen at $GEN"
# Progress redraws at most every 100 ms, so the decode must last a good
# part of a second: 60 MB, about 0.45 s with --jobs 2 on 2 idle cores since
# the decoder's fourth round (20 MB gave only 0 and one more percentage);
# an ASan build takes as long over 4 MB.
mb=60
if asan_build; then mb=4; fi
"$GEN" --cpus 2 --trace-mb "$mb" --out gen >/dev/null || fail "perftk_etm_gen failed"
on_tty() { script -qfec "$1" /dev/null | tr '\r' '\n'; }
# The percentages drawn, in order, one per line.
percents() { sed -nE 's/^perftk cs-etm-decode: +([0-9]+)% .*/\1/p' "$1"; }

for jobs in 1 2; do
  on_tty "'$PERFTK' cs-etm-decode -i gen/perf.data --itrace=il64 --jobs $jobs -o il64.$jobs.data" \
    >tty.$jobs
  percents tty.$jobs >pct.$jobs
  check "--jobs $jobs: the decode shows progress ($(paste -sd' ' pct.$jobs))" \
    test "$(sort -un pct.$jobs | wc -l)" -ge 3
  check "--jobs $jobs: it never goes back" cmp -s pct.$jobs <(sort -n pct.$jobs)
  check "--jobs $jobs: it ends past half way" test "$(tail -1 pct.$jobs)" -ge 50
  check "--jobs $jobs: the summary follows on a cleared line" \
    has -E 'perftk cs-etm-decode: [0-9]+ trace blocks' tty.$jobs
done
check "the output is the same with and without a terminal" \
  cmp -s il64.1.data <("$PERFTK" cs-etm-decode -q -i gen/perf.data --itrace=il64 -o - | cat >il64.pipe.data;
                       "$PERFTK" cs-etm-decode -q -i gen/perf.data --itrace=il64 -o il64.file.data;
                       cat il64.file.data)

on_tty "'$PERFTK' cs-etm-decode -i gen/perf.data -i gen/perf.data --format=autofdo --jobs 2 -o two.afdo" \
  >tty.two
total=$(awk -v b="$(stat -c %s gen/perf.data)" 'BEGIN { printf "%.1f", b / 1048576 }')
check "sizes in MiB, as perf counts them (of $total MiB)" has -F "of $total MiB)" tty.1

check "two recordings: progress counts them" has -F 'perftk cs-etm-decode: 2 of 2 recordings' tty.two
check "two recordings: no per-recording progress" test -z "$(percents tty.two)"

"$PERFTK" cs-etm-decode -i gen/perf.data --itrace=il64 --jobs 2 -o quiet.data 2>quiet.err
check "stderr not a terminal: no progress" test -z "$(grep -F '%' quiet.err)"

# -q on a terminal: neither progress nor summary (issue 32).
on_tty "'$PERFTK' cs-etm-decode -q -i gen/perf.data --itrace=il64 -o q.data" >tty.q
check "-q on a terminal: nothing on stderr ($(head -c 200 tty.q))" test ! -s tty.q
on_tty "'$PERFTK' cs-etm-decode -q -i gen/perf.data -i gen/perf.data --format=autofdo --jobs 2 -o q.afdo" \
  >tty.q2
check "-q, two recordings: nothing on stderr ($(head -c 200 tty.q2))" test ! -s tty.q2
checks_summary
