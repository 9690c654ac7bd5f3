#!/usr/bin/env bash
# perftk aslr on a program that dlopens a library at run time.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/aslr.bash"
require_perf
cat >plugin.c <<'C'
__attribute__((noinline)) unsigned long plugin_work(unsigned long n) {
  unsigned long x = 1;
  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005u + i;
  return x;
}
C
cat >host.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(void) {
  void* lib = dlopen("./libplugin.so", RTLD_NOW);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  unsigned long (*work)(unsigned long) = (unsigned long (*)(unsigned long))dlsym(lib, "plugin_work");
  printf("%lu\n", work(300000000));
  return 0;
}
C
cc -O1 -g -fPIC -shared -o libplugin.so plugin.c
cc -O1 -g -fPIE -pie -o host host.c -ldl
perf record -q -e cpu-clock -g -o in.data -- ./host >/dev/null
check_aslr in.data
aslr_report out.data --sort dso,sym | has 'libplugin.so.*plugin_work' || fail "plugin_work is not symbolized"
