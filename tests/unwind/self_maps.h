// The test process's own address space, read from /proc/self/maps (as
// lines, or as a machine::Maps: file mappings with their Dsos, everything
// else as anonymous memory), and its registers as perf dumps them.
#ifndef PERFTK_TESTS_UNWIND_SELF_MAPS_H_
#define PERFTK_TESTS_UNWIND_SELF_MAPS_H_

#include <ucontext.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "machine/dso.h"
#include "machine/maps.h"
#include "unwind/registers.h"

namespace perftk::unwind {

// One line of /proc/self/maps.
struct SelfMapping {
  uint64_t start = 0, end = 0, offset = 0;
  uint32_t major = 0, minor = 0;  // the file's device
  uint64_t inode = 0;
  std::string perms;  // "r-xp"
  std::string path;   // empty for anonymous memory
};
std::vector<SelfMapping> ReadSelfMappings();

struct SelfMaps {
  machine::DsoTable dsos;  // owns the Dsos the maps point at
  std::shared_ptr<machine::Maps> maps = std::make_shared<machine::Maps>();
};

std::unique_ptr<SelfMaps> ReadSelfMaps();

// The end of the mapping holding addr (the top of a stack), 0 if none.
uint64_t MappingEnd(const machine::Maps& maps, uint64_t addr);

#if defined(__x86_64__)
// perf's x86_64 user registers as --call-graph dwarf asks for them (AX BX
// CX DX SI DI BP SP IP FLAGS CS SS R8..R15), the ip's place in the dump,
// and `context`'s registers dumped in that order (ABI 64-bit).
inline constexpr uint64_t kPerfRegsMask = 0xff0fff;
inline constexpr size_t kPerfIpRegister = 8;
perf::RegisterDump PerfDumpOf(const ucontext_t& context);
#endif

}  // namespace perftk::unwind

#endif  // PERFTK_TESTS_UNWIND_SELF_MAPS_H_
