#include "self_maps.h"

#include <fstream>
#include <sstream>
#include <string>

#include "machine/map.h"

namespace perftk::unwind {

std::unique_ptr<SelfMaps> ReadSelfMaps() {
  auto self = std::make_unique<SelfMaps>();
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    machine::Map map;
    const size_t dash = range.find('-');
    map.start = std::stoull(range.substr(0, dash), nullptr, 16);
    map.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    map.pgoff = std::stoull(offset, nullptr, 16);
    if (path.empty()) path = "//anon";
    map.kind = machine::UserMapKind(path, 0);
    map.dso = self->dsos.Intern(path, BuildId(), machine::FileId{}, false);
    if (map.IsIdentity()) map.pgoff = map.start;
    self->maps->Mutate([&](machine::Maps::Editor& e) { return e.Insert(map); }).IgnoreError();
  }
  return self;
}

uint64_t MappingEnd(const machine::Maps& maps, uint64_t addr) {
  std::optional<machine::Map> map = maps.Find(addr);
  return map ? map->end : 0;
}

}  // namespace perftk::unwind
