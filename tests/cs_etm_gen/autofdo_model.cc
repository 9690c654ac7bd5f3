#include "autofdo_model.h"

#include <algorithm>

namespace perftk::etm_gen {
namespace {

constexpr uint64_t kMinEmittedWeight = 10;       // AutoFDO's kMinSamples
constexpr double kEmittedWeightFraction = 5e-6;  // --sample_threshold_frac
constexpr uint64_t kLongestRange = 1 << 20;      // longer LBR stretches are "bogus"

}  // namespace

AutoFdoModel::AutoFdoModel(const DemoPrograms& programs, std::map<int32_t, uint64_t> bases)
    : programs_(programs), bases_(std::move(bases)) {}

bool AutoFdoModel::ToLink(int32_t pid, uint64_t address, uint64_t* link) const {
  auto base = bases_.find(pid);
  if (base == bases_.end() || address < base->second) return false;
  const uint64_t offset = address - base->second;  // link base 0: link address = offset
  const uint64_t code_end = kTextOffset + 4 * programs_.user.code.size();
  if (offset < kTextOffset || offset >= code_end) return false;
  *link = offset;
  return true;
}

const Assembler::Symbol* AutoFdoModel::FunctionAt(uint64_t link) const {
  for (const Assembler::Symbol& symbol : programs_.user.symbols) {
    if (link >= symbol.address && link < symbol.address + symbol.size) return &symbol;
  }
  return nullptr;
}

void AutoFdoModel::AddRange(Route& route, uint64_t start, uint64_t last) const {
  route.all_weight += last - start;
  const Assembler::Symbol* function = FunctionAt(start);
  if (function == nullptr) return;
  FunctionCounts& counts = route.functions[function->name];
  const uint64_t last_byte = std::min(last, function->address + function->size - 1);
  counts.total += last_byte - start + 1;
  counts.instructions += (last_byte - start) / 4 + 1;
  route.weight[function->name] += last - start;
}

void AutoFdoModel::AddBranch(Route& route, uint64_t from, uint64_t to) const {
  const Assembler::Symbol* source = FunctionAt(from);
  if (source == nullptr) return;
  for (const Assembler::Symbol& symbol : programs_.user.symbols) {
    if (symbol.address == to) ++route.calls[{source->name, symbol.name}];
  }
}

void AutoFdoModel::AddTruth(const std::vector<TruthEvent>& events) {
  for (const TruthEvent& event : events) {
    uint64_t start = 0, last = 0;
    if (event.kind != TruthEvent::Kind::kRange || event.context.el != 0 ||
        !ToLink(event.context.pid, event.start, &start) ||
        !ToLink(event.context.pid, event.end - 4, &last)) {
      continue;
    }
    AddRange(text_, start, last);
    if (!event.taken) continue;
    const Decoded decoded = Classify(programs_.user.code[(last - kTextOffset) / 4]);
    if (decoded.flow == Flow::kBranch || decoded.flow == Flow::kCall ||
        decoded.flow == Flow::kCondBranch) {
      AddBranch(text_, last, last + decoded.offset);
    }
  }
}

void AutoFdoModel::AddSample(const ExpectedSample& sample) {
  const int32_t pid = sample.context.pid;
  const auto& stack = sample.branches;  // newest first
  for (size_t i = 0; i < stack.size(); ++i) {
    uint64_t from = 0, to = 0;
    const bool to_known = ToLink(pid, stack[i].second, &to);
    if (i > 0 && to_known) {
      uint64_t end = 0;
      // AutoFDO takes the newer entry's source as the end without asking
      // where it is; outside the binary it is no range here.
      if (ToLink(pid, stack[i - 1].first, &end) && end >= to && end - to <= kLongestRange) {
        AddRange(perf_, to, end);
      }
    }
    if (to_known && ToLink(pid, stack[i].first, &from)) AddBranch(perf_, from, to);
  }
}

std::map<std::string, FunctionCounts> AutoFdoModel::Emitted(const Route& route) const {
  const uint64_t threshold = std::max<uint64_t>(
      kMinEmittedWeight, static_cast<uint64_t>(route.all_weight * kEmittedWeightFraction));
  std::map<std::string, FunctionCounts> emitted;
  for (const auto& [name, counts] : route.functions) {
    auto weight = route.weight.find(name);
    if (weight != route.weight.end() && weight->second > threshold) emitted[name] = counts;
  }
  for (const auto& [call, count] : route.calls) {
    if (emitted.count(call.first) && emitted.count(call.second)) {
      emitted[call.second].head += count;
    }
  }
  return emitted;
}

}  // namespace perftk::etm_gen
