#include "elf/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/input_file.h"
#include "base/printable.h"

namespace perftk::elf {
namespace {

absl::Status EnsureLibelfReady() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!ready) return absl::InternalError("libelf: elf_version(EV_CURRENT) failed");
  return absl::OkStatus();
}

std::string LibelfError() { return elf_errmsg(elf_errno()); }

// Checks the identification bytes before libelf sees the file, so that the
// common mistakes get a precise message.
absl::Status CheckIdent(const std::string& path, absl::string_view head, uint64_t size) {
  if (size < 4 || head.substr(0, 4) != absl::string_view(ELFMAG, SELFMAG)) {
    // The file's own bytes are not quoted: it may be any file a recording
    // names (base/recorded_name.h).
    return absl::InvalidArgumentError(
        absl::StrCat(base::Printable(path), ": not an ELF file (no \\177ELF magic at offset 0)"));
  }
  if (size < EI_NIDENT) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": truncated ELF file: ", size,
                                                   " bytes, the identification alone needs ",
                                                   EI_NIDENT));
  }
  const auto elf_class = static_cast<unsigned char>(head[EI_CLASS]);
  if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: offset 0x%x: unknown ELF class %d (expected 1 = 32-bit or 2 = 64-bit)",
                        path, EI_CLASS, elf_class));
  }
  const auto data = static_cast<unsigned char>(head[EI_DATA]);
  if (data != ELFDATA2LSB && data != ELFDATA2MSB) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: offset 0x%x: unknown ELF data encoding %d (expected 1 = little-endian or "
        "2 = big-endian)",
        path, EI_DATA, data));
  }
  const size_t header_size = elf_class == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  if (size < header_size) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": truncated ELF file: ", size,
                                                   " bytes, the ELF header needs ", header_size));
  }
  return absl::OkStatus();
}

absl::Status CheckRange(const std::string& path, absl::string_view what, uint64_t offset,
                        uint64_t size, uint64_t file_size) {
  if (offset > file_size || size > file_size - offset) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: truncated ELF file: %s at offset 0x%x size 0x%x ends past the end of the file "
        "(0x%x bytes)",
        path, std::string(what), offset, size, file_size));
  }
  return absl::OkStatus();
}

// libelf's data for `section`, converted to native byte order and layout.
absl::StatusOr<Elf_Data*> NativeData(Elf* elf, const std::string& path, const Section& section) {
  Elf_Scn* scn = elf_getscn(elf, section.index);
  Elf_Data* data = scn != nullptr ? elf_getdata(scn, nullptr) : nullptr;
  if (data == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: section %s at offset 0x%x: cannot read its data: %s", path,
                        section.name, section.offset, LibelfError()));
  }
  return data;
}

// sh_size / sh_entsize: how many entries table section `section` holds.
absl::StatusOr<size_t> EntryCount(const std::string& path, const Section& section) {
  if (section.entry_size == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: section %s at offset 0x%x: sh_entsize is 0, it holds no table", path,
                        section.name, section.offset));
  }
  return section.size / section.entry_size;
}

// The entries of table section `section`, each decoded by `read(data,
// index)`: sh_size / sh_entsize of them, or fewer when `read` finds the
// data ends sooner (returns nullopt).
template <typename Entry, typename Read>
absl::StatusOr<std::vector<Entry>> ReadEntries(Elf* elf, const std::string& path,
                                               const Section& section, Read read) {
  absl::StatusOr<size_t> count = EntryCount(path, section);
  if (!count.ok()) return count.status();
  absl::StatusOr<Elf_Data*> data = NativeData(elf, path, section);
  if (!data.ok()) return data.status();
  std::vector<Entry> entries;
  entries.reserve(*count);
  for (size_t i = 0; i < *count; ++i) {
    std::optional<Entry> entry = read(*data, static_cast<int>(i));
    if (!entry.has_value()) break;
    entries.push_back(*entry);
  }
  return entries;
}

// Up to `count` symbols from libelf's converted array of `Sym` (Elf32_Sym
// or Elf64_Sym), read directly: what gelf_getsym returns, without its call
// and checks per entry (a symbol table can have a million entries).
template <typename Sym>
std::vector<Symbol> SymbolArray(const Elf_Data& data, size_t count) {
  count = std::min(count, data.d_size / sizeof(Sym));
  std::vector<Symbol> symbols;
  symbols.reserve(count);
  const char* entries = static_cast<const char*>(data.d_buf);
  for (size_t i = 0; i < count; ++i) {
    Sym sym;
    std::memcpy(&sym, entries + i * sizeof(Sym), sizeof(Sym));  // may be unaligned
    symbols.push_back({sym.st_name, sym.st_value, sym.st_size, sym.st_info, sym.st_shndx});
  }
  return symbols;
}

// libelf widens a 32-bit r_info to the 64-bit layout, so GELF_R_* suit both
// classes.
std::optional<Relocation> ReadRelocation(Elf_Data* data, int index, bool with_addend) {
  if (with_addend) {
    GElf_Rela rela;
    if (gelf_getrela(data, index, &rela) == nullptr) return std::nullopt;
    return Relocation{rela.r_offset, static_cast<uint32_t>(GELF_R_TYPE(rela.r_info)),
                      static_cast<uint32_t>(GELF_R_SYM(rela.r_info)), rela.r_addend};
  }
  GElf_Rel rel;
  if (gelf_getrel(data, index, &rel) == nullptr) return std::nullopt;
  return Relocation{rel.r_offset, static_cast<uint32_t>(GELF_R_TYPE(rel.r_info)),
                    static_cast<uint32_t>(GELF_R_SYM(rel.r_info)), 0};
}

std::optional<DynamicEntry> ReadDynamicEntry(Elf_Data* data, int index) {
  GElf_Dyn dyn;
  if (gelf_getdyn(data, index, &dyn) == nullptr) return std::nullopt;
  return DynamicEntry{dyn.d_tag, dyn.d_un.d_val};
}

}  // namespace

absl::StatusOr<std::unique_ptr<ElfFile>> ElfFile::Open(const std::string& path) {
  if (absl::Status ready = EnsureLibelfReady(); !ready.ok()) return ready;
  std::unique_ptr<ElfFile> file(new ElfFile());
  file->path_ = path;
  struct stat st {};
  absl::StatusOr<int> fd =
      base::OpenInputFile(path, "ELF file", base::InputKind::kRegularFile, &st);
  if (!fd.ok()) return fd.status();
  file->fd_ = *fd;
  file->file_size_ = static_cast<uint64_t>(st.st_size);
  char head[EI_NIDENT] = {};
  const ssize_t got = ::pread(file->fd_, head, sizeof(head), 0);
  if (got < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  if (absl::Status ident = CheckIdent(path, absl::string_view(head, got), file->file_size_);
      !ident.ok()) {
    return ident;
  }
  file->elf_ = elf_begin(file->fd_, ELF_C_READ_MMAP, nullptr);
  if (file->elf_ == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": libelf: ", LibelfError()));
  }
  size_t mapped_size = 0;
  if (const char* mapped = elf_rawfile(file->elf_, &mapped_size); mapped != nullptr) {
    file->mapped_name_ = base::MappedInputName(mapped, mapped_size, base::Printable(path));
  }
  if (absl::Status loaded = file->Load(); !loaded.ok()) return loaded;
  return file;
}

absl::StatusOr<std::unique_ptr<ElfFile>> ElfFile::FromMemory(std::string name, std::string bytes) {
  if (absl::Status ready = EnsureLibelfReady(); !ready.ok()) return ready;
  std::unique_ptr<ElfFile> file(new ElfFile());
  file->path_ = std::move(name);
  file->memory_ = std::move(bytes);
  file->file_size_ = file->memory_.size();
  if (absl::Status ident = CheckIdent(file->path_, file->memory_, file->file_size_); !ident.ok()) {
    return ident;
  }
  file->elf_ = elf_memory(file->memory_.data(), file->memory_.size());
  if (file->elf_ == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(file->path_, ": libelf: ", LibelfError()));
  }
  if (absl::Status loaded = file->Load(); !loaded.ok()) return loaded;
  return file;
}

ElfFile::~ElfFile() {
  mapped_name_ = base::MappedInputName();  // before the mapping goes
  if (elf_ != nullptr) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

absl::Status ElfFile::Load() {
  if (elf_kind(elf_) != ELF_K_ELF) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": not an ELF object"));
  }
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf_, &ehdr) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": offset 0x0: bad ELF header: ", LibelfError()));
  }
  is_64bit_ = ehdr.e_ident[EI_CLASS] == ELFCLASS64;
  big_endian_ = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
  machine_ = ehdr.e_machine;
  type_ = ehdr.e_type;
  // libelf quietly ignores a header table that does not fit in the file, so
  // the tables named by the ELF header are checked here first.
  if (ehdr.e_phoff != 0) {
    const uint64_t count = ehdr.e_phnum == PN_XNUM ? 1 : ehdr.e_phnum;
    if (absl::Status s = CheckRange(path_, "program header table", ehdr.e_phoff,
                                    count * ehdr.e_phentsize, file_size_);
        !s.ok()) {
      return s;
    }
  }
  if (ehdr.e_shoff != 0) {
    const uint64_t count = ehdr.e_shnum == 0 ? 1 : ehdr.e_shnum;
    if (absl::Status s = CheckRange(path_, "section header table", ehdr.e_shoff,
                                    count * ehdr.e_shentsize, file_size_);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = LoadSegments(); !s.ok()) return s;
  return LoadSections();
}

absl::Status ElfFile::LoadSegments() {
  size_t count = 0;
  if (elf_getphdrnum(elf_, &count) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": bad program header table: ", LibelfError()));
  }
  GElf_Ehdr ehdr;
  gelf_getehdr(elf_, &ehdr);
  if (count > 0) {
    if (absl::Status s = CheckRange(path_, "program header table", ehdr.e_phoff,
                                    static_cast<uint64_t>(count) * ehdr.e_phentsize, file_size_);
        !s.ok()) {
      return s;
    }
  }
  segments_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf_, static_cast<int>(i), &phdr) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ": program header ", i, ": ", LibelfError()));
    }
    Segment segment{phdr.p_type,  phdr.p_flags,  phdr.p_offset,
                    phdr.p_vaddr, phdr.p_filesz, phdr.p_memsz};
    if (segment.type == PT_LOAD) {
      if (absl::Status s = CheckRange(path_, absl::StrCat("PT_LOAD segment ", i), segment.offset,
                                      segment.file_size, file_size_);
          !s.ok()) {
        return s;
      }
    }
    segments_.push_back(segment);
  }
  return absl::OkStatus();
}

absl::Status ElfFile::LoadSections() {
  size_t count = 0;
  size_t names_index = 0;
  if (elf_getshdrnum(elf_, &count) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_, ": bad section header table: ", LibelfError()));
  }
  GElf_Ehdr ehdr;
  gelf_getehdr(elf_, &ehdr);
  if (count > 0) {
    if (absl::Status s = CheckRange(path_, "section header table", ehdr.e_shoff,
                                    static_cast<uint64_t>(count) * ehdr.e_shentsize, file_size_);
        !s.ok()) {
      return s;
    }
    if (elf_getshdrstrndx(elf_, &names_index) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ": bad section name table index: ", LibelfError()));
    }
  }
  sections_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    Elf_Scn* scn = elf_getscn(elf_, i);
    GElf_Shdr shdr;
    if (scn == nullptr || gelf_getshdr(scn, &shdr) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ": section header ", i, ": ", LibelfError()));
    }
    Section section;
    section.index = i;
    const char* name = i == 0 ? "" : elf_strptr(elf_, names_index, shdr.sh_name);
    section.name = name != nullptr ? name : absl::StrCat("<section ", i, ">");
    section.type = shdr.sh_type;
    section.flags = shdr.sh_flags;
    section.addr = shdr.sh_addr;
    section.offset = shdr.sh_offset;
    section.size = shdr.sh_size;
    section.link = shdr.sh_link;
    section.info = shdr.sh_info;
    section.entry_size = shdr.sh_entsize;
    section.alignment = shdr.sh_addralign;
    if (i != 0 && section.has_file_bytes()) {
      if (absl::Status s = CheckRange(path_, absl::StrCat("section ", section.name), section.offset,
                                      section.size, file_size_);
          !s.ok()) {
        return s;
      }
    }
    sections_.push_back(std::move(section));
  }
  return absl::OkStatus();
}

const Section* ElfFile::FindSection(absl::string_view name) const {
  for (const Section& section : sections_) {
    if (section.name == name) return &section;
  }
  return nullptr;
}

const Section* ElfFile::FindSectionByType(uint32_t type) const {
  for (const Section& section : sections_) {
    if (section.type == type) return &section;
  }
  return nullptr;
}

const Section* ElfFile::SectionContaining(uint64_t vaddr) const {
  for (const Section& section : sections_) {
    if (!section.allocated() || !section.has_file_bytes() || section.size == 0) continue;
    if (vaddr >= section.addr && vaddr - section.addr < section.size) return &section;
  }
  return nullptr;
}

absl::StatusOr<std::vector<Symbol>> ElfFile::Symbols(const Section& table) const {
  absl::StatusOr<size_t> count = EntryCount(path_, table);
  if (!count.ok()) return count.status();
  absl::StatusOr<Elf_Data*> data = NativeData(elf_, path_, table);
  if (!data.ok()) return data.status();
  if ((*data)->d_type != ELF_T_SYM) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: section %s at offset 0x%x: not a symbol table", path_, table.name, table.offset));
  }
  return is_64bit_ ? SymbolArray<Elf64_Sym>(**data, *count)
                   : SymbolArray<Elf32_Sym>(**data, *count);
}

absl::StatusOr<std::vector<Relocation>> ElfFile::Relocations(const Section& section) const {
  const bool with_addend = section.type == SHT_RELA;
  return ReadEntries<Relocation>(elf_, path_, section, [with_addend](Elf_Data* data, int index) {
    return ReadRelocation(data, index, with_addend);
  });
}

absl::StatusOr<std::vector<DynamicEntry>> ElfFile::DynamicEntries(const Section& section) const {
  return ReadEntries<DynamicEntry>(elf_, path_, section, ReadDynamicEntry);
}

absl::StatusOr<std::vector<uint16_t>> ElfFile::SymbolVersionIndices(const Section& versym) const {
  absl::StatusOr<Elf_Data*> data = NativeData(elf_, path_, versym);
  if (!data.ok()) return data.status();
  const auto* values = static_cast<const uint16_t*>((*data)->d_buf);
  return std::vector<uint16_t>(values, values + (*data)->d_size / sizeof(uint16_t));
}

absl::StatusOr<std::vector<VersionDefinition>> ElfFile::VersionDefinitions(
    const Section& verdef) const {
  absl::StatusOr<Elf_Data*> data = NativeData(elf_, path_, verdef);
  if (!data.ok()) return data.status();
  std::vector<VersionDefinition> definitions;
  size_t offset = 0;
  for (size_t n = 0; n < verdef.info; ++n) {
    GElf_Verdef def;
    GElf_Verdaux aux;
    if (gelf_getverdef(*data, offset, &def) == nullptr ||
        gelf_getverdaux(*data, offset + def.vd_aux, &aux) == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: section .gnu.version_d at offset 0x%x: bad version definition at +0x%x", path_,
          verdef.offset, offset));
    }
    absl::StatusOr<absl::string_view> name = StringViewAt(verdef.link, aux.vda_name);
    if (!name.ok()) return name.status();
    definitions.push_back({def.vd_ndx, def.vd_flags, *name});
    if (def.vd_next == 0) break;
    offset += def.vd_next;
  }
  return definitions;
}

absl::StatusOr<std::vector<VersionRequirement>> ElfFile::VersionRequirements(
    const Section& verneed) const {
  absl::StatusOr<Elf_Data*> data = NativeData(elf_, path_, verneed);
  if (!data.ok()) return data.status();
  std::vector<VersionRequirement> requirements;
  size_t offset = 0;
  for (size_t n = 0; n < verneed.info; ++n) {
    GElf_Verneed need;
    if (gelf_getverneed(*data, offset, &need) == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: section .gnu.version_r at offset 0x%x: bad version requirement at +0x%x", path_,
          verneed.offset, offset));
    }
    absl::StatusOr<absl::string_view> library = StringViewAt(verneed.link, need.vn_file);
    if (!library.ok()) return library.status();
    size_t aux_offset = offset + need.vn_aux;
    for (size_t a = 0; a < need.vn_cnt; ++a) {
      GElf_Vernaux aux;
      if (gelf_getvernaux(*data, aux_offset, &aux) == nullptr) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: section .gnu.version_r at offset 0x%x: bad requirement entry at +0x%x", path_,
            verneed.offset, aux_offset));
      }
      absl::StatusOr<absl::string_view> name = StringViewAt(verneed.link, aux.vna_name);
      if (!name.ok()) return name.status();
      requirements.push_back({aux.vna_other, *name, *library});
      if (aux.vna_next == 0) break;
      aux_offset += aux.vna_next;
    }
    if (need.vn_next == 0) break;
    offset += need.vn_next;
  }
  return requirements;
}

absl::StatusOr<absl::string_view> ElfFile::SectionBytes(const Section& section) const {
  if (!section.has_file_bytes()) return absl::string_view();
  Elf_Scn* scn = elf_getscn(elf_, section.index);
  Elf_Data* data = scn != nullptr ? elf_rawdata(scn, nullptr) : nullptr;
  if (data == nullptr || data->d_buf == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: section %s at offset 0x%x: cannot read its bytes: %s", path_,
                        section.name, section.offset, LibelfError()));
  }
  return absl::string_view(static_cast<const char*>(data->d_buf), data->d_size);
}

absl::StatusOr<std::string> ElfFile::StringAt(size_t strtab_index, size_t offset) const {
  absl::StatusOr<absl::string_view> text = StringViewAt(strtab_index, offset);
  if (!text.ok()) return text.status();
  return std::string(*text);
}

absl::StatusOr<absl::string_view> ElfFile::StringViewAt(size_t strtab_index, size_t offset) const {
  const char* text = elf_strptr(elf_, strtab_index, offset);
  if (text == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: string table section %d: bad string offset 0x%x: %s", path_,
                        strtab_index, offset, LibelfError()));
  }
  return absl::string_view(text);
}

std::optional<::perftk::base::BuildId> ElfFile::BuildId() const {
  for (const Section& section : sections_) {
    if (section.type != SHT_NOTE) continue;
    absl::StatusOr<Elf_Data*> data = NativeData(elf_, path_, section);
    if (!data.ok()) continue;
    size_t offset = 0;
    GElf_Nhdr note;
    size_t name_offset = 0;
    size_t desc_offset = 0;
    while ((offset = gelf_getnote(*data, offset, &note, &name_offset, &desc_offset)) > 0) {
      const char* base = static_cast<const char*>((*data)->d_buf);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(base + name_offset, "GNU", 4) == 0 && note.n_descsz > 0) {
        return ::perftk::base::BuildId::FromBytes(
            absl::string_view(base + desc_offset, note.n_descsz));
      }
    }
  }
  return std::nullopt;
}

std::string AbsolutePath(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "arm";
    case EM_PPC64:
      return "ppc64";
    case EM_S390:
      return "s390";
    case EM_RISCV:
      return "riscv";
    default:
      return absl::StrCat("machine ", machine);
  }
}

}  // namespace perftk::elf
