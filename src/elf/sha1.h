// SHA-1 (FIPS 180-4), used to give generated ELF files a deterministic GNU
// build id: same content, same 20-byte id. Not for security.
//
// On x86 CPUs with the SHA extensions (SHA-NI) the blocks are hashed with
// them, else in portable C++; both give the same digests (the portable one
// can be asked for, to test that).
#ifndef PERFTK_ELF_SHA1_H_
#define PERFTK_ELF_SHA1_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace perftk::elf {

class Sha1 {
 public:
  using Digest = std::array<uint8_t, 20>;
  enum class Engine { kPortable, kShaNi };

  // Whether this CPU (and build) can use Engine::kShaNi.
  static bool HasShaNi();
  // kShaNi when HasShaNi(), else kPortable.
  static Engine BestEngine();

  Sha1() : Sha1(BestEngine()) {}
  // `engine` kShaNi needs HasShaNi().
  explicit Sha1(Engine engine);
  void Update(std::span<const std::byte> data);
  // The digest of everything given to Update; the object is then spent.
  Digest Finish();

 private:
  void Blocks(const uint8_t* data, size_t blocks);

  Engine engine_;
  uint32_t state_[5];
  uint8_t pending_[64];
  size_t pending_size_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_SHA1_H_
