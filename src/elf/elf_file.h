// ElfFile: one ELF file opened read-only through libelf, with its program
// headers and section headers decoded once into native structs.
//
// Invariants: every Segment's and every non-NOBITS Section's file range lies
// inside the file (a truncated file is rejected at Open), and both ELF
// classes and byte orders are read (libelf converts to native values).
// Section bytes are borrowed from the file's mapping and stay valid for the
// lifetime of the ElfFile.
#ifndef PERFTK_ELF_ELF_FILE_H_
#define PERFTK_ELF_ELF_FILE_H_

#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace perftk::elf {

struct Segment {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t file_size = 0;
  uint64_t memory_size = 0;

  bool executable() const { return (flags & PF_X) != 0; }
  bool ContainsFileBackedAddress(uint64_t address) const {
    return address >= vaddr && address - vaddr < file_size;
  }
};

struct Section {
  size_t index = 0;
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entry_size = 0;
  uint64_t alignment = 0;  // sh_addralign

  bool allocated() const { return (flags & SHF_ALLOC) != 0; }
  bool has_file_bytes() const { return type != SHT_NOBITS; }
};

class ElfFile {
 public:
  // Opens `path`; errors name the path and what is wrong (missing, a
  // directory, not ELF, truncated, unsupported encoding).
  static absl::StatusOr<std::unique_ptr<ElfFile>> Open(const std::string& path);
  // An ELF image held in memory (e.g. decompressed MiniDebugInfo); `name`
  // is used in messages.
  static absl::StatusOr<std::unique_ptr<ElfFile>> FromMemory(std::string name,
                                                             std::string bytes);

  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile();

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return file_size_; }
  bool is_64bit() const { return is_64bit_; }
  bool big_endian() const { return big_endian_; }
  uint16_t machine() const { return machine_; }
  uint16_t type() const { return type_; }

  const std::vector<Segment>& segments() const { return segments_; }
  const std::vector<Section>& sections() const { return sections_; }

  const Section* FindSection(absl::string_view name) const;
  const Section* FindSectionByType(uint32_t type) const;
  // The allocated section with file bytes whose address range holds `vaddr`.
  const Section* SectionContaining(uint64_t vaddr) const;

  // libelf's data for a section, converted to native byte order.
  absl::StatusOr<Elf_Data*> SectionData(const Section& section) const;
  // The section's bytes as stored in the file (no conversion).
  absl::StatusOr<absl::string_view> SectionBytes(const Section& section) const;
  // A NUL-terminated string from string table section `strtab_index`.
  absl::StatusOr<std::string> StringAt(size_t strtab_index, size_t offset) const;
  // The same string without a copy: it points into the file's data and
  // stays valid for the lifetime of the ElfFile.
  absl::StatusOr<absl::string_view> StringViewAt(size_t strtab_index, size_t offset) const;

  // The GNU build id (hex), if the file has one.
  std::optional<std::string> BuildId() const;

  Elf* handle() const { return elf_; }

 private:
  ElfFile() = default;
  absl::Status Load();
  absl::Status LoadSegments();
  absl::Status LoadSections();

  std::string path_;
  int fd_ = -1;
  std::string memory_;
  Elf* elf_ = nullptr;
  uint64_t file_size_ = 0;
  bool is_64bit_ = true;
  bool big_endian_ = false;
  uint16_t machine_ = 0;
  uint16_t type_ = 0;
  std::vector<Segment> segments_;
  std::vector<Section> sections_;
};

// The absolute, lexically normal form of `path` (unchanged when it cannot be
// made absolute): what uprobe_events and messages name.
std::string AbsolutePath(const std::string& path);

// "EM_X86_64"-style name for messages.
std::string MachineName(uint16_t machine);

}  // namespace perftk::elf

#endif  // PERFTK_ELF_ELF_FILE_H_
