// SHA-1 (FIPS 180-4), used to give generated ELF files a deterministic GNU
// build id: same content, same 20-byte id. Not for security.
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

  Sha1();
  void Update(std::span<const std::byte> data);
  // The digest of everything given to Update; the object is then spent.
  Digest Finish();

 private:
  void Block(const uint8_t* block);

  uint32_t state_[5];
  uint8_t pending_[64];
  size_t pending_size_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace perftk::elf

#endif  // PERFTK_ELF_SHA1_H_
