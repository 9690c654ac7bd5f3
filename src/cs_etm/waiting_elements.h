// A bound on what OpenCSD's ETMv4/ETE decoder keeps in memory while it
// decodes a block: the elements that wait on its P0 stack for a commit.
//
// OpenCSD keeps every element (an address, a context, a timestamp, an
// atom) until a commit takes it, and holds as many uncommitted atoms as the
// trace unit's maximum speculation depth (TRCIDR8) lets it. A stream that
// never commits (a few hundred MB of address packets and no atom, say)
// keeps all of it: 100-odd bytes of heap for each byte of trace. This
// guard reads a block's packets first (etm4_packets.h, a small share of
// what OpenCSD's decode costs) and bounds the stack from above: after each
// resolution at most TRCIDR8 atoms wait, so at most TRCIDR8 + 1 runs of
// packets between atom packets, each no longer than the longest seen, and
// the run being read. A block whose bound passes kMaxWaiting is not given
// to OpenCSD. Real trace is far below it (the longest run between atom
// packets is a handful of packets). A trace info that says more speculation
// than TRCIDR8 allows makes OpenCSD commit more than waits (an error, not a
// growth), unless it says 2^31 or more, a negative depth to OpenCSD, under
// which nothing commits: that is refused too.
//
// ETMv3 and PTM sources are not looked at (their decoders keep no stack).
#ifndef PERFTK_CS_ETM_WAITING_ELEMENTS_H_
#define PERFTK_CS_ETM_WAITING_ELEMENTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cs_etm/etm4_packets.h"
#include "cs_etm/metadata.h"

namespace perftk::cs_etm {

class WaitingElementsGuard {
 public:
  // 256 K elements: about 30 MB of OpenCSD's stack elements.
  static constexpr uint64_t kMaxWaiting = uint64_t{1} << 18;

  // The sources a decoder of `info` reads: every one for formatted trace,
  // `raw_cpu`'s for raw; `trace_ids` as TraceDecoder::Create takes them.
  WaitingElementsGuard(const CsEtmInfo& info, const std::map<uint32_t, uint8_t>& trace_ids,
                       bool formatted, uint32_t raw_cpu);
  ~WaitingElementsGuard();

  struct Refusal {
    uint64_t index = 0;  // of the packet's first byte in the block
    std::string why;
  };
  // Where decoding `block` could make OpenCSD hold more than kMaxWaiting
  // elements, or nullopt when it cannot.
  std::optional<Refusal> Check(std::span<const uint8_t> block);

 private:
  struct Stream;
  Stream* StreamOf(uint8_t trace_id);

  bool formatted_;
  std::vector<std::unique_ptr<Stream>> streams_;  // ETMv4/ETE sources only
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_WAITING_ELEMENTS_H_
