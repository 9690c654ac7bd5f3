// What the decoder hands to sample synthesis: one packet per OpenCSD element
// that matters for program flow, in trace order, each carrying the context
// (pid, tid, exception level) that was current on its trace source when
// OpenCSD emitted it. A later PE_CONTEXT never changes a packet already made,
// so however packets are buffered, each one is attributed to the thread that
// retired it.
#ifndef PERFTK_CS_ETM_PACKET_H_
#define PERFTK_CS_ETM_PACKET_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"

namespace perftk::cs_etm {

enum class PacketKind : uint8_t {
  kRange,            // instructions [start, end) executed
  kDiscontinuity,    // trace started, lost sync, or ended: no flow across it
  kException,        // exception taken after the previous range
  kExceptionReturn,  // exception return
  kContext,          // the thread or exception level changed
  kNoAccess,         // trace went to code with no image (start = address)
  kPath,             // packets made before, replayed: path(); only to a sink that TakesPaths
};

enum class Isa : uint8_t { kA64, kA32, kT32, kOther };

enum class BranchKind : uint8_t { kNone, kDirect, kIndirect };

// Exception level, or kUnknownEl when the protocol does not trace it.
inline constexpr int8_t kUnknownEl = -1;

struct PacketContext {
  int32_t pid = -1;
  int32_t tid = -1;
  int8_t el = kUnknownEl;
  bool operator==(const PacketContext&) const = default;
};

// Where arm64 kernel addresses start (the upper half of 48-bit VAs).
inline constexpr uint64_t kKernelSpaceStart = 0xffff000000000000ULL;

// Whether code at `address` run in `context` is the kernel's: by exception
// level when the trace has one, else by the address.
inline bool IsKernel(const PacketContext& context, uint64_t address) {
  if (context.el == kUnknownEl) return address >= kKernelSpaceStart;
  return context.el >= 1;
}

struct Packet {
  PacketKind kind = PacketKind::kRange;
  Isa isa = Isa::kA64;
  BranchKind last_branch = BranchKind::kNone;  // of the range's last instruction
  bool last_taken = false;                     // the last instruction is a branch and was taken
  bool last_cond = false;
  bool has_branch_target = false;  // branch_target holds the last instruction's direct target
  uint8_t last_size = 4;
  uint8_t trace_id = 0;
  uint32_t instr_count = 0;
  uint32_t exception_number = 0;
  uint64_t start = 0;
  uint64_t end = 0;           // exclusive
  uint64_t cs_timestamp = 0;  // the last CoreSight timestamp seen before it, 0 if none
  // Of a direct branch: where it goes, when the decoder read it already
  // (the fast decoder does; the OpenCSD path leaves it to the profile).
  uint64_t branch_target = 0;
  PacketContext context;

  // The address of the range's last instruction.
  uint64_t last_address() const { return end - last_size; }

  // kPath: the packets it stands for (ranges, ETE's exception returns), in
  // trace order, with this packet's context and cs_timestamp in place of
  // their own; its trace_id is theirs. They live until their decoder
  // starts its next block (atom_paths.h), so a sink reads them in the
  // Consume call that hands it the kPath packet. Held in branch_target and
  // instr_count, which a kPath has no use for.
  std::span<const Packet> path() const {
    return {std::bit_cast<const Packet*>(branch_target), instr_count};
  }
  void set_path(std::span<const Packet> packets) {
    branch_target = std::bit_cast<uint64_t>(packets.data());
    instr_count = static_cast<uint32_t>(packets.size());
  }
};

// Appends `made` (the packets of a replayed path) to `out` with `context`
// and `cs_timestamp` in place of their own: what a kPath stands for.
inline void AppendReplayed(std::span<const Packet> made, const PacketContext& context,
                           uint64_t cs_timestamp, std::vector<Packet>& out) {
  const size_t first = out.size();
  out.insert(out.end(), made.begin(), made.end());
  for (size_t i = first; i < out.size(); ++i) {
    out[i].context = context;
    out[i].cs_timestamp = cs_timestamp;
  }
}

// Receives packets in batches, in trace order.
class PacketSink {
 public:
  virtual ~PacketSink() = default;
  virtual absl::Status Consume(std::span<const Packet> packets) = 0;
  // Whether Consume takes kPath packets; a decoder expands them for a sink
  // that does not.
  virtual bool TakesPaths() const { return false; }
  // The end of a block (decoder reset follows): flush what is pending.
  virtual absl::Status EndBlock() { return absl::OkStatus(); }
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_PACKET_H_
