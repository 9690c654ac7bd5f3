#!/usr/bin/env bash
# perftk unwind --jobs N writes byte for byte the output of --jobs 1: on a
# multi-threaded program that also dlopens, dlcloses and dlopens again
# (machine changes split the windows the lanes share), in file and pipe
# layout; --jobs 0 and 65 are refused as usage errors (exit 2).
source "$(dirname "$0")/lib/common.bash"
require_perf
cat >lib.c <<'C'
static volatile unsigned long sink;
__attribute__((noipa)) void lib_work(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
C
cat >prog.c <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noipa)) void spin(int n) { for (int i = 0; i < n; i++) sink += i * 7; }
__attribute__((noipa)) void *worker(void *arg) {
  for (int r = 0; r < 150; r++) spin(30000 + (int)(long)arg);
  return NULL;
}
__attribute__((noipa)) void with_library(void) {
  for (int round = 0; round < 3; round++) {
    void *lib = dlopen("./libwork.so", RTLD_NOW);
    if (!lib) { fprintf(stderr, "%s\n", dlerror()); return; }
    ((void (*)(unsigned long))dlsym(lib, "lib_work"))(30000000);
    dlclose(lib);
  }
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  with_library();
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  return 0;
}
C
cc -O2 -fomit-frame-pointer -g -fPIC -shared -o libwork.so lib.c
cc -O2 -fomit-frame-pointer -g -o prog prog.c -ldl -lpthread
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./prog >/dev/null
"$PERFTK" unwind -i in.data -o one.data --jobs 1 2>one.log
cat one.log
has -E '[1-9][0-9]* unwound fully' one.log || fail "nothing was unwound: the comparison would prove nothing"
for jobs in 2 3; do
  "$PERFTK" unwind -q -i in.data -o "jobs$jobs.data" --jobs "$jobs"
  cmp one.data "jobs$jobs.data" || fail "--jobs $jobs differs from --jobs 1"
  "$PERFTK" unwind -i in.data -o - --jobs "$jobs" 2>"jobs$jobs.log" >"jobs$jobs.pipe"
  "$PERFTK" unwind -q -i in.data -o - --jobs 1 >one.pipe
  cmp one.pipe "jobs$jobs.pipe" || fail "--jobs $jobs differs from --jobs 1 in pipe layout"
  # The outcomes (the first line); how many frames were taken over from a
  # thread's previous sample depends on how the samples met the lanes.
  cmp -s <(sed -n '1s/.*; //p' one.log) <(sed -n '1s/.*; //p' "jobs$jobs.log") ||
    fail "--jobs $jobs counts other outcomes: $(cat "jobs$jobs.log")"
done
for jobs in 0 65; do
  expect_exit 2 "$PERFTK" unwind -i in.data -o bad.data --jobs "$jobs"
  has 'not in range 1 to 64' cmd.err || fail "--jobs $jobs: $(cat cmd.err)"
  [ ! -e bad.data ] || fail "--jobs $jobs wrote an output"
done
echo "ok: --jobs 2 and 3 write the bytes of --jobs 1"
