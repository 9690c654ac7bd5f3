#include "uprobe/plt.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perftk::uprobe {
namespace {

// GOT slot address -> .dynsym index, from the dynamic relocations.
using SlotMap = absl::flat_hash_map<uint64_t, size_t>;

bool IsSlotRelocation(uint16_t machine, uint32_t type) {
  switch (machine) {
    case EM_X86_64:
      return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
    case EM_AARCH64:
      return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
    default:
      return false;
  }
}

absl::StatusOr<SlotMap> ReadSlots(const elf::ElfFile& binary) {
  SlotMap slots;
  for (const elf::Section& section : binary.sections()) {
    if (section.type != SHT_RELA && section.type != SHT_REL) continue;
    if (section.link >= binary.sections().size() ||
        binary.sections()[section.link].type != SHT_DYNSYM || section.entry_size == 0) {
      continue;
    }
    absl::StatusOr<std::vector<elf::Relocation>> relocations = binary.Relocations(section);
    if (!relocations.ok()) return relocations.status();
    for (const elf::Relocation& relocation : *relocations) {
      if (relocation.symbol != 0 && IsSlotRelocation(binary.machine(), relocation.type)) {
        slots[relocation.offset] = relocation.symbol;
      }
    }
  }
  return slots;
}

int SectionRank(const elf::Section& section) {
  if (section.name == ".plt.sec") return 0;
  if (section.name == ".plt") return 1;
  if (section.name == ".plt.got") return 2;
  return 3;
}

void Record(PltStubs& stubs, size_t symbol, uint64_t vaddr, const elf::Section& section) {
  auto [it, inserted] = stubs.try_emplace(symbol, PltStub{vaddr, &section});
  if (!inserted && SectionRank(section) < SectionRank(*it->second.section)) {
    it->second = PltStub{vaddr, &section};
  }
}

uint32_t Load32(absl::string_view bytes, size_t at, bool big_endian) {
  uint8_t b[4];
  std::memcpy(b, bytes.data() + at, 4);
  if (big_endian)
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  return (uint32_t{b[3]} << 24) | (uint32_t{b[2]} << 16) | (uint32_t{b[1]} << 8) | b[0];
}

// x86_64: a stub is `[endbr64] [bnd] jmp *disp32(%rip)`.
void ScanX86_64(const elf::Section& section, absl::string_view bytes, const SlotMap& slots,
                PltStubs& stubs) {
  static constexpr char kEndbr64[] = "\xf3\x0f\x1e\xfa";
  for (size_t i = 0; i + 6 <= bytes.size(); ++i) {
    if (static_cast<uint8_t>(bytes[i]) != 0xff || static_cast<uint8_t>(bytes[i + 1]) != 0x25) {
      continue;
    }
    const auto displacement = static_cast<int32_t>(Load32(bytes, i + 2, false));
    const uint64_t slot = section.addr + i + 6 + static_cast<int64_t>(displacement);
    auto found = slots.find(slot);
    if (found == slots.end()) continue;
    size_t start = i;
    if (start >= 1 && static_cast<uint8_t>(bytes[start - 1]) == 0xf2) --start;
    if (start >= 4 && bytes.substr(start - 4, 4) == absl::string_view(kEndbr64, 4)) start -= 4;
    Record(stubs, found->second, section.addr + start, section);
  }
}

// aarch64: a stub is `[bti c] adrp x16, PAGE; ldr x17, [x16, #OFF]; ...`.
void ScanAarch64(const elf::Section& section, absl::string_view bytes, bool big_endian,
                 const SlotMap& slots, PltStubs& stubs) {
  constexpr uint32_t kBtiC = 0xd503245f;
  for (size_t i = 0; i + 8 <= bytes.size(); i += 4) {
    const uint32_t adrp = Load32(bytes, i, big_endian);
    const uint32_t ldr = Load32(bytes, i + 4, big_endian);
    if ((adrp & 0x9f00001f) != 0x90000010) continue;  // adrp x16
    if ((ldr & 0xffc003ff) != 0xf9400211) continue;   // ldr x17, [x16, #imm]
    const uint64_t pc = section.addr + i;
    int64_t page = static_cast<int64_t>((((adrp >> 5) & 0x7ffff) << 2) | ((adrp >> 29) & 3));
    if (page & (int64_t{1} << 20)) page -= int64_t{1} << 21;
    const uint64_t slot =
        (pc & ~uint64_t{0xfff}) + static_cast<uint64_t>(page << 12) + ((ldr >> 10) & 0xfff) * 8;
    auto found = slots.find(slot);
    if (found == slots.end()) continue;
    size_t start = i;
    if (start >= 4 && Load32(bytes, start - 4, big_endian) == kBtiC) start -= 4;
    Record(stubs, found->second, section.addr + start, section);
  }
}

}  // namespace

absl::StatusOr<PltStubs> FindPltStubs(const elf::ElfFile& binary) {
  if (binary.machine() != EM_X86_64 && binary.machine() != EM_AARCH64) {
    return absl::UnimplementedError(
        absl::StrCat(binary.path(),
                     ": finding PLT stubs is supported for x86_64 and aarch64 files, this one is ",
                     elf::MachineName(binary.machine())));
  }
  absl::StatusOr<SlotMap> slots = ReadSlots(binary);
  if (!slots.ok()) return slots.status();
  PltStubs stubs;
  for (const elf::Section& section : binary.sections()) {
    if (!absl::StartsWith(section.name, ".plt") || (section.flags & SHF_EXECINSTR) == 0 ||
        !section.has_file_bytes()) {
      continue;
    }
    absl::StatusOr<absl::string_view> bytes = binary.SectionBytes(section);
    if (!bytes.ok()) return bytes.status();
    if (binary.machine() == EM_X86_64) {
      ScanX86_64(section, *bytes, *slots, stubs);
    } else {
      ScanAarch64(section, *bytes, binary.big_endian(), *slots, stubs);
    }
  }
  return stubs;
}

}  // namespace perftk::uprobe
