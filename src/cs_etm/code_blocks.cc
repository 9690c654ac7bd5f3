#include "cs_etm/code_blocks.h"

#include <optional>

namespace perftk::cs_etm {

CodeBlock CodeBlockCache::Walk(std::span<const uint8_t> bytes) const {
  CodeBlock block;
  const size_t words = bytes.size() / 4;
  for (size_t i = 0; i < words; ++i) {
    const uint32_t word = A64Word(bytes.data() + i * 4);
    A64Instruction instruction = ClassifyA64(word, features_);
    if (instruction.waypoint == A64Waypoint::kNone) continue;
    block.instructions = static_cast<uint32_t>(i + 1);
    block.last = instruction;
    if (instruction.waypoint == A64Waypoint::kDirectBranch) {
      // The delta, as the target at address 0 wrapped.
      block.target_delta = static_cast<int64_t>(A64DirectBranchTarget(word, 0).value_or(0));
    }
    return block;
  }
  block.instructions = static_cast<uint32_t>(words);
  block.span_ended = true;
  return block;
}

CodeBlock CodeBlockCache::Find(const CodeSpan& span) {
  const Key key{span.image, span.offset};
  auto it = blocks_.find(key);
  if (it != blocks_.end()) {
    const CodeBlock& block = it->second;
    const uint64_t whole = span.bytes.size() / 4 * 4;
    // The same end as this span would give: a waypoint inside it, or the
    // span's end itself.
    if (block.span_ended ? block.size() == whole : block.size() <= whole) {
      ++hits_;
      return block;
    }
  }
  ++walks_;
  if (it == blocks_.end() && blocks_.size() >= max_blocks_) blocks_.clear();
  CodeBlock& slot = blocks_[key];
  slot = Walk(span.bytes);
  return slot;
}

}  // namespace perftk::cs_etm
