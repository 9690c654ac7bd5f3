#include "elf/sha1.h"

#include <bit>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define PERFTK_SHA1_X86 1
#else
#define PERFTK_SHA1_X86 0
#endif

namespace perftk::elf {

namespace {

void PortableBlock(uint32_t state[5], const uint8_t* block) {
  uint32_t w[80];
  for (int i = 0; i < 16; ++i) {
    w[i] = (uint32_t{block[4 * i]} << 24) | (uint32_t{block[4 * i + 1]} << 16) |
           (uint32_t{block[4 * i + 2]} << 8) | uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 80; ++i) w[i] = std::rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
  for (int i = 0; i < 80; ++i) {
    uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    uint32_t t = std::rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = std::rotl(b, 30);
    b = a;
    a = t;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
}

#if PERFTK_SHA1_X86
// The 80 rounds as 20 SHA1RNDS4 steps of four rounds. Registers hold four
// 32-bit words with the first in the highest lane: `abcd` the state's
// a, b, c, d; the message words of step k, m[k % 4], loaded big-endian or
// expanded from the four before (SHA1MSG1, SHA1MSG2); SHA1NEXTE adds to a
// step's words the e it starts with, which is rotl30 of the a the step
// before started with.
__attribute__((target("sha,sse4.1"))) void ShaNiBlocks(uint32_t state[5], const uint8_t* data,
                                                       size_t blocks) {
  const __m128i reverse_bytes = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
  __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)), 0x1B);
  __m128i e = _mm_set_epi32(static_cast<int>(state[4]), 0, 0, 0);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abcd_before = abcd;
    const __m128i e_before = e;
    __m128i m[4];
    __m128i step_start = abcd;  // abcd at the start of the previous step
    for (int k = 0; k < 20; ++k) {
      __m128i& words = m[k % 4];
      if (k < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * k)),
                                 reverse_bytes);
      } else {
        words = _mm_sha1msg2_epu32(
            _mm_xor_si128(_mm_sha1msg1_epu32(m[k % 4], m[(k + 1) % 4]), m[(k + 2) % 4]),
            m[(k + 3) % 4]);
      }
      __m128i words_and_e =
          k == 0 ? _mm_add_epi32(e, words) : _mm_sha1nexte_epu32(step_start, words);
      step_start = abcd;
      // The round function and constant change every 20 rounds; the
      // instruction takes their number as an immediate.
      switch (k / 5) {
        case 0:
          abcd = _mm_sha1rnds4_epu32(abcd, words_and_e, 0);
          break;
        case 1:
          abcd = _mm_sha1rnds4_epu32(abcd, words_and_e, 1);
          break;
        case 2:
          abcd = _mm_sha1rnds4_epu32(abcd, words_and_e, 2);
          break;
        default:
          abcd = _mm_sha1rnds4_epu32(abcd, words_and_e, 3);
          break;
      }
    }
    e = _mm_sha1nexte_epu32(step_start, e_before);
    abcd = _mm_add_epi32(abcd, abcd_before);
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_shuffle_epi32(abcd, 0x1B));
  state[4] = static_cast<uint32_t>(_mm_extract_epi32(e, 3));
}
#endif

}  // namespace

bool Sha1::HasShaNi() {
#if PERFTK_SHA1_X86
  // CPUID, not __builtin_cpu_supports("sha"), which clang 14 does not know:
  // SSE4.1 is leaf 1 ECX bit 19, SHA leaf 7 (subleaf 0) EBX bit 29.
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & (1u << 19)) == 0) return false;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ebx & (1u << 29)) != 0;
  }();
  return has;
#else
  return false;
#endif
}

Sha1::Engine Sha1::BestEngine() { return HasShaNi() ? Engine::kShaNi : Engine::kPortable; }

Sha1::Sha1(Engine engine)
    : engine_(engine), state_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0} {}

void Sha1::Blocks(const uint8_t* data, size_t blocks) {
#if PERFTK_SHA1_X86
  if (engine_ == Engine::kShaNi) {
    ShaNiBlocks(state_, data, blocks);
    return;
  }
#endif
  for (; blocks > 0; --blocks, data += 64) PortableBlock(state_, data);
}

void Sha1::Update(std::span<const std::byte> data) {
  if (data.empty()) return;  // an empty span may have no data pointer
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  total_bytes_ += n;
  if (pending_size_ > 0) {
    size_t take = std::min(n, sizeof(pending_) - pending_size_);
    std::memcpy(pending_ + pending_size_, p, take);
    pending_size_ += take;
    p += take;
    n -= take;
    if (pending_size_ < sizeof(pending_)) return;
    Blocks(pending_, 1);
    pending_size_ = 0;
  }
  Blocks(p, n / 64);
  p += n / 64 * 64;
  n %= 64;
  std::memcpy(pending_, p, n);
  pending_size_ = n;
}

Sha1::Digest Sha1::Finish() {
  uint64_t bits = total_bytes_ * 8;
  uint8_t tail[72] = {0x80};
  size_t pad = (pending_size_ < 56 ? 56 : 120) - pending_size_;
  for (int i = 0; i < 8; ++i) tail[pad + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  Update(std::as_bytes(std::span<const uint8_t>(tail, pad + 8)));
  Digest digest;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<uint8_t>(state_[i] >> (24 - 8 * j));
  }
  return digest;
}

}  // namespace perftk::elf
