#!/usr/bin/env bash
# perftk unwind on a multi-threaded program without frame pointers, with
# system calls (kernel call chains kept before the unwound user frames):
# perf's reports and perf script on the output equal perf's unwinding of
# the input.
source "$(dirname "$0")/lib/common.bash"
source "$LIB_DIR/unwind.bash"
require_perf
cat >threads.c <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noipa)) void spin(int n) { for (int i = 0; i < n; i++) sink += i * 7; }
__attribute__((noipa)) void read_zeros(void) {
  char buf[4096];
  int fd = open("/dev/zero", O_RDONLY);
  for (int i = 0; i < 3000; i++) if (read(fd, buf, sizeof buf) < 0) break;
  close(fd);
}
__attribute__((noipa)) void *worker(void *arg) {
  long id = (long)arg;
  for (int r = 0; r < 300; r++) { spin(20000 + id); if (r % 30 == 0) read_zeros(); }
  return NULL;
}
int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  puts("done");
  fflush(stdout);
  _exit(0);  // see EXIT_NOTE in lib/unwind.bash
}
C
cc -O2 -fomit-frame-pointer -g -o threads threads.c -lpthread
perf record -q -e cpu-clock --call-graph dwarf -o in.data -- ./threads >/dev/null
check_unwind in.data
unwound_fully_at_least 95
report_of out.data --no-children -g folded --sort comm,sym >folded
has 'spin;worker;start_thread;clone3' folded || fail "no worker chain from spin to clone3"
# A kernel chain, then the user frames unwound from the registers at entry.
has 'entry_SYSCALL_64[^;]*;read;read_zeros;worker;start_thread;clone3' folded ||
  fail "no chain from the kernel through read(2) to the worker"
[ "$(perf script -i out.data -F tid 2>/dev/null | sort -u | wc -l)" -ge 4 ] ||
  fail "fewer than 4 threads sampled"
echo "ok: worker chains, kernel chains joined to user chains"
