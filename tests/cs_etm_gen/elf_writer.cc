#include "elf_writer.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "byte_out.h"
#include "debug_info.h"

namespace perftk::etm_gen {
namespace {

constexpr uint16_t kEtExec = 2;
constexpr uint16_t kEtDyn = 3;
constexpr uint16_t kEmAarch64 = 183;
constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kPfR = 4, kPfX = 1;
constexpr uint32_t kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3;
constexpr uint64_t kShfAlloc = 2, kShfExecinstr = 4;
constexpr uint8_t kGlobalFunc = (1 << 4) | 2;  // STB_GLOBAL, STT_FUNC
constexpr size_t kEhdrSize = 64, kPhdrSize = 56, kShdrSize = 64, kSymSize = 24;

struct Section {
  uint32_t name = 0, type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t align = 1, entsize = 0;
};

}  // namespace

std::vector<uint8_t> BuildElf(const ElfImage& image) {
  ByteOut out;
  out.PadTo(kTextOffset);
  for (uint32_t word : image.code) out.U32(word);
  const uint64_t text_size = image.code.size() * 4;
  const uint64_t load_size = out.bytes.size();
  const uint64_t delta = image.text_vaddr_delta;
  const uint64_t text_vaddr = image.link_base + kTextOffset + delta;
  std::vector<Assembler::Symbol> symbols = image.symbols;
  for (Assembler::Symbol& s : symbols) s.address += delta;

  // .strtab and .symtab
  std::string strtab(1, '\0');
  ByteOut symtab;
  symtab.PadTo(kSymSize);  // the null symbol
  for (const Assembler::Symbol& s : symbols) {
    symtab.U32(static_cast<uint32_t>(strtab.size()));
    strtab += s.name + '\0';
    symtab.U8(kGlobalFunc);
    symtab.U8(0);
    symtab.U16(1);  // .text
    symtab.U64(s.address);
    symtab.U64(s.size);
  }
  std::string shstrtab = std::string("\0.text\0.symtab\0.strtab\0.shstrtab\0", 34);
  out.Align(8);
  const uint64_t symtab_offset = out.bytes.size();
  out.bytes.insert(out.bytes.end(), symtab.bytes.begin(), symtab.bytes.end());
  const uint64_t strtab_offset = out.bytes.size();
  out.bytes.insert(out.bytes.end(), strtab.begin(), strtab.end());

  std::vector<Section> sections(5);
  if (!image.source_name.empty()) {
    DebugSections debug =
        BuildDebugSections(image.source_name, text_vaddr, image.code.size(), symbols);
    for (const auto& [name, bytes] :
         {std::pair{".debug_abbrev", &debug.abbrev}, std::pair{".debug_info", &debug.info},
          std::pair{".debug_line", &debug.line}}) {
      sections.push_back({static_cast<uint32_t>(shstrtab.size()), kShtProgbits, 0, 0,
                          out.bytes.size(), bytes->size(), 0, 0, 1, 0});
      shstrtab += std::string(name) + '\0';
      out.Append(*bytes);
    }
  }
  if (!image.build_id.empty()) {
    out.Align(4);
    const uint64_t note_offset = out.bytes.size();
    out.U32(4);
    out.U32(static_cast<uint32_t>(image.build_id.size()));
    out.U32(3);  // NT_GNU_BUILD_ID
    out.Str("GNU");
    for (char c : image.build_id) out.U8(static_cast<uint8_t>(c));
    out.Align(4);
    sections.push_back({static_cast<uint32_t>(shstrtab.size()), 7 /*SHT_NOTE*/, 0, 0, note_offset,
                        out.bytes.size() - note_offset, 0, 0, 4, 0});
    shstrtab += std::string(".note.gnu.build-id") + '\0';
  }
  const uint64_t shstrtab_offset = out.bytes.size();
  out.bytes.insert(out.bytes.end(), shstrtab.begin(), shstrtab.end());
  out.Align(8);
  const uint64_t shoff = out.bytes.size();

  sections[1] = {
      1, kShtProgbits, kShfAlloc | kShfExecinstr, text_vaddr, kTextOffset, text_size, 0, 0, 4, 0};
  sections[2] = {7, kShtSymtab, 0, 0, symtab_offset, symtab.bytes.size(), 3, 1, 8, kSymSize};
  sections[3] = {15, kShtStrtab, 0, 0, strtab_offset, strtab.size(), 0, 0, 1, 0};
  sections[4] = {23, kShtStrtab, 0, 0, shstrtab_offset, shstrtab.size(), 0, 0, 1, 0};
  for (const Section& s : sections) {
    out.U32(s.name);
    out.U32(s.type);
    out.U64(s.flags);
    out.U64(s.addr);
    out.U64(s.offset);
    out.U64(s.size);
    out.U32(s.link);
    out.U32(s.info);
    out.U64(s.align);
    out.U64(s.entsize);
  }

  // ELF and program headers at the front.
  ByteOut head;
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  for (uint8_t b : ident) head.U8(b);
  head.U16(image.shared_object ? kEtDyn : kEtExec);
  head.U16(kEmAarch64);
  head.U32(1);
  head.U64(text_vaddr);  // entry
  head.U64(kEhdrSize);   // phoff
  head.U64(shoff);
  head.U32(0);  // flags
  head.U16(kEhdrSize);
  head.U16(kPhdrSize);
  head.U16(delta == 0 ? 1 : 2);
  head.U16(kShdrSize);
  head.U16(static_cast<uint16_t>(sections.size()));
  head.U16(4);  // shstrndx
  auto load = [&head](uint32_t flags, uint64_t offset, uint64_t vaddr, uint64_t size) {
    head.U32(kPtLoad);
    head.U32(flags);
    head.U64(offset);
    head.U64(vaddr);
    head.U64(vaddr);
    head.U64(size);
    head.U64(size);
    head.U64(0x1000);
  };
  if (delta == 0) {
    load(kPfR | kPfX, 0, image.link_base, load_size);
  } else {
    load(kPfR, 0, image.link_base, kTextOffset);
    load(kPfR | kPfX, kTextOffset, text_vaddr, text_size);
  }
  std::copy(head.bytes.begin(), head.bytes.end(), out.bytes.begin());
  return out.bytes;
}

absl::Status WriteElf(const ElfImage& image, const std::string& path) {
  std::vector<uint8_t> bytes = BuildElf(image);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace perftk::etm_gen
