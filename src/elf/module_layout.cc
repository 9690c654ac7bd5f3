#include "elf/module_layout.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace perftk::elf {

absl::StatusOr<ModuleLayout> ModuleLayout::Of(const ElfFile& module) {
  if (module.type() != ET_REL) {
    return absl::InvalidArgumentError(
        absl::StrCat(module.path(), ": not a kernel module (ELF type ", module.type(),
                     ", a module is ET_REL)"));
  }
  ModuleLayout layout;
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
    if (section.name == ".text") layout.text_start_ = size;
    layout.text_.push_back(std::move(placed));
    size += section.size;
  }
  return layout;
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
