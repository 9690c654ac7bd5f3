// A small program for perf to profile: a few functions with distinct costs,
// an optional second thread, and a global the breakpoint test watches.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long watched_counter;

__attribute__((noinline)) static unsigned long leaf_multiply(unsigned long x) {
  for (int i = 0; i < 200; ++i) x = x * 2654435761u + i;
  return x;
}

__attribute__((noinline)) static unsigned long middle_sum(unsigned long n) {
  unsigned long acc = 0;
  for (unsigned long i = 0; i < n; ++i) acc += leaf_multiply(i);
  watched_counter++;
  return acc;
}

__attribute__((noinline)) static unsigned long outer_loop(unsigned long rounds) {
  unsigned long acc = 0;
  for (unsigned long r = 0; r < rounds; ++r) acc ^= middle_sum(2000);
  return acc;
}

static void* thread_main(void* arg) {
  unsigned long rounds = (unsigned long)arg;
  return (void*)outer_loop(rounds);
}

int main(int argc, char** argv) {
  unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
  int threads = argc > 2 ? atoi(argv[2]) : 0;
  pthread_t tids[8];
  for (int i = 0; i < threads && i < 8; ++i) {
    pthread_create(&tids[i], NULL, thread_main, (void*)rounds);
  }
  unsigned long acc = outer_loop(rounds);
  for (int i = 0; i < threads && i < 8; ++i) pthread_join(tids[i], NULL);
  printf("%lu %lu\n", acc, watched_counter);
  return 0;
}
