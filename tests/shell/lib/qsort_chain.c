// A workload for unwinding: the hot code is a qsort callback five calls
// deep (compare <- qsort <- sort_once <- level3 <- level2 <- level1 <- main),
// meant to be built with -O2 -fomit-frame-pointer. Runs ROUNDS sorts of
// 10,000 ints (default 100), or sorts for SECONDS with `--seconds SECONDS`.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noipa)) static int compare(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  for (int i = 0; i < 20; i++) sink += i;
  return (x > y) - (x < y);
}

__attribute__((noipa)) void sort_once(int *v, int n) {
  for (int i = 0; i < n; i++) v[i] = rand();
  qsort(v, n, sizeof *v, compare);
  sink++;  // no tail call: sort_once stays on the stack
}

__attribute__((noipa)) void level3(int *v, int n) { sort_once(v, n); sink++; }
__attribute__((noipa)) void level2(int *v, int n) { level3(v, n); sink++; }
__attribute__((noipa)) void level1(int *v, int n) { level2(v, n); sink++; }

static double Seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  int *v = malloc(sizeof(int) * 10000);
  if (argc > 2 && strcmp(argv[1], "--seconds") == 0) {
    const double end = Seconds() + atof(argv[2]);
    while (Seconds() < end) level1(v, 10000);
  } else {
    const int rounds = argc > 1 ? atoi(argv[1]) : 100;
    for (int r = 0; r < rounds; r++) level1(v, 10000);
  }
  printf("%d\n", v[0] >= 0);
  fflush(stdout);
  _exit(0);  // see EXIT_NOTE in lib/unwind.bash
}
