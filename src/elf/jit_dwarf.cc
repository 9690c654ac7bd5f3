#include "elf/jit_dwarf.h"

#include <dwarf.h>

#include <initializer_list>
#include <utility>

#include "elf/jit_emitter.h"

namespace perftk::elf {
namespace {

uint8_t AddressSize(const JitElfTarget& target) { return target.is_64 ? 8 : 4; }

// The line program's header from its version on: the fixed fields, the
// standard opcodes' operand counts, no include directories, the files.
void LineProgramHeader(Emitter& l, std::span<const std::string> files) {
  l.U16(4);
  size_t header_length_at = l.size();
  l.U32(0);                        // header_length, patched
  l.U8(1);                         // minimum_instruction_length
  l.U8(1);                         // maximum_operations_per_instruction
  l.U8(1);                         // default_is_stmt
  l.U8(static_cast<uint8_t>(-5));  // line_base
  l.U8(14);                        // line_range
  l.U8(13);                        // opcode_base
  for (int n : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) l.U8(n);
  l.U8(0);  // no include directories
  for (const std::string& file : files) {
    l.String(file);
    l.Uleb(0);
    l.Uleb(0);
    l.Uleb(0);
  }
  l.U8(0);
  l.Patch32(header_length_at, static_cast<uint32_t>(l.size() - header_length_at - 4));
}

// The line state machine's registers a row may change.
struct LineRegisters {
  uint64_t offset = 0;
  uint32_t file = 1;
  uint32_t line = 1;
  uint32_t column = 0;
};

// Sets the registers that differ from `row` and appends a row to the matrix.
void LineRow(Emitter& l, const DwarfRow& row, LineRegisters& registers) {
  if (row.file != registers.file) {
    l.U8(DW_LNS_set_file);
    l.Uleb(row.file);
    registers.file = row.file;
  }
  if (row.column != registers.column) {
    l.U8(DW_LNS_set_column);
    l.Uleb(row.column);
    registers.column = row.column;
  }
  if (row.offset != registers.offset) {
    l.U8(DW_LNS_advance_pc);
    l.Uleb(row.offset - registers.offset);
    registers.offset = row.offset;
  }
  if (row.line != registers.line) {
    l.U8(DW_LNS_advance_line);
    l.Sleb(static_cast<int64_t>(row.line) - static_cast<int64_t>(registers.line));
    registers.line = row.line;
  }
  l.U8(DW_LNS_copy);
}

// One sequence: its address, its rows, and its end past the code.
void LineSequence(Emitter& l, const DwarfSequence& sequence, uint8_t address_size) {
  l.U8(0);
  l.Uleb(1 + address_size);
  l.U8(DW_LNE_set_address);
  l.Addr(sequence.address);
  LineRegisters registers;
  for (const DwarfRow& row : sequence.rows) LineRow(l, row, registers);
  if (sequence.size > registers.offset) {
    l.U8(DW_LNS_advance_pc);
    l.Uleb(sequence.size - registers.offset);
  }
  l.U8(0);
  l.Uleb(1);
  l.U8(DW_LNE_end_sequence);
}

// An abbreviation declaration: its code, tag, whether it has children and
// its attributes' forms.
void Abbreviation(Emitter& a, uint64_t code, uint64_t tag, uint8_t children,
                  std::initializer_list<std::pair<uint64_t, uint64_t>> attributes) {
  a.Uleb(code);
  a.Uleb(tag);
  a.U8(children);
  for (auto [attribute, form] : attributes) {
    a.Uleb(attribute);
    a.Uleb(form);
  }
  a.U8(0);
  a.U8(0);
}

constexpr uint64_t kCompileUnitCode = 1;
constexpr uint64_t kSubprogramCode = 2;

}  // namespace

std::vector<std::byte> DebugLineSection(const JitElfTarget& target, const DwarfUnit& unit) {
  std::vector<std::byte> line;
  Emitter l(target, line);
  l.U32(0);  // unit_length, patched
  LineProgramHeader(l, unit.files);
  for (const DwarfSequence& sequence : unit.sequences) {
    LineSequence(l, sequence, AddressSize(target));
  }
  l.Patch32(0, static_cast<uint32_t>(l.size() - 4));
  return line;
}

std::vector<std::byte> DebugInfoSection(const JitElfTarget& target, const DwarfUnit& unit) {
  std::vector<std::byte> info;
  Emitter d(target, info);
  d.U32(0);  // unit_length, patched
  d.U16(4);
  d.U32(0);  // abbrev offset
  d.U8(AddressSize(target));
  d.Uleb(kCompileUnitCode);
  d.String("perftk jit");
  d.String(unit.files.front());
  d.U32(0);  // stmt_list
  d.Addr(unit.code_start);
  d.U64(unit.code_size);
  for (const DwarfSubprogram& subprogram : unit.subprograms) {
    d.Uleb(kSubprogramCode);
    d.String(subprogram.name);
    d.Addr(subprogram.address);
    d.U64(subprogram.size);
  }
  d.U8(0);
  d.Patch32(0, static_cast<uint32_t>(d.size() - 4));
  return info;
}

std::vector<std::byte> DebugAbbrevSection(const JitElfTarget& target) {
  std::vector<std::byte> abbrev;
  Emitter a(target, abbrev);
  Abbreviation(a, kCompileUnitCode, DW_TAG_compile_unit, DW_CHILDREN_yes,
               {{DW_AT_producer, DW_FORM_string},
                {DW_AT_name, DW_FORM_string},
                {DW_AT_stmt_list, DW_FORM_sec_offset},
                {DW_AT_low_pc, DW_FORM_addr},
                {DW_AT_high_pc, DW_FORM_data8}});
  Abbreviation(
      a, kSubprogramCode, DW_TAG_subprogram, DW_CHILDREN_no,
      {{DW_AT_name, DW_FORM_string}, {DW_AT_low_pc, DW_FORM_addr}, {DW_AT_high_pc, DW_FORM_data8}});
  a.U8(0);
  return abbrev;
}

}  // namespace perftk::elf
