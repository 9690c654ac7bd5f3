// Where an instruction of an ELF binary is in its source, from the binary's
// DWARF through libdw: the profile::SourceMap that --format=llvm-sample
// writes LLVM sample profiles with (profile/llvm_sample.h).
//
// A function is a DW_TAG_subprogram with code (its name: the linkage name,
// else DW_AT_name, through DW_AT_abstract_origin and DW_AT_specification;
// its first line: DW_AT_decl_line). An instruction's frames: the function
// at the outermost inlined call holding it (DW_AT_call_line and its
// discriminator), each inlined callee (named and lined as a function is,
// through its abstract origin) at the next inlined call, the innermost at
// the instruction's row of the line table. Discriminators are LLVM's base
// discriminators (the low, prefix-encoded part of what clang writes); the
// innermost frame also has the row's duplication factor (the next part:
// how many copies of the code unrolling or vectorization made, each
// running that much less often).
#ifndef PERFTK_CS_ETM_DWARF_SOURCE_MAP_H_
#define PERFTK_CS_ETM_DWARF_SOURCE_MAP_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "profile/llvm_sample.h"

namespace perftk::cs_etm {

class DwarfSourceMap : public profile::SourceMap {
 public:
  // An error when `path` does not open, is no ELF, or has no DWARF
  // functions with code.
  static absl::StatusOr<std::unique_ptr<DwarfSourceMap>> Open(const std::string& path);
  ~DwarfSourceMap() override;
  DwarfSourceMap(const DwarfSourceMap&) = delete;
  DwarfSourceMap& operator=(const DwarfSourceMap&) = delete;

  std::optional<profile::SourceLocation> Locate(uint64_t address) const override;
  std::optional<std::string> FunctionAt(uint64_t address) const override;
  std::vector<std::pair<uint64_t, uint64_t>> FunctionCode(uint64_t address) const override;
  // The first PT_LOAD's virtual address: what AutoFDO addresses are relative to.
  uint64_t first_load() const { return first_load_; }
  // One line per address range the DWARF gives that no executable segment
  // holds (a range must lie inside the file bytes of one PF_X PT_LOAD):
  // such ranges are dropped, naming the file and the DIE.
  const std::vector<std::string>& warnings() const { return warnings_; }
  size_t functions() const { return functions_.size(); }

  // LLVM's base discriminator of the discriminator clang wrote.
  static uint32_t BaseDiscriminator(uint32_t discriminator);
  // Its duplication factor: 1 when it has none.
  static uint32_t DuplicationFactor(uint32_t discriminator);

 private:
  struct Function {
    std::string name;
    int decl_line = 0;
    uint64_t entry = 0;
    uint64_t unit = 0;                                // the offset of its unit's DIE
    std::vector<std::pair<uint64_t, uint64_t>> code;  // its address ranges, [first, end)
  };
  struct Span {
    uint64_t end = 0;     // exclusive
    size_t function = 0;  // index into functions_: the out-of-line function
    int call_line = 0;    // inlined calls only, as the rest
    uint32_t discriminator = 0;
    std::string callee;
    int callee_line = 0;  // the callee's first line
  };
  DwarfSourceMap() = default;
  absl::Status Load();
  // Whether [start, end) lies inside one executable segment's file bytes;
  // warns about the DIE at `die_offset` when not.
  bool InCode(uint64_t start, uint64_t end, uint64_t die_offset);

  int fd_ = -1;
  void* elf_ = nullptr;    // Elf*
  void* dwarf_ = nullptr;  // Dwarf*
  uint64_t first_load_ = 0;
  std::string path_;
  std::vector<std::pair<uint64_t, uint64_t>> code_segments_;  // PF_X PT_LOADs' [vaddr, +filesz)
  std::vector<std::string> warnings_;
  std::vector<Function> functions_;
  std::map<uint64_t, Span> code_;                  // function ranges by start
  std::vector<std::map<uint64_t, Span>> inlined_;  // by depth, then start
  std::map<uint64_t, size_t> entries_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DWARF_SOURCE_MAP_H_
