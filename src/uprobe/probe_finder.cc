#include "uprobe/probe_finder.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace perftk::uprobe {

absl::StatusOr<std::vector<ProbeSite>> ProbeFinder::FindAll(
    const std::vector<std::string>& queries) {
  std::vector<ProbeSite> sites;
  std::vector<std::string> errors;
  for (const std::string& query : queries) {
    absl::StatusOr<std::vector<ProbeSite>> found = Find(query);
    if (!found.ok()) {
      errors.emplace_back(found.status().message());
      continue;
    }
    for (ProbeSite& site : *found) sites.push_back(std::move(site));
  }
  if (!errors.empty()) return absl::NotFoundError(absl::StrJoin(errors, "\nperftk: "));
  return sites;
}

absl::StatusOr<std::vector<ProbeSite>> ProbeFinder::Find(const std::string& query) {
  absl::string_view probe = query;
  if (absl::ConsumePrefix(&probe, "usdt:")) {
    if (usdt_ == nullptr) {
      absl::StatusOr<std::unique_ptr<UsdtResolver>> opened = UsdtResolver::Open(binary_);
      if (!opened.ok()) return opened.status();
      usdt_ = std::move(*opened);
    }
    return usdt_->Resolve(probe, options_.all, string_arguments_);
  }
  absl::StatusOr<UprobeResolver*> functions = Functions();
  if (!functions.ok()) return functions.status();
  return (*functions)->Resolve(query);
}

absl::StatusOr<UprobeResolver*> ProbeFinder::Functions() {
  if (functions_ == nullptr) {
    absl::StatusOr<std::unique_ptr<UprobeResolver>> opened =
        UprobeResolver::Open(binary_, options_);
    if (!opened.ok()) return opened.status();
    functions_ = std::move(*opened);
  }
  return functions_.get();
}

}  // namespace perftk::uprobe
