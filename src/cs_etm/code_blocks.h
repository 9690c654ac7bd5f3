// Straight runs of A64 code, each found once: from an address, the
// instructions up to and including the next waypoint (a64_branch.h).
//
// The fast decoder (issue 29) resolves an atom with one lookup here instead
// of reading and classifying instruction after instruction. Blocks are
// keyed by the image and the offset in it, not by address, so every process
// that maps a binary shares its blocks; a direct branch's target is kept
// relative to the branch for the same reason.
//
// The caller hands over the code readable from the address on, as one
// CodeSpan: the rest of a mapping in a mapped file, or a page of kernel code
// read into a buffer. A block never reaches past its span; a block that
// meets the span's end before a waypoint says so (`span_ended`), and the
// walk goes on from there in whatever span holds the next address (another
// mapping, or none: no code there). A cached block found again through a
// shorter span, or one ending elsewhere, is walked again.
//
// One cache per decode lane: no locks. It holds at most `max_blocks`
// blocks and starts over when full.
#ifndef PERFTK_CS_ETM_CODE_BLOCKS_H_
#define PERFTK_CS_ETM_CODE_BLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>

#include "absl/container/flat_hash_map.h"
#include "cs_etm/a64_branch.h"

namespace perftk::cs_etm {

// The code readable at one address.
struct CodeSpan {
  const void* image = nullptr;     // names the bytes: the same image has the same bytes
  uint64_t offset = 0;             // of bytes[0] in the image
  std::span<const uint8_t> bytes;  // from the address on; whole instructions count
};

struct CodeBlock {
  uint32_t instructions = 0;  // from the start, the waypoint included
  A64Instruction last;        // the waypoint; kNone when the span ended first
  bool span_ended = false;    // no waypoint before the span's end
  int64_t target_delta = 0;   // a direct branch's target minus the branch's address

  // The size of the block in bytes.
  uint64_t size() const { return uint64_t{instructions} * 4; }
};

class CodeBlockCache {
 public:
  static constexpr size_t kDefaultMaxBlocks = size_t{1} << 18;

  explicit CodeBlockCache(const A64TraceFeatures& features, size_t max_blocks = kDefaultMaxBlocks)
      : features_(features), max_blocks_(max_blocks) {}

  // The block that starts at `span.bytes[0]`. A span shorter than one
  // instruction gives an empty block that ended with its span.
  CodeBlock Find(const CodeSpan& span);

  // Lookups answered from the cache, and blocks walked.
  uint64_t hits() const { return hits_; }
  uint64_t walks() const { return walks_; }
  size_t size() const { return blocks_.size(); }

 private:
  struct Key {
    const void* image;
    uint64_t offset;
    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& key) {
      return H::combine(std::move(h), key.image, key.offset);
    }
  };

  CodeBlock Walk(std::span<const uint8_t> bytes) const;

  const A64TraceFeatures features_;
  const size_t max_blocks_;
  absl::flat_hash_map<Key, CodeBlock> blocks_;
  uint64_t hits_ = 0;
  uint64_t walks_ = 0;
};

// One cache per set of trace unit features, which change what a waypoint
// is (cores of two kinds in one recording).
class CodeBlockCaches {
 public:
  CodeBlockCache& For(const A64TraceFeatures& features) {
    const int key = (features.armv8_3 ? 1 : 0) | (features.wfi_wfe_branches ? 2 : 0);
    auto it = caches_.find(key);
    if (it == caches_.end())
      it = caches_.emplace(key, std::make_unique<CodeBlockCache>(features)).first;
    return *it->second;
  }
  uint64_t hits() const {
    uint64_t n = 0;
    for (const auto& [key, cache] : caches_) n += cache->hits();
    return n;
  }
  uint64_t walks() const {
    uint64_t n = 0;
    for (const auto& [key, cache] : caches_) n += cache->walks();
    return n;
  }

 private:
  std::map<int, std::unique_ptr<CodeBlockCache>> caches_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_CODE_BLOCKS_H_
