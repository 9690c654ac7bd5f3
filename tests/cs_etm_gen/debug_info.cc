#include "debug_info.h"

#include "byte_out.h"

namespace perftk::etm_gen {
namespace {

// DWARF 4 constants (DWARF 4 standard, chapter 7).
constexpr uint8_t kTagCompileUnit = 0x11, kTagSubprogram = 0x2e;
constexpr uint8_t kAtName = 0x03, kAtStmtList = 0x10, kAtLowPc = 0x11, kAtHighPc = 0x12,
                  kAtLanguage = 0x13, kAtProducer = 0x25, kAtDeclFile = 0x3a, kAtDeclLine = 0x3b,
                  kAtExternal = 0x3f;
constexpr uint8_t kFormAddr = 0x01, kFormData2 = 0x05, kFormData4 = 0x06, kFormData8 = 0x07,
                  kFormString = 0x08, kFormData1 = 0x0b, kFormSecOffset = 0x17,
                  kFormFlagPresent = 0x19;
constexpr uint16_t kLangMipsAssembler = 0x8001;  // DW_LANG_Mips_Assembler
constexpr uint8_t kAbbrevUnit = 1, kAbbrevFunction = 2;
// Line program: standard opcodes, extended opcodes and the special opcode
// parameters (DWARF 4, 6.2.5).
constexpr uint8_t kLnsCopy = 1, kLnsAdvancePc = 2;
constexpr uint8_t kLneEndSequence = 1, kLneSetAddress = 2;
constexpr int kLineBase = -5;
constexpr uint8_t kLineRange = 14, kOpcodeBase = 13;
constexpr uint8_t kInstructionBytes = 4;

std::vector<uint8_t> Abbreviations() {
  ByteOut out;
  auto attribute = [&out](uint8_t at, uint8_t form) {
    out.Uleb(at);
    out.Uleb(form);
  };
  out.Uleb(kAbbrevUnit);
  out.Uleb(kTagCompileUnit);
  out.U8(1);  // has children
  attribute(kAtProducer, kFormString);
  attribute(kAtLanguage, kFormData2);
  attribute(kAtName, kFormString);
  attribute(kAtStmtList, kFormSecOffset);
  attribute(kAtLowPc, kFormAddr);
  attribute(kAtHighPc, kFormData8);
  attribute(0, 0);
  out.Uleb(kAbbrevFunction);
  out.Uleb(kTagSubprogram);
  out.U8(0);  // no children
  attribute(kAtExternal, kFormFlagPresent);
  attribute(kAtName, kFormString);
  attribute(kAtDeclFile, kFormData1);
  attribute(kAtDeclLine, kFormData4);
  attribute(kAtLowPc, kFormAddr);
  attribute(kAtHighPc, kFormData8);
  attribute(0, 0);
  out.U8(0);
  return out.bytes;
}

std::vector<uint8_t> CompileUnit(const std::string& source_name, uint64_t text_address,
                                 size_t words, const std::vector<Assembler::Symbol>& functions) {
  ByteOut out;
  out.U32(0);  // unit_length, patched below
  out.U16(4);  // version
  out.U32(0);  // .debug_abbrev offset
  out.U8(8);   // address size
  out.Uleb(kAbbrevUnit);
  out.Str("perftk_etm_gen");
  out.U16(kLangMipsAssembler);
  out.Str(source_name);
  out.U32(0);  // .debug_line offset
  out.U64(text_address);
  out.U64(words * kInstructionBytes);
  for (const Assembler::Symbol& function : functions) {
    out.Uleb(kAbbrevFunction);
    out.Str(function.name);
    out.U8(1);  // file 1 of the line table
    out.U32(LineOf(text_address, function.address));
    out.U64(function.address);
    out.U64(function.size);
  }
  out.U8(0);  // end of the unit's children
  out.Patch32(0, static_cast<uint32_t>(out.bytes.size() - 4));
  return out.bytes;
}

std::vector<uint8_t> LineTable(const std::string& source_name, uint64_t text_address,
                               size_t words) {
  ByteOut out;
  out.U32(0);  // unit_length, patched below
  out.U16(4);  // version
  out.U32(0);  // header_length, patched below
  const size_t header_start = out.bytes.size();
  out.U8(kInstructionBytes);  // minimum_instruction_length
  out.U8(1);                  // maximum_operations_per_instruction
  out.U8(1);                  // default_is_stmt
  out.U8(static_cast<uint8_t>(kLineBase));
  out.U8(kLineRange);
  out.U8(kOpcodeBase);
  for (uint8_t operands : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) out.U8(operands);
  out.U8(0);  // no include directories
  out.Str(source_name);
  out.Uleb(0);  // directory: none (the unit has no DW_AT_comp_dir)
  out.Uleb(0);  // mtime
  out.Uleb(0);  // length
  out.U8(0);    // end of file names
  out.Patch32(6, static_cast<uint32_t>(out.bytes.size() - header_start));

  out.U8(0);  // extended opcode: set_address
  out.Uleb(9);
  out.U8(kLneSetAddress);
  out.U64(text_address);
  // Row 1: line 1 at the first word; then one row a word, each a line on.
  if (words > 0) out.U8(kLnsCopy);
  const uint8_t next_word_next_line =
      static_cast<uint8_t>((1 - kLineBase) + kLineRange * 1 + kOpcodeBase);
  for (size_t i = 1; i < words; ++i) out.U8(next_word_next_line);
  out.U8(kLnsAdvancePc);
  out.Uleb(1);
  out.U8(0);  // extended opcode: end_sequence
  out.Uleb(1);
  out.U8(kLneEndSequence);
  out.Patch32(0, static_cast<uint32_t>(out.bytes.size() - 4));
  return out.bytes;
}

}  // namespace

DebugSections BuildDebugSections(const std::string& source_name, uint64_t text_address,
                                 size_t words, const std::vector<Assembler::Symbol>& functions) {
  DebugSections sections;
  sections.abbrev = Abbreviations();
  sections.info = CompileUnit(source_name, text_address, words, functions);
  sections.line = LineTable(source_name, text_address, words);
  return sections;
}

}  // namespace perftk::etm_gen
