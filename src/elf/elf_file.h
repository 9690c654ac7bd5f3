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

#include <elf.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/build_id.h"
#include "base/interrupt.h"

struct Elf;  // libelf's handle, opaque outside elf_file.cc

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

// One entry of a SHT_SYMTAB or SHT_DYNSYM section.
struct Symbol {
  uint32_t name_offset = 0;  // st_name, into the string table section the table links to
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t info = 0;            // st_info: type and binding
  uint16_t section_index = 0;  // st_shndx: a section index or SHN_UNDEF, SHN_ABS, ...

  uint8_t type() const { return ELF64_ST_TYPE(info); }
  uint8_t binding() const { return ELF64_ST_BIND(info); }
  bool defined() const { return section_index != SHN_UNDEF; }
};

// One entry of a SHT_REL or SHT_RELA section.
struct Relocation {
  uint64_t offset = 0;  // r_offset
  uint32_t type = 0;    // R_<machine>_*
  uint32_t symbol = 0;  // index into the symbol table the section links to
  int64_t addend = 0;   // r_addend; 0 in a SHT_REL section
};

// One entry of a SHT_DYNAMIC section.
struct DynamicEntry {
  int64_t tag = 0;     // DT_*
  uint64_t value = 0;  // d_val or d_ptr
};

// A version that a SHT_GNU_verdef section defines.
struct VersionDefinition {
  uint16_t index = 0;  // what SHT_GNU_versym entries name it by
  uint16_t flags = 0;  // VER_FLG_*
  absl::string_view name;
};

// A version that a SHT_GNU_verneed section requires of a library.
struct VersionRequirement {
  uint16_t index = 0;  // what SHT_GNU_versym entries name it by
  absl::string_view name;
  absl::string_view library;  // the library's soname
};

class ElfFile {
 public:
  // Opens `path`; errors name the path and what is wrong (missing, a
  // directory, not ELF, truncated, unsupported encoding).
  static absl::StatusOr<std::unique_ptr<ElfFile>> Open(const std::string& path);
  // An ELF image held in memory (e.g. decompressed MiniDebugInfo); `name`
  // is used in messages.
  static absl::StatusOr<std::unique_ptr<ElfFile>> FromMemory(std::string name, std::string bytes);

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

  // The entries of a table section below are read in native byte order.
  // Each reads sh_size / sh_entsize entries (an error when sh_entsize is 0),
  // or fewer when the section's data ends sooner.
  //
  // Every entry of symbol table `table`, the null symbol at index 0 included.
  absl::StatusOr<std::vector<Symbol>> Symbols(const Section& table) const;
  // Every entry of a SHT_REL or SHT_RELA section.
  absl::StatusOr<std::vector<Relocation>> Relocations(const Section& section) const;
  // Every entry of a SHT_DYNAMIC section, its DT_NULL terminator included.
  absl::StatusOr<std::vector<DynamicEntry>> DynamicEntries(const Section& section) const;

  // The version index of each dynamic symbol, from a SHT_GNU_versym section.
  absl::StatusOr<std::vector<uint16_t>> SymbolVersionIndices(const Section& versym) const;
  // The versions a SHT_GNU_verdef section defines; names are views into the
  // file, like StringViewAt's.
  absl::StatusOr<std::vector<VersionDefinition>> VersionDefinitions(const Section& verdef) const;
  // The versions a SHT_GNU_verneed section requires, one per library and
  // version.
  absl::StatusOr<std::vector<VersionRequirement>> VersionRequirements(const Section& verneed) const;

  // The section's bytes as stored in the file (no conversion).
  absl::StatusOr<absl::string_view> SectionBytes(const Section& section) const;
  // A NUL-terminated string from string table section `strtab_index`.
  absl::StatusOr<std::string> StringAt(size_t strtab_index, size_t offset) const;
  // The same string without a copy: it points into the file's data and
  // stays valid for the lifetime of the ElfFile.
  absl::StatusOr<absl::string_view> StringViewAt(size_t strtab_index, size_t offset) const;

  // The GNU build id, if the file has one.
  std::optional<::perftk::base::BuildId> BuildId() const;

 private:
  ElfFile() = default;
  absl::Status Load();
  absl::Status LoadSegments();
  absl::Status LoadSections();

  std::string path_;
  int fd_ = -1;
  std::string memory_;
  ::Elf* elf_ = nullptr;
  base::MappedInputName mapped_name_;  // libelf's mapping, for a SIGBUS message
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
