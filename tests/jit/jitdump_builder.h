// Test-only writer of jitdump files in either byte order, field by field, so
// that the reader is checked against bytes it did not produce.
#ifndef PERFTK_TESTS_JIT_JITDUMP_BUILDER_H_
#define PERFTK_TESTS_JIT_JITDUMP_BUILDER_H_

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"

namespace perftk::jit::testing {

enum class Endian { kLittle, kBig };
inline constexpr Endian kNative =
    std::endian::native == std::endian::little ? Endian::kLittle : Endian::kBig;
inline constexpr Endian kForeign = kNative == Endian::kLittle ? Endian::kBig : Endian::kLittle;

struct LoadFields {
  uint64_t timestamp = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t code_addr = 0;
  uint64_t code_index = 0;
  std::string name;
  std::vector<uint8_t> code;
};

struct MoveFields {
  uint64_t timestamp = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t old_code_addr = 0, new_code_addr = 0, code_size = 0, code_index = 0;
};

struct LineFields {
  uint64_t addr = 0;
  uint32_t line = 0, discrim = 0;
  std::string file;
};

class JitDumpBuilder {
 public:
  explicit JitDumpBuilder(uint32_t pid, Endian endian = kNative, uint64_t flags = 0,
                          uint32_t elf_mach = 62 /* EM_X86_64 */);

  JitDumpBuilder& Load(const LoadFields& f);
  JitDumpBuilder& Move(const MoveFields& f);
  JitDumpBuilder& Debug(uint64_t timestamp, uint64_t code_addr,
                        const std::vector<LineFields>& lines);
  JitDumpBuilder& Unwinding(uint64_t timestamp, const std::vector<uint8_t>& eh_frame,
                            const std::vector<uint8_t>& eh_frame_hdr, uint64_t mapped_size);
  JitDumpBuilder& Close(uint64_t timestamp);
  // A record of any id with `payload` after the prefix (e.g. an unknown id).
  JitDumpBuilder& Raw(uint32_t id, uint64_t timestamp, const std::vector<uint8_t>& payload);
  // Overrides the size field of the last record added (bad input).
  JitDumpBuilder& LastRecordSize(uint32_t total_size);

  // Overwrites the u32/u64 at `offset` (from the start of the file).
  void Patch32(size_t offset, uint32_t value);
  void Patch64(size_t offset, uint64_t value);

  size_t size() const { return bytes_.size(); }
  size_t last_record_offset() const { return last_record_; }
  const std::vector<std::byte>& bytes() const { return bytes_; }
  // Writes the bytes (optionally only the first `limit`) to `path`.
  void WriteTo(const std::string& path, size_t limit = SIZE_MAX) const;

 private:
  void Put(int width, uint64_t value);
  void PutBytes(const void* data, size_t n);
  void BeginRecord(uint32_t id, uint64_t timestamp);
  void EndRecord();

  Endian endian_;
  std::vector<std::byte> bytes_;
  size_t last_record_ = 0;
};

}  // namespace perftk::jit::testing

#endif  // PERFTK_TESTS_JIT_JITDUMP_BUILDER_H_
