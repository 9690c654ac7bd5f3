#include "elf/eh_frame_merge.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "base/printable.h"

namespace perftk::elf {
namespace {

constexpr uint8_t kEhPeAbsptr = 0x00;
constexpr uint8_t kEhPeUdata2 = 0x02;
constexpr uint8_t kEhPeUdata8 = 0x04;
constexpr uint8_t kEhPeSdata2 = 0x0a;
constexpr uint8_t kEhPeSdata4 = 0x0b;
constexpr uint8_t kEhPeSdata8 = 0x0c;
constexpr uint8_t kEhPePcrel = 0x10;

absl::Status Rejected(uint64_t offset, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrFormat(".eh_frame offset %#x: %s", offset, what));
}

// Reads integers of the target's byte order from a table; `failed` once a
// read runs past the end.
class Reader {
 public:
  Reader(base::Bytes bytes, bool big_endian) : bytes_(bytes), big_endian_(big_endian) {}

  uint64_t Fixed(size_t width) {
    if (!Has(width)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) {
      uint64_t b = static_cast<uint8_t>(bytes_[pos_ + i]);
      v |= b << (8 * (big_endian_ ? width - 1 - i : i));
    }
    pos_ += width;
    return v;
  }
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0; Has(1); shift += 7) {
      uint8_t b = static_cast<uint8_t>(bytes_[pos_++]);
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return 0;
  }
  int64_t Sleb() {
    int64_t v = 0;
    int shift = 0;
    while (Has(1)) {
      uint8_t b = static_cast<uint8_t>(bytes_[pos_++]);
      if (shift < 64) v |= static_cast<int64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) {
        if (shift < 64 && (b & 0x40)) v |= -(int64_t{1} << shift);
        return v;
      }
    }
    return 0;
  }
  std::string String() {
    std::string s;
    while (Has(1)) {
      char c = static_cast<char>(bytes_[pos_++]);
      if (c == '\0') return s;
      s.push_back(c);
    }
    return s;
  }
  void Skip(size_t n) {
    if (Has(n)) pos_ += n;
  }
  size_t pos() const { return pos_; }
  bool failed() const { return failed_; }

 private:
  bool Has(size_t n) {
    if (bytes_.size() - pos_ >= n) return true;
    failed_ = true;
    pos_ = bytes_.size();
    return false;
  }

  base::Bytes bytes_;
  bool big_endian_;
  size_t pos_ = 0;
  bool failed_ = false;
};

void PutFixed(std::vector<std::byte>& out, size_t width, uint64_t v, bool big_endian) {
  for (size_t i = 0; i < width; ++i) {
    out.push_back(static_cast<std::byte>((v >> (8 * (big_endian ? width - 1 - i : i))) & 0xff));
  }
}

// The width of a fixed-size pointer format; nullopt for LEB128 and unknown ones.
std::optional<size_t> FormatWidth(uint8_t encoding, bool is_64) {
  switch (encoding & 0x0f) {
    case kEhPeAbsptr:
      return is_64 ? 8 : 4;
    case kEhPeUdata2:
    case kEhPeSdata2:
      return 2;
    case kEhPeUdata4:
    case kEhPeSdata4:
      return 4;
    case kEhPeUdata8:
    case kEhPeSdata8:
      return 8;
    default:
      return std::nullopt;
  }
}

bool IsSigned(uint8_t encoding) { return (encoding & 0x08) != 0; }

// Sign- or zero-extends a `width`-byte value.
int64_t Extend(uint64_t v, size_t width, bool is_signed) {
  if (width == 8) return static_cast<int64_t>(v);
  uint64_t sign = uint64_t{1} << (8 * width - 1);
  if (is_signed && (v & sign)) v |= ~((sign << 1) - 1);
  return static_cast<int64_t>(v);
}

bool Fits(int64_t v, size_t width, bool is_signed) {
  if (width == 8) return true;
  int64_t bits = 8 * static_cast<int64_t>(width);
  if (is_signed) {
    int64_t limit = int64_t{1} << (bits - 1);
    return v >= -limit && v < limit;
  }
  return v >= 0 && v < (int64_t{1} << bits);
}

// Pads a record body so that length field + body is a multiple of 4, with
// DW_CFA_nop (0), which ends CIE and FDE instructions harmlessly.
void PadRecord(std::vector<std::byte>& body) {
  while ((body.size() + 4) % 4 != 0) body.push_back(std::byte{0});
}

struct ParsedCie {
  uint8_t fde_encoding = kEhPeAbsptr;
  bool lsda = false;
};

absl::Status ParseCie(base::Bytes record, uint64_t offset, bool is_64, bool big_endian,
                      ParsedCie& cie) {
  Reader r(record, big_endian);
  r.Skip(8);  // length, id
  uint8_t version = static_cast<uint8_t>(r.Fixed(1));
  if (version != 1 && version != 3) {
    return Rejected(offset, absl::StrCat("CIE version ", version, " (expected 1 or 3)"));
  }
  std::string augmentation = r.String();
  r.Uleb();  // code alignment
  r.Sleb();  // data alignment
  if (version == 1) {
    r.Fixed(1);
  } else {
    r.Uleb();  // return address register
  }
  if (augmentation.empty()) {
    return r.failed() ? Rejected(offset, "CIE truncated") : absl::OkStatus();
  }
  if (augmentation[0] != 'z') {
    return Rejected(offset, absl::StrCat("CIE augmentation \"", base::Printable(augmentation),
                                         "\" is not readable"));
  }
  r.Uleb();  // augmentation data length
  for (char c : augmentation.substr(1)) {
    if (c == 'R') {
      cie.fde_encoding = static_cast<uint8_t>(r.Fixed(1));
    } else if (c == 'L') {
      cie.lsda = static_cast<uint8_t>(r.Fixed(1)) != kEhPeOmit;
    } else if (c != 'S') {
      return Rejected(offset,
                      absl::StrCat("CIE augmentation \"", base::Printable(augmentation), "\": '",
                                   base::Printable(std::string(1, c)), "' is not supported"));
    }
  }
  if (r.failed()) return Rejected(offset, "CIE truncated");
  if (cie.lsda) {
    return Rejected(offset, "CIE with an LSDA pointer (it points into the JIT's memory)");
  }
  if ((cie.fde_encoding & 0x70) != kEhPePcrel || (cie.fde_encoding & 0x80) != 0 ||
      !FormatWidth(cie.fde_encoding, is_64)) {
    return Rejected(offset, absl::StrCat("FDE pointer encoding 0x", absl::Hex(cie.fde_encoding),
                                         " (only pc-relative fixed-size pointers are rewritten)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status EhFrameMerger::Add(base::Bytes eh_frame, uint64_t code_size, uint64_t code_address) {
  // Where the table sat, from the code's first byte.
  const uint64_t table_at = base::AlignUp(code_size, 8);
  std::vector<Cie> cies;
  std::vector<Fde> fdes;
  absl::flat_hash_map<uint64_t, size_t> cie_at;  // offset in eh_frame -> index in cies
  uint64_t next_offset = eh_frame_size_ - 4;     // before the terminator
  size_t pos = 0;
  while (pos < eh_frame.size()) {
    if (eh_frame.size() - pos < 4) return Rejected(pos, "record length truncated");
    Reader head(eh_frame.subspan(pos), big_endian_);
    uint64_t length = head.Fixed(4);
    if (length == 0) break;  // terminator
    if (length == 0xffffffff) return Rejected(pos, "64-bit DWARF lengths are not supported");
    if (length < 4 || length > eh_frame.size() - pos - 4) {
      return Rejected(pos, absl::StrCat("record length ", length, " runs past the table's ",
                                        eh_frame.size(), " bytes"));
    }
    base::Bytes record = eh_frame.subspan(pos, 4 + length);
    uint64_t id = head.Fixed(4);
    if (id == 0) {
      ParsedCie parsed;
      if (absl::Status s = ParseCie(record, pos, is_64_, big_endian_, parsed); !s.ok()) return s;
      Cie cie;
      cie.body.assign(record.begin() + 8, record.end());
      PadRecord(cie.body);
      cie.fde_encoding = parsed.fde_encoding;
      cie.offset = next_offset;
      next_offset += 8 + cie.body.size();
      cie_at[pos] = cies.size();
      cies.push_back(std::move(cie));
    } else {
      // The CIE pointer counts back from the id field itself.
      uint64_t id_at = pos + 4;
      auto found = id <= id_at ? cie_at.find(id_at - id) : cie_at.end();
      if (found == cie_at.end()) {
        return Rejected(pos, absl::StrCat("FDE's CIE pointer ", id, " names no CIE before it"));
      }
      const Cie& cie = cies[found->second];
      size_t width = *FormatWidth(cie.fde_encoding, is_64_);
      bool is_signed = IsSigned(cie.fde_encoding);
      Reader r(record, big_endian_);
      r.Skip(8);
      uint64_t field_at = pos + r.pos();
      int64_t value = Extend(r.Fixed(width), width, is_signed);
      uint64_t range = r.Fixed(width);
      if (r.failed()) return Rejected(pos, "FDE truncated");
      // pc-relative to the field, the table being at `table_at` after the code.
      int64_t start = static_cast<int64_t>(table_at + field_at) + value;
      if (start < 0 || static_cast<uint64_t>(start) > code_size ||
          range > code_size - static_cast<uint64_t>(start)) {
        return Rejected(pos,
                        absl::StrCat("FDE covers [", start, ", ", start + range,
                                     ") from the code's start, outside its ", code_size, " bytes"));
      }
      Fde fde;
      fde.cie = cies_.size() + found->second;
      fde.pc_begin = code_address + static_cast<uint64_t>(start);
      fde.after_pc_begin.assign(record.begin() + 8 + width, record.end());
      // The record grows to a multiple of 4 with the pc_begin field re-made.
      while ((8 + width + fde.after_pc_begin.size()) % 4 != 0) {
        fde.after_pc_begin.push_back(std::byte{0});
      }
      fde.offset = next_offset;
      next_offset += 8 + width + fde.after_pc_begin.size();
      fdes.push_back(std::move(fde));
    }
    pos += 4 + length;
  }
  for (Cie& cie : cies) cies_.push_back(std::move(cie));
  for (Fde& fde : fdes) fdes_.push_back(std::move(fde));
  eh_frame_size_ = next_offset + 4;
  return absl::OkStatus();
}

absl::Status EhFrameMerger::Write(uint64_t eh_frame_address, std::vector<std::byte>& eh_frame,
                                  std::vector<std::byte>& eh_frame_hdr) const {
  eh_frame.clear();
  eh_frame.reserve(eh_frame_size_);
  // Records in the order Add placed them: merge the two lists by offset.
  size_t c = 0, f = 0;
  while (c < cies_.size() || f < fdes_.size()) {
    bool take_cie = f == fdes_.size() || (c < cies_.size() && cies_[c].offset < fdes_[f].offset);
    if (take_cie) {
      const Cie& cie = cies_[c++];
      PutFixed(eh_frame, 4, 4 + cie.body.size(), big_endian_);
      PutFixed(eh_frame, 4, 0, big_endian_);
      base::AppendBytes(eh_frame, cie.body);
      continue;
    }
    const Fde& fde = fdes_[f++];
    const Cie& cie = cies_[fde.cie];
    size_t width = *FormatWidth(cie.fde_encoding, is_64_);
    PutFixed(eh_frame, 4, 4 + width + fde.after_pc_begin.size(), big_endian_);
    PutFixed(eh_frame, 4, fde.offset + 4 - cie.offset, big_endian_);
    uint64_t field_address = eh_frame_address + fde.offset + 8;
    int64_t value = static_cast<int64_t>(fde.pc_begin - field_address);
    if (!Fits(value, width, IsSigned(cie.fde_encoding))) {
      return absl::OutOfRangeError(absl::StrCat(
          absl::StrFormat(".eh_frame offset %#x", fde.offset), ": pc_begin 0x",
          absl::Hex(fde.pc_begin), " is out of reach of its ", width, "-byte encoding"));
    }
    PutFixed(eh_frame, width, static_cast<uint64_t>(value), big_endian_);
    base::AppendBytes(eh_frame, fde.after_pc_begin);
  }
  PutFixed(eh_frame, 4, 0, big_endian_);  // terminator

  // The header: version, encodings and eh_frame_ptr; no search table (see
  // eh_frame_merge.h).
  uint64_t hdr_address = eh_frame_address + eh_frame.size();
  eh_frame_hdr.clear();
  eh_frame_hdr.push_back(std::byte{1});
  eh_frame_hdr.push_back(std::byte{kEhPePcrelSdata4});
  eh_frame_hdr.push_back(std::byte{kEhPeOmit});  // fde_count
  eh_frame_hdr.push_back(std::byte{kEhPeOmit});  // table
  int64_t frame_ptr = static_cast<int64_t>(eh_frame_address - (hdr_address + 4));
  PutFixed(eh_frame_hdr, 4, static_cast<uint64_t>(frame_ptr), big_endian_);
  return absl::OkStatus();
}

}  // namespace perftk::elf
