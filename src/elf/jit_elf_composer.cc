#include "elf/jit_elf_composer.h"

#include <elf.h>

#include <algorithm>
#include <utility>

namespace perftk::elf {
namespace {

constexpr size_t kBuildIdSize = 20;

}  // namespace

JitElfComposer::JitElfComposer(const JitElfTarget& target)
    : target_(target), region_end_(target.text_offset()) {
  strtab_.push_back(std::byte{0});
}

uint64_t JitElfComposer::AddCode(const JitFunction& function, uint64_t alignment,
                 std::vector<std::byte>& region) {
  uint64_t address = AlignUp(region_end_, alignment);
  AppendRegion(region, Bytes(), address - region_end_);
  AppendRegion(region, function.code, 0);
  if (symbols_.empty()) text_start_ = address;
  text_end_ = region_end_;
  symbols_.push_back(Symbol{static_cast<uint32_t>(strtab_.size()), address,
                            function.code.size()});
  AppendBytes(strtab_, AsBytes(function.name.data(), function.name.size()));
  strtab_.push_back(std::byte{0});
  AddLines(function, address);
  return address;
}

void JitElfComposer::AddUnwinding(Bytes eh_frame, Bytes eh_frame_hdr,
                                  std::vector<std::byte>& region) {
  uint64_t start = AlignUp(region_end_, 8);
  AppendRegion(region, Bytes(), start - region_end_);
  eh_frame_ = SectionHeader{".eh_frame", SHT_PROGBITS, SHF_ALLOC, start, start,
                            eh_frame.size(), 0, 0, 8, 0};
  AppendRegion(region, eh_frame, 0);
  eh_frame_hdr_ = SectionHeader{".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, region_end_,
                                region_end_, eh_frame_hdr.size(), 0, 0, 4, 0};
  AppendRegion(region, eh_frame_hdr, 0);
  has_unwinding_ = true;
}

void JitElfComposer::Compose(std::vector<std::byte>& head, std::vector<std::byte>& tail) {
  std::vector<SectionHeader> sections;
  sections.push_back(SectionHeader{});
  sections.push_back(SectionHeader{".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
                                   text_start_, text_start_, text_end_ - text_start_, 0, 0,
                                   kFunctionAlign, 0});
  if (has_unwinding_) {
    sections.push_back(eh_frame_);
    sections.push_back(eh_frame_hdr_);
  }

  std::vector<std::byte> symtab = SymbolTable();
  std::vector<std::byte> line, info, abbrev;
  bool debug = !lines_.empty();
  if (debug) {
    DwarfUnit unit = DebugUnit();
    line = DebugLineSection(target_, unit);
    info = DebugInfoSection(target_, unit);
    abbrev = DebugAbbrevSection(target_);
  }
  hash_.Update(symtab);
  hash_.Update(strtab_);
  hash_.Update(line);
  hash_.Update(info);
  hash_.Update(abbrev);
  build_id_ = hash_.Finish();
  const Sha1::Digest& build_id = build_id_;

  Emitter t(target_, tail);
  tail.clear();
  uint64_t base = region_end_;
  auto place = [&](SectionHeader header, Bytes bytes) {
    AlignTail(t, base, header.align);
    header.offset = base + t.size();
    header.size = bytes.size();
    t.Bytes_(bytes);
    sections.push_back(std::move(header));
  };
  std::vector<std::byte> note;
  {
    Emitter n(target_, note);
    n.U32(4);
    n.U32(kBuildIdSize);
    n.U32(NT_GNU_BUILD_ID);
    n.Bytes_(AsBytes("GNU", 4));
    n.Bytes_(AsBytes(build_id.data(), build_id.size()));
  }
  place(SectionHeader{".note.gnu.build-id", SHT_NOTE, 0, 0, 0, 0, 0, 0, 4, 0}, note);
  AlignTail(t, base, 8);
  size_t symtab_index = sections.size();
  uint64_t sym_size = target_.is_64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
  place(SectionHeader{".symtab", SHT_SYMTAB, 0, 0, 0, 0,
                      static_cast<uint32_t>(symtab_index + 1),
                      static_cast<uint32_t>(symbols_.size() + 1), 8, sym_size},
        symtab);
  place(SectionHeader{".strtab", SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0}, strtab_);
  if (debug) {
    place(SectionHeader{".debug_line", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, line);
    place(SectionHeader{".debug_info", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, info);
    place(SectionHeader{".debug_abbrev", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, abbrev);
  }
  std::vector<std::byte> shstrtab{std::byte{0}};
  std::vector<uint32_t> name_offsets;
  sections.push_back(SectionHeader{".shstrtab", SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0});
  for (const SectionHeader& s : sections) {
    if (s.name.empty()) {
      name_offsets.push_back(0);
      continue;
    }
    name_offsets.push_back(static_cast<uint32_t>(shstrtab.size()));
    AppendBytes(shstrtab, AsBytes(s.name.data(), s.name.size()));
    shstrtab.push_back(std::byte{0});
  }
  SectionHeader shstr = sections.back();
  sections.pop_back();
  place(shstr, shstrtab);
  size_t shstrndx = sections.size() - 1;

  AlignTail(t, base, 8);
  uint64_t shoff = base + t.size();
  for (size_t i = 0; i < sections.size(); ++i) SectionHeaderBytes(t, sections[i], name_offsets[i]);

  head.clear();
  Emitter h(target_, head);
  FileHeader(h, shoff, sections.size(), shstrndx);
  ProgramHeader(h);
  h.PadTo(target_.text_offset());
}


void JitElfComposer::AppendRegion(std::vector<std::byte>& region, Bytes bytes, uint64_t zeros) {
  size_t at = region.size();
  region.resize(at + zeros);
  AppendBytes(region, bytes);
  hash_.Update(Bytes(region).subspan(at));
  region_end_ += zeros + bytes.size();
}

void JitElfComposer::AlignTail(Emitter& t, uint64_t base, uint64_t alignment) {
  while ((base + t.size()) % alignment != 0) t.U8(0);
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
  auto symbol = [&](uint32_t name, uint64_t value, uint64_t size, uint8_t info, uint16_t shndx) {
    if (target_.is_64) {
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
  };
  symbol(0, 0, 0, 0, SHN_UNDEF);
  for (const Symbol& s : symbols_) {
    symbol(s.name, s.value, s.size, ELF64_ST_INFO(STB_LOCAL, STT_FUNC), 1);
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

void JitElfComposer::FileHeader(Emitter& h, uint64_t shoff, size_t shnum, size_t shstrndx) const {
  h.U8(ELFMAG0);
  h.U8(ELFMAG1);
  h.U8(ELFMAG2);
  h.U8(ELFMAG3);
  h.U8(target_.is_64 ? ELFCLASS64 : ELFCLASS32);
  h.U8(target_.big_endian ? ELFDATA2MSB : ELFDATA2LSB);
  h.U8(EV_CURRENT);
  for (int i = 7; i < EI_NIDENT; ++i) h.U8(0);
  h.U16(ET_DYN);
  h.U16(target_.machine);
  h.U32(EV_CURRENT);
  h.Addr(target_.text_offset());  // e_entry
  h.Addr(target_.is_64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));  // e_phoff
  h.Addr(shoff);
  h.U32(0);  // e_flags
  h.U16(target_.is_64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));
  h.U16(target_.is_64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
  h.U16(1);
  h.U16(target_.is_64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
  h.U16(shnum);
  h.U16(shstrndx);
}

void JitElfComposer::ProgramHeader(Emitter& h) const {
  uint64_t start = target_.text_offset();
  uint64_t size = region_end_ - start;
  if (target_.is_64) {
    h.U32(PT_LOAD);
    h.U32(PF_R | PF_X);
    h.U64(start);
    h.U64(start);
    h.U64(start);
    h.U64(size);
    h.U64(size);
    h.U64(kFunctionAlign);
  } else {
    h.U32(PT_LOAD);
    h.U32(start);
    h.U32(start);
    h.U32(start);
    h.U32(size);
    h.U32(size);
    h.U32(PF_R | PF_X);
    h.U32(kFunctionAlign);
  }
}

void JitElfComposer::SectionHeaderBytes(Emitter& t, const SectionHeader& s, uint32_t name) const {
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

}  // namespace perftk::elf
