#include "profile/llvm_sample.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace perftk::profile {
namespace {

constexpr uint64_t kInstructionBytes = 4;

using Location = std::pair<uint32_t, uint32_t>;  // line offset, discriminator

struct LocationCounts {
  uint64_t count = 0;
  std::map<std::string, uint64_t> calls;  // by target
};

struct FunctionCounts {
  std::map<Location, LocationCounts> body;
  std::map<Location, std::map<std::string, FunctionCounts>> inlined;  // by call site, callee
  uint64_t head = 0;
};

uint64_t Sum(uint64_t a, uint64_t b) { return a > kMaxCount - b ? kMaxCount : a + b; }
uint64_t Product(uint64_t a, uint32_t b) { return b != 0 && a > kMaxCount / b ? kMaxCount : a * b; }

// The counts of the location `where`'s last frame: in its top function's
// profile, down the inlined calls of the frames before.
LocationCounts& CountsAt(std::map<std::string, FunctionCounts>& functions,
                         const SourceLocation& where) {
  FunctionCounts* profile = &functions[where.front().function];
  for (size_t i = 1; i < where.size(); ++i) {
    const SourceFrame& call = where[i - 1];
    profile = &profile->inlined[{call.line_offset, call.discriminator}][where[i].function];
  }
  return profile->body[{where.back().line_offset, where.back().discriminator}];
}

uint64_t Total(const FunctionCounts& function) {
  uint64_t total = 0;
  for (const auto& [location, at] : function.body) total = Sum(total, at.count);
  for (const auto& [location, callees] : function.inlined) {
    for (const auto& [name, callee] : callees) total = Sum(total, Total(callee));
  }
  return total;
}

void AppendBody(const FunctionCounts& function, int depth, std::string& text) {
  const std::string pad(depth, ' ');
  for (const auto& [location, at] : function.body) {
    absl::StrAppend(&text, pad, location.first);
    if (location.second != 0) absl::StrAppend(&text, ".", location.second);
    absl::StrAppend(&text, ": ", at.count);
    for (const auto& [target, calls] : at.calls) absl::StrAppend(&text, " ", target, ":", calls);
    absl::StrAppend(&text, "\n");
  }
  for (const auto& [location, callees] : function.inlined) {
    for (const auto& [name, callee] : callees) {
      const uint64_t total = Total(callee);
      if (total == 0) continue;
      absl::StrAppend(&text, pad, location.first);
      if (location.second != 0) absl::StrAppend(&text, ".", location.second);
      absl::StrAppend(&text, ": ", name, ":", total, "\n");
      AppendBody(callee, depth + 1, text);
    }
  }
}

}  // namespace

absl::StatusOr<std::string> LlvmSampleText(const BinaryCounts& counts, uint64_t base,
                                           const SourceMap& map) {
  // How often each instruction ran: the sum of the ranges holding it.
  std::map<uint64_t, uint64_t> executed;
  for (const auto& [range, count] : counts.ranges) {
    if (range.second < range.first) {
      return absl::InvalidArgumentError(
          absl::StrFormat("range %x-%x ends before it starts", range.first, range.second));
    }
    for (uint64_t at = range.first; at <= range.second; at += kInstructionBytes) {
      uint64_t& n = executed[at];
      n = Sum(n, count);
    }
  }
  // Every instruction of a function some of whose ran: 0 where none ran.
  std::map<uint64_t, uint64_t> filled;  // code ranges filled, by first
  std::vector<std::pair<uint64_t, uint64_t>> code;
  for (const auto& [offset, count] : executed) {
    const uint64_t address = base + offset;
    auto it = filled.upper_bound(address);
    if (it != filled.begin() && address < std::prev(it)->second) continue;
    for (const auto& [first, end] : map.FunctionCode(address)) {
      if (first < base || !filled.emplace(first, end).second) continue;
      for (uint64_t at = first; at + kInstructionBytes <= end; at += kInstructionBytes) {
        code.emplace_back(at - base, 0);
      }
    }
  }
  executed.insert(code.begin(), code.end());  // keeps the counts of those that ran
  std::map<std::string, FunctionCounts> functions;
  for (const auto& [offset, count] : executed) {
    std::optional<SourceLocation> where = map.Locate(base + offset);
    if (!where || where->empty()) continue;
    LocationCounts& at = CountsAt(functions, *where);
    at.count = std::max(at.count, Product(count, where->back().duplication_factor));
  }
  for (const auto& [branch, count] : counts.branches) {
    if (branch.second == 0) continue;  // target unknown
    std::optional<std::string> target = map.FunctionAt(base + branch.second);
    if (!target) continue;
    FunctionCounts& callee = functions[*target];
    callee.head = Sum(callee.head, count.taken);
    std::optional<SourceLocation> from = map.Locate(base + branch.first);
    if (!from || from->empty()) continue;
    uint64_t& calls = CountsAt(functions, *from).calls[*target];
    calls = Sum(calls, count.taken);
  }
  std::vector<std::tuple<uint64_t, std::string, const FunctionCounts*>> order;
  for (const auto& [name, function] : functions) {
    const uint64_t total = Total(function);
    if (total == 0) continue;  // only entered from elsewhere: nothing ran here
    order.emplace_back(total, name, &function);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
    return std::get<1>(a) < std::get<1>(b);
  });
  std::string text;
  for (const auto& [total, name, function] : order) {
    absl::StrAppend(&text, name, ":", total, ":", function->head, "\n");
    AppendBody(*function, 1, text);
  }
  return text;
}

}  // namespace perftk::profile
