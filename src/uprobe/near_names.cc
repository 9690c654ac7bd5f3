#include "uprobe/near_names.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"

namespace perftk::uprobe {
namespace {

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

size_t LengthGap(absl::string_view a, absl::string_view b) {
  return a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
}

}  // namespace

NearNames::NearNames(absl::string_view name)
    : name_(name), budget_(std::max<size_t>(2, name.size() / 3)) {}

void NearNames::Consider(absl::string_view candidate) {
  size_t score;
  const bool long_enough = candidate.size() >= 3 && name_.size() >= 3;
  if (long_enough && (absl::StrContains(candidate, name_) || absl::StrContains(name_, candidate))) {
    score = std::min(LengthGap(candidate, name_), budget_);
  } else {
    if (LengthGap(candidate, name_) > budget_) return;
    score = EditDistance(name_, candidate);
    if (score > budget_) return;
  }
  scored_.emplace_back(score, std::string(candidate));
}

std::vector<std::string> NearNames::Best(size_t limit) {
  std::sort(scored_.begin(), scored_.end());
  scored_.erase(std::unique(scored_.begin(), scored_.end()), scored_.end());
  std::vector<std::string> names;
  for (auto& [score, candidate] : scored_) {
    if (names.size() == limit) break;
    names.push_back(std::move(candidate));
  }
  return names;
}

}  // namespace perftk::uprobe
