// gtest printers so failures show maps, not bytes.
#ifndef PERFTK_TESTS_MACHINE_PRINT_MAP_H_
#define PERFTK_TESTS_MACHINE_PRINT_MAP_H_

#include <ostream>

#include "absl/strings/str_format.h"
#include "machine/map.h"

namespace perftk::machine {

inline void PrintTo(const Map& map, std::ostream* os) {
  *os << absl::StrFormat("{[%#x, %#x) pgoff %#x %s %s}", map.start, map.end, map.pgoff,
                         MapKindName(map.kind), map.dso == nullptr ? "(no dso)" : map.dso->name);
}

}  // namespace perftk::machine

#endif  // PERFTK_TESTS_MACHINE_PRINT_MAP_H_
