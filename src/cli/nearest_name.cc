#include "cli/nearest_name.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"

namespace perftk::cli {

size_t NameDistance(absl::string_view a, absl::string_view b) {
  // Optimal string alignment distance over three rows of the table.
  const size_t n = b.size();
  std::vector<size_t> before(n + 1), previous(n + 1), current(n + 1);
  for (size_t j = 0; j <= n; ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= n; ++j) {
      const bool same = absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      current[j] =
          std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 2]) &&
          absl::ascii_tolower(a[i - 2]) == absl::ascii_tolower(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

std::string NearestName(absl::string_view typed, const std::vector<std::string>& candidates) {
  const size_t allowed = typed.size() <= 4 ? 1 : typed.size() <= 8 ? 2 : 3;
  const std::string* best = nullptr;
  size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    const size_t distance = NameDistance(typed, candidate);
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  if (best != nullptr) return *best;
  if (typed.size() < 3) return std::string();
  for (const std::string& candidate : candidates) {
    if (candidate.size() < typed.size() ||
        NameDistance(typed, candidate.substr(0, typed.size())) != 0) {
      continue;
    }
    if (best != nullptr) return std::string();  // two begin so: neither is surely meant
    best = &candidate;
  }
  return best == nullptr ? std::string() : *best;
}

}  // namespace perftk::cli
