/* A USDT probe behind a semaphore, passing an int, a pointer to a string
 * and a negative long: the probe only runs while a tracer has raised the
 * semaphore (the kernel does, given ref_ctr_offset). Prints what it passed,
 * one line per call ("N POINTER NEGATIVE TEXT"), then the semaphore's value
 * at the end.
 *   usdt_workload COUNT */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

__extension__ unsigned short perftk_test_hit_semaphore __attribute__((unused))
__attribute__((section(".probes")));

static const char *const kWords[] = {"alpha", "beta", "gamma"};

__attribute__((noinline)) void hit(int n, const char *text, long negative) {
  if (perftk_test_hit_semaphore) STAP_PROBE3(perftk_test, hit, n, text, negative);
}

int main(int argc, char **argv) {
  const int count = argc > 1 ? atoi(argv[1]) : 3;
  for (int i = 0; i < count; ++i) {
    const char *text = kWords[i % 3];
    hit(i * 7, text, -1000L - i);
    printf("%d %lu %ld %s\n", i * 7, (unsigned long)text, -1000L - i, text);
  }
  printf("semaphore %u\n", (unsigned)perftk_test_hit_semaphore);
  return 0;
}
