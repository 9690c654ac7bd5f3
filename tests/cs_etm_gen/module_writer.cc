#include "module_writer.h"

#include <elf.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "byte_out.h"
#include "debug_info.h"

namespace perftk::etm_gen {

std::vector<uint8_t> BuildModule(ModuleImage& image) {
  // BLs to a function symbol: `bl .` plus a CALL26 relocation.
  std::vector<uint32_t> text = image.text;
  ByteOut rela;
  image.calls_relocated = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    Decoded insn = Classify(text[i]);
    if (insn.flow != Flow::kCall) continue;
    const uint64_t target = 4 * i + static_cast<uint64_t>(insn.offset);
    for (size_t s = 0; s < image.symbols.size(); ++s) {
      if (image.symbols[s].address != target) continue;
      text[i] = 0x94000000u;
      rela.U64(4 * i);
      rela.U64(ELF64_R_INFO(s + 1, R_AARCH64_CALL26));
      rela.U64(0);
      ++image.calls_relocated;
      break;
    }
  }
  // Section names.
  ByteOut shstrtab;
  shstrtab.U8(0);
  auto name = [&shstrtab](const char* s) {
    uint32_t at = static_cast<uint32_t>(shstrtab.bytes.size());
    shstrtab.Str(s);
    return at;
  };
  const uint32_t n_plt = name(".plt"), n_text = name(".text"), n_init = name(".init.text"),
                 n_note = name(".note.gnu.build-id"), n_symtab = name(".symtab"),
                 n_strtab = name(".strtab"), n_shstrtab = name(".shstrtab"),
                 n_rela = name(".rela.text");
  const bool debug = !image.source_name.empty();
  const uint32_t n_abbrev = debug ? name(".debug_abbrev") : 0,
                 n_info = debug ? name(".debug_info") : 0, n_line = debug ? name(".debug_line") : 0;
  ByteOut strtab;
  strtab.U8(0);
  ByteOut symtab;
  symtab.PadTo(sizeof(Elf64_Sym));
  for (const Assembler::Symbol& s : image.symbols) {
    symtab.U32(static_cast<uint32_t>(strtab.bytes.size()));
    strtab.Str(s.name);
    symtab.U8(ELF64_ST_INFO(STB_GLOBAL, STT_FUNC));
    symtab.U8(0);
    symtab.U16(2);  // .text
    symtab.U64(s.address);
    symtab.U64(s.size);
  }

  ByteOut out;
  out.PadTo(sizeof(Elf64_Ehdr));
  const uint64_t text_offset = out.bytes.size();  // 0x40: not the memory offset
  for (uint32_t word : text) out.U32(word);
  const uint64_t init_offset = out.bytes.size();
  out.U32(0xd503201f);  // nop
  out.U32(0xd65f03c0);  // ret
  out.Align(4);
  const uint64_t note_offset = out.bytes.size();
  out.U32(4);
  out.U32(static_cast<uint32_t>(image.build_id.size()));
  out.U32(NT_GNU_BUILD_ID);
  out.Str("GNU");
  for (char c : image.build_id) out.U8(static_cast<uint8_t>(c));
  out.Align(4);
  const uint64_t note_size = out.bytes.size() - note_offset;
  out.Align(8);
  const uint64_t symtab_offset = out.bytes.size();
  out.Append(symtab.bytes);
  const uint64_t rela_offset = out.bytes.size();
  out.Append(rela.bytes);
  const uint64_t strtab_offset = out.bytes.size();
  out.Append(strtab.bytes);
  DebugSections dwarf;
  uint64_t abbrev_offset = 0, info_offset = 0, line_offset = 0;
  if (debug) {
    dwarf = BuildDebugSections(image.source_name, 0, image.text.size(), image.symbols);
    abbrev_offset = out.bytes.size();
    out.Append(dwarf.abbrev);
    info_offset = out.bytes.size();
    out.Append(dwarf.info);
    line_offset = out.bytes.size();
    out.Append(dwarf.line);
  }
  const uint64_t shstrtab_offset = out.bytes.size();
  out.Append(shstrtab.bytes);
  out.Align(8);
  const uint64_t shoff = out.bytes.size();

  auto section = [&out](uint32_t sh_name, uint32_t type, uint64_t flags, uint64_t offset,
                        uint64_t size, uint32_t link, uint32_t info, uint64_t align,
                        uint64_t entsize) {
    out.U32(sh_name);
    out.U32(type);
    out.U64(flags);
    out.U64(0);  // sh_addr: a relocatable file places nothing
    out.U64(offset);
    out.U64(size);
    out.U32(link);
    out.U32(info);
    out.U64(align);
    out.U64(entsize);
  };
  out.PadTo(shoff + sizeof(Elf64_Shdr));  // the null section
  section(n_plt, SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, text_offset, 1, 0, 0, 16, 0);
  section(n_text, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_offset, 4 * image.text.size(), 0, 0,
          image.text_alignment, 0);
  section(n_init, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, init_offset, 8, 0, 0, 4, 0);
  section(n_note, SHT_NOTE, SHF_ALLOC, note_offset, note_size, 0, 0, 4, 0);
  section(n_symtab, SHT_SYMTAB, 0, symtab_offset, symtab.bytes.size(), 6, 1, 8, sizeof(Elf64_Sym));
  section(n_strtab, SHT_STRTAB, 0, strtab_offset, strtab.bytes.size(), 0, 0, 1, 0);
  section(n_shstrtab, SHT_STRTAB, 0, shstrtab_offset, shstrtab.bytes.size(), 0, 0, 1, 0);
  section(n_rela, SHT_RELA, SHF_INFO_LINK, rela_offset, rela.bytes.size(), 5, 2, 8,
          sizeof(Elf64_Rela));
  uint16_t shnum = 9;
  if (debug) {
    section(n_abbrev, SHT_PROGBITS, 0, abbrev_offset, dwarf.abbrev.size(), 0, 0, 1, 0);
    section(n_info, SHT_PROGBITS, 0, info_offset, dwarf.info.size(), 0, 0, 1, 0);
    section(n_line, SHT_PROGBITS, 0, line_offset, dwarf.line.size(), 0, 0, 1, 0);
    shnum += 3;
  }

  // The ELF header.
  ByteOut header;
  const uint8_t ident[EI_NIDENT] = {ELFMAG0,    ELFMAG1,     ELFMAG2,   ELFMAG3,
                                    ELFCLASS64, ELFDATA2LSB, EV_CURRENT};
  for (uint8_t b : ident) header.U8(b);
  header.U16(ET_REL);
  header.U16(EM_AARCH64);
  header.U32(EV_CURRENT);
  header.U64(0);  // entry
  header.U64(0);  // phoff
  header.U64(shoff);
  header.U32(0);
  header.U16(sizeof(Elf64_Ehdr));
  header.U16(0);
  header.U16(0);
  header.U16(sizeof(Elf64_Shdr));
  header.U16(shnum);
  header.U16(7);  // .shstrtab
  std::copy(header.bytes.begin(), header.bytes.end(), out.bytes.begin());
  return out.bytes;
}

absl::Status WriteModule(ModuleImage& image, const std::string& path) {
  std::vector<uint8_t> bytes = BuildModule(image);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::Status WriteKcore(const std::vector<CoreLoad>& loads, const std::string& path) {
  ByteOut out;
  const uint8_t ident[EI_NIDENT] = {ELFMAG0,    ELFMAG1,     ELFMAG2,   ELFMAG3,
                                    ELFCLASS64, ELFDATA2LSB, EV_CURRENT};
  for (uint8_t b : ident) out.U8(b);
  out.U16(ET_CORE);
  out.U16(EM_AARCH64);
  out.U32(EV_CURRENT);
  out.U64(0);
  out.U64(sizeof(Elf64_Ehdr));  // phoff
  out.U64(0);                   // shoff
  out.U32(0);
  out.U16(sizeof(Elf64_Ehdr));
  out.U16(sizeof(Elf64_Phdr));
  out.U16(static_cast<uint16_t>(loads.size()));
  out.U16(0);
  out.U16(0);
  out.U16(0);
  uint64_t offset = 0x1000;
  for (const CoreLoad& load : loads) {
    out.U32(PT_LOAD);
    out.U32(PF_R | PF_W | PF_X);
    out.U64(offset);
    out.U64(load.address);
    out.U64(0);  // paddr
    out.U64(load.bytes.size());
    out.U64(load.bytes.size());
    out.U64(0x1000);
    offset += (load.bytes.size() + 0xfff) & ~uint64_t{0xfff};
  }
  for (const CoreLoad& load : loads) {
    out.Align(0x1000);
    out.Append(load.bytes);
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(out.bytes.data()),
             static_cast<std::streamsize>(out.bytes.size()));
  file.close();
  if (!file) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace perftk::etm_gen
