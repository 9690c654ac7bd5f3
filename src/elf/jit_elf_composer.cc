#include "elf/jit_elf_composer.h"

#include <elf.h>

#include <algorithm>
#include <utility>

#include "elf/jit_emitter.h"

namespace perftk::elf {
namespace {

constexpr size_t kBuildIdSize = 20;

struct SectionHeader {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t align = 1;
  uint64_t entsize = 0;
};

// Where the section header table is, and how many headers it has; the last
// is .shstrtab's.
struct SectionTable {
  uint64_t offset = 0;
  size_t count = 0;
};

void SectionHeaderBytes(Emitter& t, const SectionHeader& s, uint32_t name) {
  t.U32(name);
  t.U32(s.type);
  t.Addr(s.flags);
  t.Addr(s.addr);
  t.Addr(s.offset);
  t.Addr(s.size);
  t.U32(s.link);
  t.U32(s.info);
  t.Addr(s.align);
  t.Addr(s.entsize);
}

// .shstrtab's bytes: a NUL, then each named section's name; `offsets`
// receives each section's name offset in it (0 for the null section).
std::vector<std::byte> SectionNames(const std::vector<SectionHeader>& sections,
                                    std::vector<uint32_t>& offsets) {
  std::vector<std::byte> names{std::byte{0}};
  for (const SectionHeader& s : sections) {
    if (s.name.empty()) {
      offsets.push_back(0);
      continue;
    }
    offsets.push_back(static_cast<uint32_t>(names.size()));
    base::AppendBytes(names, base::AsBytes(s.name.data(), s.name.size()));
    names.push_back(std::byte{0});
  }
  return names;
}

// The file after the region: sections placed one after another, each at its
// alignment, then .shstrtab and the section header table. Offsets count
// from the file's start.
class TailLayout {
 public:
  TailLayout(const JitElfTarget& target, uint64_t start, std::vector<SectionHeader> sections,
             std::vector<std::byte>& out)
      : start_(start), sections_(std::move(sections)), out_(target, out) {}

  // The index the next section placed will have.
  size_t next_index() const { return sections_.size(); }

  // Appends `bytes` at the header's alignment, and the header with their
  // offset and size.
  void Place(SectionHeader header, base::Bytes bytes) {
    AlignTo(header.align);
    header.offset = offset();
    header.size = bytes.size();
    out_.Bytes_(bytes);
    sections_.push_back(std::move(header));
  }

  // Places .shstrtab, then the headers of every section at the next
  // 8-byte boundary.
  SectionTable Finish() {
    std::vector<uint32_t> name_offsets;
    SectionHeader names{".shstrtab", SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0};
    sections_.push_back(names);
    std::vector<std::byte> shstrtab = SectionNames(sections_, name_offsets);
    sections_.pop_back();
    Place(std::move(names), shstrtab);
    AlignTo(8);
    SectionTable table{offset(), sections_.size()};
    for (size_t i = 0; i < sections_.size(); ++i) {
      SectionHeaderBytes(out_, sections_[i], name_offsets[i]);
    }
    return table;
  }

 private:
  uint64_t offset() const { return start_ + out_.size(); }
  void AlignTo(uint64_t alignment) {
    while (offset() % alignment != 0) out_.U8(0);
  }

  uint64_t start_;
  std::vector<SectionHeader> sections_;
  Emitter out_;
};

// The three DWARF sections, empty when no function has lines.
struct DebugSections {
  std::vector<std::byte> line, info, abbrev;
};

DebugSections DwarfSections(const JitElfTarget& target, const DwarfUnit& unit) {
  return DebugSections{DebugLineSection(target, unit), DebugInfoSection(target, unit),
                       DebugAbbrevSection(target)};
}

std::vector<std::byte> BuildIdNote(const JitElfTarget& target, const Sha1::Digest& build_id) {
  std::vector<std::byte> note;
  Emitter n(target, note);
  n.U32(4);
  n.U32(kBuildIdSize);
  n.U32(NT_GNU_BUILD_ID);
  n.Bytes_(base::AsBytes("GNU", 4));
  n.Bytes_(base::AsBytes(build_id.data(), build_id.size()));
  return note;
}

void SymbolEntry(Emitter& e, const JitElfTarget& target, uint32_t name, uint64_t value,
                 uint64_t size, uint8_t info, uint16_t shndx) {
  if (target.is_64) {
    e.U32(name);
    e.U8(info);
    e.U8(STV_DEFAULT);
    e.U16(shndx);
    e.U64(value);
    e.U64(size);
  } else {
    e.U32(name);
    e.U32(value);
    e.U32(size);
    e.U8(info);
    e.U8(STV_DEFAULT);
    e.U16(shndx);
  }
}

void FileHeader(Emitter& h, const JitElfTarget& target, const SectionTable& table) {
  h.U8(ELFMAG0);
  h.U8(ELFMAG1);
  h.U8(ELFMAG2);
  h.U8(ELFMAG3);
  h.U8(target.is_64 ? ELFCLASS64 : ELFCLASS32);
  h.U8(target.big_endian ? ELFDATA2MSB : ELFDATA2LSB);
  h.U8(EV_CURRENT);
  for (int i = 7; i < EI_NIDENT; ++i) h.U8(0);
  h.U16(ET_DYN);
  h.U16(target.machine);
  h.U32(EV_CURRENT);
  h.Addr(target.text_offset());                                    // e_entry
  h.Addr(target.is_64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));  // e_phoff
  h.Addr(table.offset);
  h.U32(0);  // e_flags
  h.U16(target.is_64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));
  h.U16(target.is_64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
  h.U16(1);
  h.U16(target.is_64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
  h.U16(table.count);
  h.U16(table.count - 1);  // .shstrtab
}

// The one PT_LOAD, over the region from text_offset() to `region_end`.
void ProgramHeader(Emitter& h, const JitElfTarget& target, uint64_t region_end) {
  uint64_t start = target.text_offset();
  uint64_t size = region_end - start;
  if (target.is_64) {
    h.U32(PT_LOAD);
    h.U32(PF_R | PF_X);
    h.U64(start);
    h.U64(start);
    h.U64(start);
    h.U64(size);
    h.U64(size);
    h.U64(JitElfComposer::kFunctionAlign);
  } else {
    h.U32(PT_LOAD);
    h.U32(start);
    h.U32(start);
    h.U32(start);
    h.U32(size);
    h.U32(size);
    h.U32(PF_R | PF_X);
    h.U32(JitElfComposer::kFunctionAlign);
  }
}

SectionHeader LoadedSection(const char* name, uint64_t flags, uint64_t start, uint64_t size,
                            uint64_t align) {
  return SectionHeader{name, SHT_PROGBITS, flags, start, start, size, 0, 0, align, 0};
}

}  // namespace

JitElfComposer::JitElfComposer(const JitElfTarget& target)
    : target_(target), region_end_(target.text_offset()) {
  strtab_.push_back(std::byte{0});
}

uint64_t JitElfComposer::AddCode(const JitFunction& function, uint64_t alignment,
                                 std::vector<std::byte>& region) {
  uint64_t address = base::AlignUp(region_end_, alignment);
  AppendRegion(region, base::Bytes(), address - region_end_);
  AppendRegion(region, function.code, 0);
  if (symbols_.empty()) text_start_ = address;
  text_end_ = region_end_;
  symbols_.push_back(Symbol{static_cast<uint32_t>(strtab_.size()), address, function.code.size()});
  base::AppendBytes(strtab_, base::AsBytes(function.name.data(), function.name.size()));
  strtab_.push_back(std::byte{0});
  AddLines(function, address);
  return address;
}

void JitElfComposer::AddUnwinding(base::Bytes eh_frame, base::Bytes eh_frame_hdr,
                                  std::vector<std::byte>& region) {
  uint64_t start = base::AlignUp(region_end_, 8);
  AppendRegion(region, base::Bytes(), start - region_end_);
  eh_frame_ = Range{start, eh_frame.size()};
  AppendRegion(region, eh_frame, 0);
  eh_frame_hdr_ = Range{region_end_, eh_frame_hdr.size()};
  AppendRegion(region, eh_frame_hdr, 0);
  has_unwinding_ = true;
}

void JitElfComposer::Compose(std::vector<std::byte>& head, std::vector<std::byte>& tail) {
  std::vector<std::byte> symtab = SymbolTable();
  DebugSections debug;
  if (!lines_.empty()) debug = DwarfSections(target_, DebugUnit());
  FinishBuildId({symtab, strtab_, debug.line, debug.info, debug.abbrev});

  std::vector<SectionHeader> region{SectionHeader{},
                                    LoadedSection(".text", SHF_ALLOC | SHF_EXECINSTR, text_start_,
                                                  text_end_ - text_start_, kFunctionAlign)};
  if (has_unwinding_) {
    region.push_back(LoadedSection(".eh_frame", SHF_ALLOC, eh_frame_.start, eh_frame_.size, 8));
    region.push_back(
        LoadedSection(".eh_frame_hdr", SHF_ALLOC, eh_frame_hdr_.start, eh_frame_hdr_.size, 4));
  }
  tail.clear();
  TailLayout layout(target_, region_end_, std::move(region), tail);
  layout.Place(SectionHeader{".note.gnu.build-id", SHT_NOTE, 0, 0, 0, 0, 0, 0, 4, 0},
               BuildIdNote(target_, build_id_));
  uint32_t strtab_index = static_cast<uint32_t>(layout.next_index() + 1);
  uint64_t symbol_size = target_.is_64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
  layout.Place(SectionHeader{".symtab", SHT_SYMTAB, 0, 0, 0, 0, strtab_index,
                             static_cast<uint32_t>(symbols_.size() + 1), 8, symbol_size},
               symtab);
  layout.Place(SectionHeader{".strtab", SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0}, strtab_);
  if (!lines_.empty()) {
    layout.Place(SectionHeader{".debug_line", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, debug.line);
    layout.Place(SectionHeader{".debug_info", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, debug.info);
    layout.Place(SectionHeader{".debug_abbrev", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0},
                 debug.abbrev);
  }
  SectionTable table = layout.Finish();

  head.clear();
  Emitter h(target_, head);
  FileHeader(h, target_, table);
  ProgramHeader(h, target_, region_end_);
  h.PadTo(target_.text_offset());
}

void JitElfComposer::AppendRegion(std::vector<std::byte>& region, base::Bytes bytes,
                                  uint64_t zeros) {
  size_t at = region.size();
  region.resize(at + zeros);
  base::AppendBytes(region, bytes);
  hash_.Update(base::Bytes(region).subspan(at));
  region_end_ += zeros + bytes.size();
}

uint32_t JitElfComposer::FileIndex(absl::string_view file) {
  auto [it, inserted] = file_index_.try_emplace(std::string(file), files_.size() + 1);
  if (inserted) files_.emplace_back(file);
  return it->second;
}

void JitElfComposer::AddLines(const JitFunction& function, uint64_t address) {
  DwarfSequence sequence{address, function.code.size(), {}};
  for (const JitLine& line : function.lines) {
    if (line.offset >= function.code.size()) continue;
    sequence.rows.push_back(DwarfRow{line.offset, FileIndex(line.file), line.line, line.column});
  }
  if (sequence.rows.empty()) return;
  std::stable_sort(sequence.rows.begin(), sequence.rows.end(),
                   [](const DwarfRow& a, const DwarfRow& b) { return a.offset < b.offset; });
  lines_.push_back(std::move(sequence));
  line_functions_.push_back(symbols_.size() - 1);
}

std::vector<std::byte> JitElfComposer::SymbolTable() const {
  std::vector<std::byte> out;
  Emitter e(target_, out);
  SymbolEntry(e, target_, 0, 0, 0, 0, SHN_UNDEF);
  for (const Symbol& s : symbols_) {
    SymbolEntry(e, target_, s.name, s.value, s.size, ELF64_ST_INFO(STB_LOCAL, STT_FUNC), 1);
  }
  return out;
}

DwarfUnit JitElfComposer::DebugUnit() const {
  DwarfUnit unit{files_, text_start_, text_end_ - text_start_, lines_, {}};
  for (size_t index : line_functions_) {
    const Symbol& s = symbols_[index];
    unit.subprograms.push_back(
        DwarfSubprogram{reinterpret_cast<const char*>(strtab_.data() + s.name), s.value, s.size});
  }
  return unit;
}

void JitElfComposer::FinishBuildId(std::initializer_list<base::Bytes> sections) {
  for (base::Bytes section : sections) hash_.Update(section);
  build_id_ = hash_.Finish();
}

}  // namespace perftk::elf
