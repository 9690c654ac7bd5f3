#include "elf/kernel_image.h"

#include <unistd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perftk::elf {

absl::StatusOr<KernelImage> KernelImage::Of(const ElfFile& file) {
  KernelImage image;
  image.is_core_ = file.type() == ET_CORE;
  for (const Segment& segment : file.segments()) {
    if (segment.type != PT_LOAD || segment.file_size == 0) continue;
    image.loads_.push_back({segment.vaddr, segment.offset, segment.file_size});
  }
  if (image.loads_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.path(), ": no PT_LOAD with file bytes: not a kernel image"));
  }
  return image;
}

absl::StatusOr<KernelImage> KernelImage::OfCore(int fd, const std::string& path) {
  Elf64_Ehdr ehdr;
  if (::pread(fd, &ehdr, sizeof(ehdr), 0) != static_cast<ssize_t>(sizeof(ehdr)) ||
      std::memcmp(ehdr.e_ident, ELFMAG, SELFMAG) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": offset 0: not an ELF file"));
  }
  const bool native = ehdr.e_ident[EI_DATA] ==
                      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB);
  if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || !native || ehdr.e_type != ET_CORE ||
      ehdr.e_phentsize != sizeof(Elf64_Phdr)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": offset 0: not a 64-bit native-endian ELF core file (a kcore)"));
  }
  KernelImage image;
  image.is_core_ = true;
  for (uint16_t i = 0; i < ehdr.e_phnum; ++i) {
    Elf64_Phdr phdr;
    const uint64_t at = ehdr.e_phoff + uint64_t{i} * sizeof(phdr);
    if (::pread(fd, &phdr, sizeof(phdr), static_cast<off_t>(at)) !=
        static_cast<ssize_t>(sizeof(phdr))) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: offset %#x: program header %d cannot be read", path, at, i));
    }
    if (phdr.p_type == PT_LOAD && phdr.p_filesz != 0) {
      image.loads_.push_back({phdr.p_vaddr, phdr.p_offset, phdr.p_filesz});
    }
  }
  if (image.loads_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": a core file without PT_LOADs"));
  }
  return image;
}

std::optional<std::pair<uint64_t, uint64_t>> KernelImage::FileRange(uint64_t address) const {
  for (const Load& load : loads_) {
    if (address >= load.vaddr && address - load.vaddr < load.size) {
      const uint64_t into = address - load.vaddr;
      return std::make_pair(load.offset + into, load.size - into);
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> SymbolValue(const ElfFile& file, absl::string_view name) {
  const Section* table = file.FindSectionByType(SHT_SYMTAB);
  if (table == nullptr) return std::nullopt;
  absl::StatusOr<std::vector<Symbol>> symbols = file.Symbols(*table);
  if (!symbols.ok()) return std::nullopt;
  for (size_t i = 1; i < symbols->size(); ++i) {
    const Symbol& symbol = (*symbols)[i];
    if (!symbol.defined()) continue;
    absl::StatusOr<absl::string_view> text = file.StringViewAt(table->link, symbol.name_offset);
    if (text.ok() && *text == name) return symbol.value;
  }
  return std::nullopt;
}

}  // namespace perftk::elf
