#include "perf/tracing_data.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/bytes.h"

namespace perftk::perf {
namespace {

// Walks the section in the byte order its header names.
class TracingCursor {
 public:
  explicit TracingCursor(const std::vector<std::byte>& bytes) : bytes_(bytes) {}

  bool ok() const { return ok_; }
  size_t position() const { return pos_; }
  void set_big_endian(bool big) { swap_ = big != (std::endian::native == std::endian::big); }

  template <typename T>
  T Read() {
    if (!ok_ || bytes_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return 0;
    }
    T v = base::Load<T>(bytes_.data() + pos_);
    pos_ += sizeof(T);
    return swap_ ? base::ByteSwap(v) : v;
  }
  uint8_t Byte() {
    if (!ok_ || pos_ >= bytes_.size()) {
      ok_ = false;
      return 0;
    }
    return static_cast<uint8_t>(bytes_[pos_++]);
  }
  void Skip(uint64_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) {
      ok_ = false;
      return;
    }
    pos_ += n;
  }
  std::string String() {
    std::string s;
    while (ok_) {
      uint8_t c = Byte();
      if (c == 0) break;
      s += static_cast<char>(c);
    }
    return s;
  }

 private:
  const std::vector<std::byte>& bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
  bool swap_ = false;
};

absl::Status Malformed(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("tracing_data feature section is malformed: ", what));
}

}  // namespace

absl::Status ScrubTracingData(std::vector<std::byte>& section) {
  static constexpr unsigned char kMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
  if (section.size() < sizeof(kMagic) || std::memcmp(section.data(), kMagic, sizeof(kMagic)) != 0) {
    return Malformed("no tracing magic");
  }
  TracingCursor in(section);
  in.Skip(sizeof(kMagic));
  std::string version = in.String();
  in.set_big_endian(in.Byte() != 0);
  in.Byte();            // size of a long
  in.Read<uint32_t>();  // page size
  for (const char* name : {"header_page", "header_event"}) {
    if (in.String() != name) return Malformed(absl::StrCat("no ", name));
    in.Skip(in.Read<uint64_t>());
  }
  for (uint32_t n = in.Read<uint32_t>(); in.ok() && n > 0; --n) in.Skip(in.Read<uint64_t>());
  for (uint32_t systems = in.Read<uint32_t>(); in.ok() && systems > 0; --systems) {
    in.String();
    for (uint32_t n = in.Read<uint32_t>(); in.ok() && n > 0; --n) in.Skip(in.Read<uint64_t>());
  }
  if (!in.ok()) return Malformed("event formats run past the section");
  const size_t kallsyms_at = in.position();
  in.Skip(in.Read<uint32_t>());  // kallsyms
  in.Skip(in.Read<uint32_t>());  // ftrace printk formats
  if (!in.ok()) return Malformed("kallsyms or printk formats run past the section");
  const size_t rest_at = in.position();

  // Rebuild: everything up to kallsyms, two empty parts, the rest (saved cmdlines).
  std::vector<std::byte> out(section.begin(), section.begin() + kallsyms_at);
  out.resize(out.size() + 8, std::byte{0});  // u32 size 0 twice, in any byte order
  out.insert(out.end(), section.begin() + rest_at, section.end());
  section = std::move(out);
  return absl::OkStatus();
}

}  // namespace perftk::perf
