// How much of one mapping this process has in memory.
#ifndef PERFTK_TESTS_TESTING_RESIDENT_MEMORY_H_
#define PERFTK_TESTS_TESTING_RESIDENT_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace perftk::testing {

// The KB of the mapping that starts at `begin` this process has in memory
// (its Rss in /proc/self/smaps); SIZE_MAX if no mapping starts there.
inline size_t ResidentKbOfMapping(const std::byte* begin) {
  std::ifstream smaps("/proc/self/smaps");
  const std::string start = absl::StrCat(absl::Hex(reinterpret_cast<uintptr_t>(begin)), "-");
  std::string line;
  bool in_mapping = false;
  while (std::getline(smaps, line)) {
    if (line.rfind(start, 0) == 0) {
      in_mapping = true;
    } else if (in_mapping && line.rfind("Rss:", 0) == 0) {
      return std::stoul(line.substr(4));
    }
  }
  return SIZE_MAX;
}

}  // namespace perftk::testing

#endif  // PERFTK_TESTS_TESTING_RESIDENT_MEMORY_H_
