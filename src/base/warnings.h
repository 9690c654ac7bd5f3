// Warnings: what library code finds wrong but not fatal (a binary that does
// not match, a record it cannot use). Library rooms never write to stderr;
// they hand each warning, one line without a prefix, to the WarningSink
// their caller gives them. The command line's sink prints
// "perftk: warning: <line>" (cli/warnings.h); tests keep them in a list.
// A sink is called from one thread at a time.
#ifndef PERFTK_BASE_WARNINGS_H_
#define PERFTK_BASE_WARNINGS_H_

#include <string>
#include <utility>
#include <vector>

namespace perftk::base {

class WarningSink {
 public:
  virtual ~WarningSink() = default;
  virtual void Warn(std::string line) = 0;
};

// Keeps the warnings in the order they came.
class WarningList final : public WarningSink {
 public:
  void Warn(std::string line) override { lines_.push_back(std::move(line)); }
  const std::vector<std::string>& lines() const { return lines_; }
  void Clear() { lines_.clear(); }

 private:
  std::vector<std::string> lines_;
};

}  // namespace perftk::base

#endif  // PERFTK_BASE_WARNINGS_H_
