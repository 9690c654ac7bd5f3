#!/usr/bin/env bash
# A recording streamed from `perf record -o -` names its DSOs without build
# ids; `perftk aslr` adds those of the DSOs samples hit (issue 24), so the
# shared file still finds its binaries by id:
#  - every id perftk writes is the one a file-layout recording of the same
#    program lists for that DSO, and every DSO with samples is listed;
#  - with the program moved away and only in a build-id cache, perf report
#    symbolizes perftk's output (and cannot, as the control, the input);
#  - `-o -` carries them as HEADER_BUILD_ID records perf reads from a pipe;
#  - unwind --build-ids gives the same ids;
#  - --no-build-ids adds none, copy --buildid-all adds every mapped DSO's
#    (the vDSO's among them), and a binary rebuilt since the recording (a
#    new inode, or the same one rewritten in place) is named in a warning
#    and gets no id.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/checks.bash"
require_perf
build_workload
perf record -q -e cpu-clock -g -o - -- ./workload 200 1 2>/dev/null >pipe.data ||
  skip "perf record -o - failed"
perf record -q -e cpu-clock -g -o file.data -- ./workload 50 1 >/dev/null 2>&1
ids_of() { perf buildid-list -i "$1" 2>/dev/null | sort; }
ids_of pipe.data | awk 'NF == 2' >input.ids
check "the pipe recording names no build id (so the test means something)" test ! -s input.ids

"$PERFTK" aslr -i pipe.data -o out.data 2>aslr.err
check "aslr says it added build ids ($(grep 'build ids' aslr.err))" has 'build ids added' aslr.err
ids_of out.data >out.ids
ids_of file.data >file.ids
# Every id perftk wrote agrees with the file-layout recording's for that DSO.
check "aslr's ids agree with a file-layout recording's ($(wc -l <out.ids) ids)" \
  test -z "$(join -1 2 -2 2 <(sort -k2 out.ids) <(sort -k2 file.ids) | awk '$2 != $3')"
check "the program's own id is among them" has "$WORK/workload\$" out.ids
# Every DSO with samples is listed (but [unknown]).
perf report -i out.data --no-children --sort dso --stdio -g none 2>/dev/null |
  awk '$1 ~ /%$/ { print $2 }' | grep -v unknown | sort -u >hit.dsos
# Kernel samples are a matter of timing in a 200 ms user-space loop: the
# kernel's id is required here when it has some, and below, from
# --buildid-all, always.
if has 'kernel.kallsyms' hit.dsos; then
  check "the kernel's id is among them (it has samples)" has 'kernel.kallsyms' out.ids
fi
missing=$(while read -r dso; do has -F "$dso" out.ids || echo "$dso"; done <hit.dsos)
check "every DSO with samples has an id (missing: ${missing:-none})" test -z "$missing"

# The binary moved away, kept only in a build-id cache (aslr reads it
# before: the ids come from the files).
"$PERFTK" aslr -q -i pipe.data -o - >out.pipe
mkdir cache
PERF_BUILDID_DIR=$WORK/cache perf buildid-cache -a workload
mv workload workload.moved
report() { PERF_BUILDID_DIR=$WORK/cache perf report -i "$1" --no-children --sort sym --stdio -g none 2>/dev/null; }
check "perf report finds the moved program by id in aslr's output" has leaf_multiply <(report out.data)
check "control: it cannot in the input, which has no ids" test -z "$(report pipe.data | grep leaf_multiply)"
PERF_BUILDID_DIR=$WORK/cache perf report -i - --no-children --sort sym --stdio -g none \
  <out.pipe >pipe.report 2>/dev/null
check "aslr -o - then perf report -i -: the ids travel in the pipe" has leaf_multiply pipe.report
mv workload.moved workload

"$PERFTK" aslr -q --no-build-ids -i pipe.data -o none.data
check "--no-build-ids adds none" test -z "$(ids_of none.data | awk 'NF == 2')"
"$PERFTK" copy -q --buildid-all -i pipe.data -o all.data
ids_of all.data >all.ids
check "copy --buildid-all: libc's id too" has 'libc.so' all.ids
check "copy --buildid-all: the running kernel's id ($(perf buildid-list -k 2>/dev/null))" \
  has "^$(perf buildid-list -k 2>/dev/null) \\[kernel.kallsyms\\]" all.ids
check "copy --buildid-all: the vDSO's, as perf's file recording has it" \
  test "$(grep -F '[vdso]' all.ids)" = "$(grep -F '[vdso]' file.ids)"

# unwind --build-ids on a dwarf pipe recording: the same ids.
perf record -q -e cpu-clock --call-graph dwarf -o - -- ./workload 50 1 2>/dev/null >dwarf.pipe
"$PERFTK" unwind -q --build-ids -i dwarf.pipe -o unwound.data
ids_of unwound.data >unwound.ids
check "unwind --build-ids: the program's id, the one aslr wrote" \
  test "$(grep "$WORK/workload\$" unwound.ids)" = "$(grep "$WORK/workload\$" out.ids)"

# Flags that contradict each other are usage errors (exit 2), no output.
run_rc() { set +e; "$@" >/dev/null 2>&1; echo $?; set -e; }
check "--build-ids with --buildid-all: exit 2" \
  test "$(run_rc "$PERFTK" copy --build-ids --buildid-all -i pipe.data -o bad.data)" = 2
check "--no-build-ids with --build-ids: exit 2" \
  test "$(run_rc "$PERFTK" aslr --no-build-ids --build-ids -i pipe.data -o bad.data)" = 2
check "no output after a usage error" test ! -e bad.data

# Rebuilt since the recording: another inode, so no id, and a warning.
cp workload workload.old && rm workload && cp workload.old workload
"$PERFTK" aslr -i pipe.data -o rebuilt.data 2>rebuilt.err
check "a binary replaced since the recording is named in a warning" \
  has "warning: $WORK/workload: no build id (.*replaced since the recording" rebuilt.err
check "and gets no id" test -z "$(ids_of rebuilt.data | grep "$WORK/workload\$")"

# Rewritten in place since the recording (issue 30, D3): the same inode, so
# only its mtime, later than the recording's, tells. cp over an existing
# file writes into it; the build id of the new contents must not be given.
# (A file recording: its mtime is when the recording ended.)
perf record -q -e cpu-clock -o - -- ./workload 50 1 2>/dev/null >inplace.data
inode=$(stat -c %i workload)
cc -O2 -g -fno-omit-frame-pointer -o workload.new "$LIB_DIR/workload.c" -lpthread
cp workload.new workload
check "cp over the binary kept its inode (so the test means something)" \
  test "$(stat -c %i workload)" = "$inode"
new_id=$(readelf -n workload | sed -n 's/.*Build ID: //p')
check "and changed its build id" test -n "$new_id" -a -z "$(grep "^$new_id" out.ids)"
"$PERFTK" aslr -i inplace.data -o inplace.out 2>inplace.err
check "a binary rewritten in place is named in a warning ($(grep workload inplace.err | head -1))" \
  has "warning: $WORK/workload: no build id (.*modified since the recording" inplace.err
check "and gets no id" test -z "$(ids_of inplace.out | grep "$WORK/workload\$")"
checks_summary
