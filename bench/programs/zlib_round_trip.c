/* A zlib workload long enough to time a decoder on (bench/cs_etm_qemu.sh
 * PROGRAM=zlib): deflates a file at level 9 with the vendored zlib,
 * inflates it back and checks the bytes, then prints the sizes.
 *
 *   zlib_round_trip FILE
 * Exit status 0 when the round trip gives FILE back, else 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlib.h"

static unsigned char *read_file(const char *path, unsigned long *size) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) return NULL;
  unsigned long capacity = 1 << 16, used = 0;
  unsigned char *bytes = malloc(capacity);
  size_t n;
  while (bytes != NULL && (n = fread(bytes + used, 1, capacity - used, file)) > 0) {
    used += n;
    if (used == capacity) bytes = realloc(bytes, capacity *= 2);
  }
  fclose(file);
  *size = used;
  return bytes;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 1;
  }
  unsigned long size = 0;
  unsigned char *input = read_file(argv[1], &size);
  if (input == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  uLongf packed_size = compressBound(size);
  unsigned char *packed = malloc(packed_size);
  uLongf back_size = size;
  unsigned char *back = malloc(size + 1);
  if (packed == NULL || back == NULL ||
      compress2(packed, &packed_size, input, size, 9) != Z_OK ||
      uncompress(back, &back_size, packed, packed_size) != Z_OK || back_size != size ||
      memcmp(back, input, size) != 0) {
    fprintf(stderr, "the round trip of %s failed\n", argv[1]);
    return 1;
  }
  printf("%lu bytes -> %lu -> %lu\n", size, (unsigned long)packed_size, (unsigned long)back_size);
  return 0;
}
