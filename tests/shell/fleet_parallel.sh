#!/usr/bin/env bash
# The fleet recipe of README.md ("Many recordings into one profile"), run
# here with GNU parallel on two job slots instead of many machines (no ssh):
# map, each recording decoded alone into its own profile; reduce,
# merge-profiles over the list of profiles. The result must be the bytes
# of the single-process decode of all the recordings (-i @LIST), for AutoFDO
# and BOLT, and hold each count of one recording 6 times (6 copies).
source "$(dirname "$0")/lib/common.bash"
ETM=${PERFTK_ETM_DATA_DIR:-$(dirname "$0")/../data/simpleperf-etm}
[ -r "$ETM/perf_etm.data" ] || skip "no simpleperf ETM recordings at $ETM"
command -v parallel >/dev/null || skip "no GNU parallel (Debian: parallel)"
export HOME=$WORK  # parallel keeps its state in ~/.parallel

mkdir recordings profiles
for copy in 1 2 3; do
  cp "$ETM/perf_etm.data" "recordings/etm-$copy.data"
  cp "$ETM/perf_with_unformatted_trace.data" "recordings/ete-$copy.data"
done
ls "$PWD"/recordings/*.data >recordings.txt

for format in autofdo bolt; do
  ext=$([ $format = autofdo ] && echo afdo || echo pa)
  # Map: one profile per recording, two at a time.
  parallel --will-cite -j2 --halt now,fail=1 \
    "$PERFTK" cs-etm-decode -q -i {} --symfs "$ETM" --format=$format -o "profiles/{/.}.$ext" \
    :::: recordings.txt || fail "parallel map ($format) failed"
  [ "$(ls profiles/*.$ext | wc -l)" -eq 6 ] || fail "the map made $(ls profiles | wc -l) profiles"
  # Reduce.
  ls profiles/*.$ext >profiles.txt
  "$PERFTK" merge-profiles -q -o fleet.$ext @profiles.txt
  # The single-process decode of the same recordings.
  "$PERFTK" cs-etm-decode -q -i @recordings.txt --symfs "$ETM" --format=$format --jobs 2 -o one.$ext
  cmp fleet.$ext one.$ext || fail "$format: the fleet recipe differs from -i @LIST"
done
grep -qx '106c->1074:600' fleet.afdo || fail "no 106c->1074:600 in: $(grep -- '->' fleet.afdo | tr '\n' ';')"
grep -qx 'B 1080 105c 600 0' fleet.pa || fail "no 'B 1080 105c 600 0' in fleet.pa"
echo "ok: parallel -j2 map + merge-profiles = cs-etm-decode -i @LIST (AutoFDO and BOLT, 6 recordings)"
