// ProbeFinder: the sites of several queries in one binary, function names
// and usdt:PROVIDER:NAME probes alike, each resolver opened on first use.
#ifndef PERFTK_UPROBE_PROBE_FINDER_H_
#define PERFTK_UPROBE_PROBE_FINDER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "uprobe/uprobe_resolver.h"
#include "uprobe/usdt_resolver.h"

namespace perftk::uprobe {

class ProbeFinder {
 public:
  // `string_arguments`: the USDT arguments (from 1) read as C strings.
  ProbeFinder(std::string binary, ResolveOptions options, std::vector<int> string_arguments)
      : binary_(std::move(binary)),
        options_(std::move(options)),
        string_arguments_(std::move(string_arguments)) {}

  // Every site of every query, in query order; when any query fails, one
  // error with every failure's message, the later ones each on a line of
  // their own led by "perftk: ", as the command prints errors.
  absl::StatusOr<std::vector<ProbeSite>> FindAll(const std::vector<std::string>& queries);
  // The sites of one query: "usdt:PROVIDER:NAME", "usdt:NAME" or a function.
  absl::StatusOr<std::vector<ProbeSite>> Find(const std::string& query);

  // The function resolver (opened now if it was not).
  absl::StatusOr<UprobeResolver*> Functions();

 private:
  const std::string binary_;
  const ResolveOptions options_;
  const std::vector<int> string_arguments_;
  std::unique_ptr<UprobeResolver> functions_;
  std::unique_ptr<UsdtResolver> usdt_;
};

}  // namespace perftk::uprobe

#endif  // PERFTK_UPROBE_PROBE_FINDER_H_
