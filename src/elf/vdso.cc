#include "elf/vdso.h"

#include <elf.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "elf/build_id.h"

namespace perftk::elf {
namespace {

const Elf64_Ehdr* OwnVdsoHeader() {
  const auto base = static_cast<uintptr_t>(getauxval(AT_SYSINFO_EHDR));
  if (base == 0) return nullptr;
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(base);
  if (std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_phentsize != sizeof(Elf64_Phdr)) {
    return nullptr;
  }
  return header;
}

const Elf64_Phdr* Segments(const Elf64_Ehdr* header) {
  return reinterpret_cast<const Elf64_Phdr*>(reinterpret_cast<uintptr_t>(header) + header->e_phoff);
}

}  // namespace

absl::string_view OwnVdsoImage() {
  const Elf64_Ehdr* header = OwnVdsoHeader();
  if (header == nullptr) return {};
  uint64_t end = header->e_shoff + uint64_t{header->e_shnum} * header->e_shentsize;
  for (size_t i = 0; i < header->e_phnum; ++i) {
    const Elf64_Phdr& segment = Segments(header)[i];
    end = std::max<uint64_t>(end, segment.p_offset + segment.p_filesz);
  }
  return absl::string_view(reinterpret_cast<const char*>(header), end);
}

std::optional<base::BuildId> OwnVdsoBuildId() {
  const Elf64_Ehdr* header = OwnVdsoHeader();
  if (header == nullptr) return std::nullopt;
  const auto base = reinterpret_cast<uintptr_t>(header);
  for (size_t i = 0; i < header->e_phnum; ++i) {
    const Elf64_Phdr& segment = Segments(header)[i];
    if (segment.p_type != PT_NOTE) continue;
    // The vDSO is mapped whole from its start: file offsets are offsets from base.
    absl::string_view notes(reinterpret_cast<const char*>(base + segment.p_offset),
                            segment.p_filesz);
    if (std::optional<base::BuildId> id = GnuBuildIdInNotes(notes)) return id;
  }
  return std::nullopt;
}

}  // namespace perftk::elf
