// The test process's own address space as a machine::Maps, read from
// /proc/self/maps: file mappings with their Dsos, everything else as
// anonymous memory.
#ifndef PERFTK_TESTS_UNWIND_SELF_MAPS_H_
#define PERFTK_TESTS_UNWIND_SELF_MAPS_H_

#include <cstdint>
#include <memory>

#include "machine/dso.h"
#include "machine/maps.h"

namespace perftk::unwind {

struct SelfMaps {
  machine::DsoTable dsos;  // owns the Dsos the maps point at
  std::shared_ptr<machine::Maps> maps = std::make_shared<machine::Maps>();
};

std::unique_ptr<SelfMaps> ReadSelfMaps();

// The end of the mapping holding addr (the top of a stack), 0 if none.
uint64_t MappingEnd(const machine::Maps& maps, uint64_t addr);

}  // namespace perftk::unwind

#endif  // PERFTK_TESTS_UNWIND_SELF_MAPS_H_
