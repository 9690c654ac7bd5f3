#!/usr/bin/env bash
# Feature sections that share bytes are refused (issue 26, D5): a 12.8 MB
# recording whose 256 feature bits all point at the whole file took 3.2 GB
# for `dump --header-only` (each section was copied), and `copy` under a
# memory limit aborted with bad_alloc. Now every reader exits 1 naming the
# file, the offset and both sections, within 2x the file's size of peak
# RSS (checked in the release build; ASan's shadow memory alone is more);
# the recording it was made from still reads.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
source "$LIB_DIR/safety.bash"
require_perf
build_workload
perf record -q -F 20000 -g -e cpu-clock -o in.data -- ./workload 1500 1 >/dev/null 2>&1 ||
  skip "perf record failed"
python3 "$LIB_DIR/overlap_features.py" in.data bomb.data
size_kb=$(($(stat -c %s bomb.data) / 1024))
# peak_kb CMD...: runs CMD (status in rc, stderr in err.txt); prints its peak RSS in KB.
peak_kb() {
  python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$WORK/err.txt" "$@"
}
for args in "dump --header-only -i bomb.data" "copy -i bomb.data -o out.data" \
  "aslr -q -i bomb.data -o out.data"; do
  # shellcheck disable=SC2086
  read -r rc kb < <(peak_kb "$PERFTK" $args)
  check "$args: exit 1 (got $rc)" test "$rc" = 1
  check "$args: the message names the file, an offset and the overlap ($(last_error))" \
    err_has 'bomb.data: offset 0x[0-9a-f]+: the .* feature section .* overlaps the'
  if asan_build; then
    echo "note: $args: peak RSS $kb KB not checked (an ASan build: its shadow memory alone is more)"
  else
    check "$args: peak RSS $kb KB within 2x the file's $size_kb KB" test "$kb" -le $((2 * size_kb))
  fi
  check "$args: no output, no temporary file" test ! -e out.data -a -z "$(temps_in .)"
done
run "$PERFTK" dump --header-only -i in.data >/dev/null
check "the recording it was made from reads (exit $rc)" test "$rc" = 0
checks_summary
