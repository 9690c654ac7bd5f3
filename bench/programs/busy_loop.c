/* A reference load for the benches' --jobs 2 lines: adds on registers
 * alone, no memory, no branch but the loop's. Two copies side by side do
 * twice the work of one only when two busy cores run as fast as one busy
 * core does; on a shared VM they often do not (the host lowers the clock
 * of busy cores, or its other guests take their share), and no program
 * can then do better.
 *
 *   busy_loop ROUNDS       (x86-64 or aarch64; 10^8 rounds ~ 0.2 s) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 100000000;
  unsigned long a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0;
  for (long i = 0; i < rounds; i++) {
    /* Eight independent chains, three adds each; the empty asm keeps the
     * compiler from folding them into one multiply. */
    a += 1, b += 2, c += 3, d += 4, e += 5, f += 6, g += 7, h += 8;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
    a += 1, b += 2, c += 3, d += 4, e += 5, f += 6, g += 7, h += 8;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
    a += 1, b += 2, c += 3, d += 4, e += 5, f += 6, g += 7, h += 8;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
  }
  printf("%lu\n", a + b + c + d + e + f + g + h);
  return 0;
}
