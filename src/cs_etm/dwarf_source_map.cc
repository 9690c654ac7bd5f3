#include "cs_etm/dwarf_source_map.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/input_file.h"
#include "base/printable.h"

namespace perftk::cs_etm {
namespace {

// GCC and clang's discriminator of an inlined call (not in elfutils' dwarf.h).
constexpr unsigned kAtGnuDiscriminator = 0x2136;

// The span of `map` holding `address`, if one does.
template <typename Map>
const typename Map::value_type* Holding(const Map& map, uint64_t address) {
  auto it = map.upper_bound(address);
  if (it == map.begin()) return nullptr;
  --it;
  return address < it->second.end ? &*it : nullptr;
}

std::string NameOf(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name}) {
    if (dwarf_attr_integrate(die, name, &attr) != nullptr) {
      if (const char* s = dwarf_formstring(&attr)) return s;
    }
  }
  return {};
}

// Calls `add(start, end)` for each address range of `die` that `keep` takes.
template <typename Keep, typename Add>
void ForEachRange(Dwarf_Die* die, Keep keep, Add add) {
  Dwarf_Addr base = 0, start = 0, end = 0;
  for (ptrdiff_t offset = 0; (offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0;) {
    if (end > start && keep(start, end)) add(start, end);
  }
}

}  // namespace

// LLVM's discriminator (DILocation): up to three components from the low
// bits, the base discriminator, the duplication factor, the copy id. Each
// is a 1 when empty (1 bit), else a 0 and the value: 5 bits when bit 5 of
// what follows the 0 is clear (7 bits in all), else those 5 and 7 more
// above bit 5 (14 bits in all).
namespace {

uint32_t ComponentValue(uint32_t d) {
  if (d & 1) return 0;
  d >>= 1;
  return (d & 0x20) ? (((d >> 1) & 0xfe0) | (d & 0x1f)) : (d & 0x1f);
}

uint32_t NextComponent(uint32_t d) {
  if ((d & 1) == 0) return d >> ((d & 0x40) ? 14 : 7);
  return d >> 1;
}

}  // namespace

uint32_t DwarfSourceMap::BaseDiscriminator(uint32_t d) { return ComponentValue(d); }

uint32_t DwarfSourceMap::DuplicationFactor(uint32_t d) {
  const uint32_t factor = ComponentValue(NextComponent(d));
  return factor == 0 ? 1 : factor;
}

DwarfSourceMap::~DwarfSourceMap() {
  if (dwarf_ != nullptr) dwarf_end(static_cast<Dwarf*>(dwarf_));
  if (elf_ != nullptr) elf_end(static_cast<Elf*>(elf_));
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<std::unique_ptr<DwarfSourceMap>> DwarfSourceMap::Open(const std::string& path) {
  std::unique_ptr<DwarfSourceMap> map(new DwarfSourceMap());
  // Never blocking, never an output of the run (base/input_file.h).
  absl::StatusOr<int> fd = base::OpenInputFile(path, "binary (--format=llvm-sample)");
  if (!fd.ok()) return fd.status();
  map->fd_ = *fd;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(map->fd_, ELF_C_READ_MMAP, nullptr);
  map->elf_ = elf;
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an ELF file"));
  }
  map->path_ = path;
  size_t phnum = 0;
  bool found = false;
  struct stat st {};
  const uint64_t file_size = fstat(map->fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (elf_getphdrnum(elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD) {
        continue;
      }
      if (!found) map->first_load_ = phdr.p_vaddr;
      found = true;
      // Code lies in the file: a segment's bytes past the file's end, or
      // an address space wrapping, hold none.
      if ((phdr.p_flags & PF_X) != 0 && phdr.p_offset <= file_size &&
          phdr.p_filesz <= file_size - phdr.p_offset &&
          phdr.p_vaddr + phdr.p_filesz >= phdr.p_vaddr) {
        map->code_segments_.emplace_back(phdr.p_vaddr, phdr.p_vaddr + phdr.p_filesz);
      }
    }
  }
  if (!found) return absl::InvalidArgumentError(absl::StrCat(path, ": no PT_LOAD segment"));
  map->dwarf_ = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (map->dwarf_ == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no DWARF (build with -g): ", dwarf_errmsg(-1)));
  }
  if (absl::Status s = map->Load(); !s.ok()) return s;
  if (map->functions_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": its DWARF has no function with code"));
  }
  return map;
}

absl::Status DwarfSourceMap::Load() {
  Dwarf* dwarf = static_cast<Dwarf*>(dwarf_);
  // Walks the DIEs under `parent`: the functions with code, and the calls
  // inlined into function `function` (-1: outside any), `depth` calls deep.
  // An inlined callee without a name is not walked: its code, and what was
  // inlined into it, count in its caller.
  uint64_t unit = 0;  // the offset of the unit walked
  auto walk = [&](auto&& self, Dwarf_Die* parent, long function, size_t depth) -> void {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0) return;
    auto in_code = [&](uint64_t start, uint64_t end) {
      return InCode(start, end, dwarf_dieoffset(&child));
    };
    do {
      const int tag = dwarf_tag(&child);
      if (tag == DW_TAG_subprogram) {
        Dwarf_Addr entry = 0;
        if (dwarf_entrypc(&child, &entry) != 0 && dwarf_lowpc(&child, &entry) != 0) continue;
        std::string name = NameOf(&child);
        if (name.empty()) continue;
        int line = 0;
        dwarf_decl_line(&child, &line);
        const size_t index = functions_.size();
        functions_.push_back({std::move(name), line, entry, unit, {}});
        entries_[entry] = index;
        ForEachRange(&child, in_code, [&](uint64_t start, uint64_t end) {
          code_[start] = Span{end, index, 0, 0, {}, 0};
          functions_[index].code.emplace_back(start, end);
        });
        self(self, &child, static_cast<long>(index), 0);
      } else if (tag == DW_TAG_inlined_subroutine && function >= 0) {
        Dwarf_Attribute attr;
        Dwarf_Word call_line = 0, discriminator = 0;
        if (dwarf_attr(&child, DW_AT_call_line, &attr) != nullptr)
          dwarf_formudata(&attr, &call_line);
        if (dwarf_attr(&child, kAtGnuDiscriminator, &attr) != nullptr) {
          dwarf_formudata(&attr, &discriminator);
        }
        std::string callee = NameOf(&child);
        if (callee.empty()) continue;
        int callee_line = 0;
        dwarf_decl_line(&child, &callee_line);
        if (inlined_.size() <= depth) inlined_.resize(depth + 1);
        ForEachRange(&child, in_code, [&](uint64_t start, uint64_t end) {
          inlined_[depth][start] = Span{end,
                                        static_cast<size_t>(function),
                                        static_cast<int>(call_line),
                                        BaseDiscriminator(static_cast<uint32_t>(discriminator)),
                                        callee,
                                        callee_line};
        });
        self(self, &child, function, depth + 1);
      } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
                 tag == DW_TAG_class_type || tag == DW_TAG_structure_type) {
        self(self, &child, function, depth);
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  };
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dwarf, offset + header, &cu) != nullptr) {
      unit = offset + header;
      walk(walk, &cu, -1, 0);
    }
    offset = next;
  }
  return absl::OkStatus();
}

bool DwarfSourceMap::InCode(uint64_t start, uint64_t end, uint64_t die_offset) {
  for (const auto& [first, last] : code_segments_) {
    if (start >= first && end <= last) return true;
  }
  // Code the linker dropped (--gc-sections): GNU ld leaves its DWARF at
  // address 0, lld at a tombstone (-1, -2). No warning for those.
  if (start == 0 || start >= ~uint64_t{1}) return false;
  // A damaged or hostile DWARF would otherwise have a function span the
  // address space, and every address of it be counted.
  constexpr size_t kMostWarnings = 20;
  if (warnings_.size() < kMostWarnings) {
    warnings_.push_back(absl::StrFormat(
        "%s: .debug_info offset 0x%x: range 0x%x-0x%x is in no executable segment: dropped",
        base::Printable(path_), die_offset, start, end));
  } else if (warnings_.size() == kMostWarnings) {
    warnings_.push_back(
        absl::StrCat(base::Printable(path_), ": more ranges in no executable segment dropped"));
  }
  return false;
}

std::optional<profile::SourceLocation> DwarfSourceMap::Locate(uint64_t address) const {
  const auto* code = Holding(code_, address);
  if (code == nullptr) return std::nullopt;
  const Function& function = functions_[code->second.function];
  // The inlined calls holding the address, outermost first.
  std::vector<const Span*> calls;
  for (const std::map<uint64_t, Span>& depth : inlined_) {
    const auto* call = Holding(depth, address);
    if (call == nullptr || call->second.function != code->second.function) break;
    calls.push_back(&call->second);
  }
  // The function's unit: dwarf_addrdie needs .debug_aranges, which clang
  // does not write.
  Dwarf_Die cu;
  if (dwarf_offdie(static_cast<Dwarf*>(dwarf_), function.unit, &cu) == nullptr) return std::nullopt;
  Dwarf_Line* row = dwarf_getsrc_die(&cu, address);
  int line = 0;
  if (row == nullptr || dwarf_lineno(row, &line) != 0) return std::nullopt;
  unsigned int d = 0;
  if (dwarf_linediscriminator(row, &d) != 0) d = 0;
  auto offset = [](int at, int first) { return static_cast<uint32_t>(at - first) & 0xffff; };
  profile::SourceLocation where;
  const std::string* name = &function.name;
  int first_line = function.decl_line;
  for (const Span* call : calls) {
    where.push_back({*name, offset(call->call_line, first_line), call->discriminator});
    name = &call->callee;
    first_line = call->callee_line;
  }
  where.push_back({*name, offset(line, first_line), BaseDiscriminator(d), DuplicationFactor(d)});
  return where;
}

std::vector<std::pair<uint64_t, uint64_t>> DwarfSourceMap::FunctionCode(uint64_t address) const {
  const auto* code = Holding(code_, address);
  if (code == nullptr) return {};
  return functions_[code->second.function].code;
}

std::optional<std::string> DwarfSourceMap::FunctionAt(uint64_t address) const {
  auto it = entries_.find(address);
  if (it == entries_.end()) return std::nullopt;
  return functions_[it->second].name;
}

}  // namespace perftk::cs_etm
