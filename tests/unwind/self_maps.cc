#include "self_maps.h"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "machine/map.h"

namespace perftk::unwind {

std::vector<SelfMapping> ReadSelfMappings() {
  std::vector<SelfMapping> mappings;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, offset, device, inode;
    SelfMapping m;
    fields >> range >> m.perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, m.path);
    const size_t dash = range.find('-');
    m.start = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.offset = std::stoull(offset, nullptr, 16);
    const size_t colon = device.find(':');
    m.major = static_cast<uint32_t>(std::stoul(device.substr(0, colon), nullptr, 16));
    m.minor = static_cast<uint32_t>(std::stoul(device.substr(colon + 1), nullptr, 16));
    m.inode = std::stoull(inode);
    mappings.push_back(std::move(m));
  }
  return mappings;
}

std::unique_ptr<SelfMaps> ReadSelfMaps() {
  auto self = std::make_unique<SelfMaps>();
  for (const SelfMapping& line : ReadSelfMappings()) {
    machine::Map map;
    map.start = line.start;
    map.end = line.end;
    map.pgoff = line.offset;
    const std::string path = line.path.empty() ? "//anon" : line.path;
    map.kind = machine::UserMapKind(path, 0);
    map.dso = self->dsos.Intern(path, base::BuildId(), machine::FileId{}, false);
    if (map.IsIdentity()) map.pgoff = map.start;
    self->maps->Mutate([&](machine::Maps::Editor& e) { return e.Insert(map); }).IgnoreError();
  }
  return self;
}

uint64_t MappingEnd(const machine::Maps& maps, uint64_t addr) {
  std::optional<machine::Map> map = maps.Find(addr);
  return map ? map->end : 0;
}

#if defined(__x86_64__)
perf::RegisterDump PerfDumpOf(const ucontext_t& context) {
  const greg_t* g = context.uc_mcontext.gregs;
  perf::RegisterDump dump;
  dump.abi = 2;  // PERF_SAMPLE_REGS_ABI_64
  for (int reg :
       {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_RIP, REG_EFL}) {
    dump.values.push_back(static_cast<uint64_t>(g[reg]));
  }
  dump.values.push_back(0);  // CS
  dump.values.push_back(0);  // SS
  for (int reg : {REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15}) {
    dump.values.push_back(static_cast<uint64_t>(g[reg]));
  }
  return dump;
}
#endif

}  // namespace perftk::unwind
