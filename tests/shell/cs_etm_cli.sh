#!/usr/bin/env bash
# perftk cs-etm-decode on the command line: AutoFDO output equal to
# simpleperf's, exit codes, and no output file on error.
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"

"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --format=autofdo -o prof.afdo
cmp prof.afdo "$ETM/perf_inject.data" || fail "AutoFDO text differs from simpleperf's"
"$PERFTK" cs-etm-decode -q -i "$ETM/perf_with_unformatted_trace.data" --symfs "$ETM" \
  --format=autofdo >ete.afdo
cmp ete.afdo "$ETM/perf_inject.data" || fail "ETE AutoFDO text differs from simpleperf's"
"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --format=bolt >prof.fdata
grep -qx 'B 106c 1074 100 0' prof.fdata || fail "BOLT output lacks the loop edge"
grep -qx 'F 1074 1080 100' prof.fdata || fail "BOLT output lacks the loop range"

# Missing AUX data: exit 0, no samples, a warning naming the problem.
"$PERFTK" cs-etm-decode -i "$ETM/perf_with_missing_aux_data.data" --format=script >none.txt 2>err.txt ||
  fail "missing AUX data should not be an error"
[ ! -s none.txt ] || fail "samples from a recording without AUX data"
grep -q "have no AUXTRACE data" err.txt || fail "no warning about the missing AUX data"

# Usage errors: status 2, bad input: status 1, and no output file.
set +e
"$PERFTK" cs-etm-decode -i "$ETM/perf_etm.data" --itrace=q -o bad.data 2>/dev/null
[ $? -eq 2 ] || fail "--itrace=q should exit 2 (a usage error)"
"$PERFTK" cs-etm-decode -i "$ETM/perf_etm.data" --jobs 0 -o bad.data 2>/dev/null
[ $? -eq 2 ] || fail "--jobs 0 should exit 2 (a usage error)"
for bad in "--every-taken 0" "--every-taken 63 --itrace=b" "--every-taken 63 --format=autofdo" \
  "--decoder=nope"; do
  # shellcheck disable=SC2086
  "$PERFTK" cs-etm-decode -i "$ETM/perf_etm.data" --symfs "$ETM" $bad -o bad.data 2>/dev/null
  [ $? -eq 2 ] || fail "$bad should exit 2 (a usage error)"
done
"$PERFTK" cs-etm-decode -i "$ETM/NOTICE" -o bad.data 2>/dev/null
[ $? -eq 1 ] || fail "a non-perf.data input should exit 1"
set -e
[ ! -e bad.data ] || fail "an output file was left behind after an error"
ls | has 'tmp\.' && fail "a temporary file was left behind"
"$PERFTK" cs-etm-decode --help | has "Examples:" || fail "--help has no examples"
# --every-taken on this real recording: samples every 8 taken branches, each
# stack the 8 branches since the previous sample plus the one it ended on.
"$PERFTK" cs-etm-decode -q -i "$ETM/perf_etm.data" --symfs "$ETM" --itrace=il64 --every-taken 8 \
  --format=script >taken.txt
[ -s taken.txt ] || fail "--every-taken 8 made no samples"
awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+\/0x/) n++; if (n > 9) exit 1 }' \
  taken.txt || fail "--every-taken 8: a stack of more than 9 branches"
awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+\/0x/) n++; if (n == 9) found = 1 }
     END { exit !found }' taken.txt || fail "--every-taken 8: no stack of 9 branches"
# A binary whose build id is not the recording's is not decoded against:
# the warning names both ids, and its trace is skipped.
mkdir other
python3 - "$ETM/etm_test_loop" other/etm_test_loop <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
at = data.find(bytes.fromhex('0c9a20bf9c009d0e4e8bbf9fad0300ae'))
assert at > 0, 'no build id note in etm_test_loop'
data[at] ^= 0xff
open(sys.argv[2], 'wb').write(data)
PY
"$PERFTK" cs-etm-decode -i "$ETM/perf_etm.data" --symfs other --format=autofdo -o other.afdo \
  2>other.err
has -F "other/etm_test_loop has build id f39a20bf9c009d0e4e8bbf9fad0300ae but the recording's" \
  other.err || fail "no build-id mismatch warning: $(cat other.err)"
has "0 instruction samples" other.err || fail "trace in a mismatched binary was decoded"
echo "ok"
