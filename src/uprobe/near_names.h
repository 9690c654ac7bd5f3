// Names close to a misspelt one, for "did you mean" lists: a candidate that
// contains the name (or is contained in it) or is within a small edit
// distance of it (a third of the name's length, at least 2).
#ifndef PERFTK_UPROBE_NEAR_NAMES_H_
#define PERFTK_UPROBE_NEAR_NAMES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace perftk::uprobe {

// Collects candidates one at a time and keeps the close ones.
class NearNames {
 public:
  explicit NearNames(absl::string_view name);
  void Consider(absl::string_view candidate);
  // Up to `limit` of the considered names, closest first (ties by name).
  std::vector<std::string> Best(size_t limit);

 private:
  std::string name_;
  size_t budget_;
  std::vector<std::pair<size_t, std::string>> scored_;
};

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_NEAR_NAMES_H_
