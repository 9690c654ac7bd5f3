#include "elf/module_layout.h"

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace perftk::elf {

absl::StatusOr<ModuleLayout> ModuleLayout::Of(const ElfFile& module) {
  if (module.type() != ET_REL) {
    return absl::InvalidArgumentError(absl::StrCat(
        module.path(), ": not a kernel module (ELF type ", module.type(), ", a module is ET_REL)"));
  }
  ModuleLayout layout;
  std::vector<int> placed_by_index(module.sections().size() + 1, -1);
  uint64_t size = 0;
  for (const Section& section : module.sections()) {
    const uint64_t wanted = SHF_EXECINSTR | SHF_ALLOC;
    if ((section.flags & wanted) != wanted || absl::StartsWith(section.name, ".init")) continue;
    const uint64_t align = section.alignment == 0 ? 1 : section.alignment;
    if ((align & (align - 1)) != 0 || size + align < size || size + section.size < size) {
      return absl::InvalidArgumentError(absl::StrCat(
          module.path(), ": section ", section.name, " has alignment ", section.alignment,
          " and size ", section.size, ", which no module loader would place"));
    }
    size = (size + align - 1) & ~(align - 1);
    PlacedSection placed;
    placed.name = section.name;
    placed.memory_offset = size;
    placed.size = section.size;
    placed.file_offset = section.offset;
    placed.has_file_bytes = section.has_file_bytes();
    if (placed.has_file_bytes && section.size > 0) {
      absl::StatusOr<absl::string_view> bytes = module.SectionBytes(section);
      if (!bytes.ok()) return bytes.status();
      placed.code.assign(bytes->begin(), bytes->end());
    }
    if (section.index < placed_by_index.size()) {
      placed_by_index[section.index] = static_cast<int>(layout.text_.size());
    }
    if (section.name == ".text") layout.text_start_ = size;
    layout.text_.push_back(std::move(placed));
    size += section.size;
  }
  if (module.machine() == EM_AARCH64 && !module.big_endian()) {
    if (absl::Status s = layout.Relocate(module, placed_by_index); !s.ok()) return s;
  }
  return layout;
}

absl::Status ModuleLayout::Relocate(const ElfFile& module,
                                    const std::vector<int>& placed_by_index) {
  const Section* symtab = module.FindSectionByType(SHT_SYMTAB);
  if (symtab == nullptr) return absl::OkStatus();
  absl::StatusOr<std::vector<Symbol>> symbols = module.Symbols(*symtab);
  if (!symbols.ok()) return absl::OkStatus();
  auto placed_at = [&placed_by_index](size_t index) {
    return index < placed_by_index.size() ? placed_by_index[index] : -1;
  };
  for (const Section& rela : module.sections()) {
    if (rela.type != SHT_RELA || placed_at(rela.info) < 0) continue;
    PlacedSection& target = text_[placed_at(rela.info)];
    absl::StatusOr<std::vector<Relocation>> relocations = module.Relocations(rela);
    if (!relocations.ok()) continue;
    for (const Relocation& entry : *relocations) {
      if (entry.type != R_AARCH64_CALL26 && entry.type != R_AARCH64_JUMP26) continue;
      if (entry.symbol >= symbols->size()) continue;
      const Symbol& symbol = (*symbols)[entry.symbol];
      const int defined_in = placed_at(symbol.section_index);
      if (defined_in < 0 || entry.offset > target.code.size() ||
          target.code.size() - entry.offset < 4) {
        continue;  // the kernel's symbol, or init code: not known here
      }
      const uint64_t to =
          text_[defined_in].memory_offset + symbol.value + static_cast<uint64_t>(entry.addend);
      const uint64_t at = target.memory_offset + entry.offset;
      const int64_t delta = static_cast<int64_t>(to - at);
      if (delta % 4 != 0 || delta >= (int64_t{1} << 27) || delta < -(int64_t{1} << 27)) continue;
      uint32_t insn;
      std::memcpy(&insn, target.code.data() + entry.offset, 4);
      insn = (insn & 0xfc000000u) | (static_cast<uint32_t>(delta / 4) & 0x03ffffffu);
      std::memcpy(target.code.data() + entry.offset, &insn, 4);
      ++relocated_;
    }
  }
  return absl::OkStatus();
}

uint32_t ModuleLayout::Read(uint64_t memory_offset, uint32_t size, uint8_t* out) const {
  const PlacedSection* section = SectionAt(memory_offset);
  if (section == nullptr) return 0;
  const uint64_t into = memory_offset - section->memory_offset;
  if (into >= section->code.size()) return 0;
  const uint64_t n = std::min<uint64_t>(size, section->code.size() - into);
  std::memcpy(out, section->code.data() + into, n);
  return static_cast<uint32_t>(n);
}

const PlacedSection* ModuleLayout::SectionAt(uint64_t memory_offset) const {
  for (const PlacedSection& section : text_) {
    if (memory_offset >= section.memory_offset &&
        memory_offset - section.memory_offset < section.size) {
      return &section;
    }
  }
  return nullptr;
}

std::optional<uint64_t> ModuleLayout::FileOffset(uint64_t memory_offset) const {
  const PlacedSection* section = SectionAt(memory_offset);
  if (section == nullptr || !section->has_file_bytes) return std::nullopt;
  return section->file_offset + (memory_offset - section->memory_offset);
}

}  // namespace perftk::elf
