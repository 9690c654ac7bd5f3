#!/usr/bin/env bash
# perftk unwind never guesses: in a library built without unwind tables
# (but with frame pointers, so libdw's x86_64 frame-pointer fallback could
# find the callers) a sample's chain stops at the function without CFI,
# and the summary says "no CFI"; perf's report of the input is the same.
source "$(dirname "$0")/lib/common.bash"
require_perf
[ "$(uname -m)" = x86_64 ] || skip "the frame-pointer fallback checked here is libdw's x86_64 one"
cat >nocfi.c <<'C'
static volatile unsigned long sink;
void nocfi_work(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * 5; }
C
cat >main.c <<'C'
void nocfi_work(unsigned long n);
__attribute__((noipa)) void caller(void) { nocfi_work(400000000); }
int main(void) { caller(); return 0; }
C
cc -O1 -g0 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -fPIC \
  -shared -o libnocfi.so nocfi.c
readelf --debug-dump=frames libnocfi.so | has FDE && skip "the compiler still wrote CFI"
cc -O2 -g -fno-omit-frame-pointer -o main main.c -L. -lnocfi -Wl,-rpath,"$WORK"
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./main
"$PERFTK" unwind -i in.data -o out.data 2>unwind.log
cat unwind.log
has -E 'not at all \([0-9]+ no CFI' unwind.log || fail "the summary does not say no CFI"
report_of out.data --no-children -g folded --sort sym >folded
has 'nocfi_work' folded || fail "no sample in nocfi_work"
has -E 'nocfi_work;' folded && fail "frames past nocfi_work were guessed: $(grep -m1 'nocfi_work;' folded)"
# perf (libunwind in Debian's build) stops there too.
report_of in.data --no-inline --no-children -g folded --sort sym >in.folded
same_listing "perf report -g folded" in.folded folded
echo "ok: chains stop at the function without CFI, as perf's do"
