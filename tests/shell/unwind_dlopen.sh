#!/usr/bin/env bash
# perftk unwind on a program that dlopens a library, runs it (calling back
# into the program), dlcloses it and dlopens another one, which the loader
# usually puts at the same address: every sample must be unwound with the
# library mapped at its time, as perf does.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/unwind.bash"
require_perf
# Two libraries of different layouts: unwinding beta's code with alpha's
# CFI would go wrong.
cat >alpha.c <<'C'
static volatile unsigned long sink;
__attribute__((noipa)) static void alpha_inner(unsigned long n, void (*tick)(void)) {
  for (unsigned long i = 0; i < n; ++i) { sink += i * 3; if ((i & 0xffff) == 0) tick(); }
}
__attribute__((noipa)) void alpha_work(unsigned long n, void (*tick)(void)) {
  alpha_inner(n, tick);
  sink++;
}
C
cat >beta.c <<'C'
static volatile unsigned long sink;
__attribute__((noipa)) unsigned long beta_unused(unsigned long x) {
  volatile unsigned long table[64];
  for (int i = 0; i < 64; i++) table[i] = x * i;
  for (int i = 1; i < 64; i++) table[i] ^= table[i - 1] >> 3;
  return table[63];
}
__attribute__((noipa)) static void beta_inner(unsigned long n, void (*tick)(void)) {
  volatile unsigned long scratch[40];
  for (unsigned long i = 0; i < n; ++i) {
    scratch[i % 40] = i;
    sink += scratch[(i * 7) % 40];
    if ((i & 0xffff) == 0) tick();
  }
}
__attribute__((noipa)) void beta_work(unsigned long n, void (*tick)(void)) {
  beta_inner(n, tick);
  sink++;
}
C
for name in alpha beta; do
  # -nostartfiles: no crtstuff destructor for dlclose to run (see EXIT_NOTE
  # in lib/unwind.bash; samples there made perf's chains differ in 7 of 60
  # recordings).
  cc -O2 -fomit-frame-pointer -g -fPIC -shared -nostartfiles -o "lib$name.so" "$name.c"
done
cat >host.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
static volatile unsigned long ticks;
__attribute__((noipa)) static void tick(void) {
  for (int i = 0; i < 20000; i++) ticks += i;
}
__attribute__((noipa)) static int run(const char *path, const char *symbol) {
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  void (*work)(unsigned long, void (*)(void)) =
      (void (*)(unsigned long, void (*)(void)))dlsym(lib, symbol);
  work(150000000, tick);
  dlclose(lib);
  return 0;
}
int main(void) {
  if (run("./libalpha.so", "alpha_work") || run("./libbeta.so", "beta_work")) return 1;
  printf("%lu\n", ticks);
  fflush(stdout);
  _exit(0);  // see EXIT_NOTE in lib/unwind.bash
}
C
cc -O2 -fomit-frame-pointer -g -fPIE -pie -o host host.c -ldl
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./host >/dev/null
check_unwind in.data
unwound_fully_at_least 95
report_of out.data --no-children -g folded >folded
for name in alpha beta; do
  has "${name}_inner;${name}_work;run;main" folded || fail "no chain from ${name}_inner to main"
  has "tick;${name}_inner;${name}_work;run;main" folded ||
    fail "no chain from the callback through lib$name.so to main"
done
echo "ok: both libraries' chains, callbacks included"
starts=$("$PERFTK" dump -i in.data | grep -E 'type=MMAP2 .*prot=0x5 .*lib(alpha|beta)\.so' |
  grep -o 'start=0x[0-9a-f]*' | sort -u | wc -l)
[ "$starts" -eq 1 ] && echo "ok: libbeta.so's code was mapped where libalpha.so's had been"
