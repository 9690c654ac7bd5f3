#include "cs_etm/waiting_elements.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "cs_etm/decoder.h"
#include "cs_etm/frame_demux.h"

namespace perftk::cs_etm {
namespace {

constexpr uint32_t kMaxCounted = 0x7fffffff;

}  // namespace

// One source's stream: its parser and the runs of packets between atom
// packets.
struct WaitingElementsGuard::Stream {
  explicit Stream(const TraceSource& source, uint8_t id)
      : trace_id(id), max_spec_depth(source.trcidr8), parser(Etm4Config::For(source)) {}

  // Reads `bytes` (from `index` of the block on); the first refusal, if any.
  std::optional<Refusal> Read(std::span<const uint8_t> bytes, uint64_t index) {
    packets.clear();
    parser.Parse(bytes, index, packets);
    for (const Etm4Packet& packet : packets) {
      if (packet.type == Etm4PacketType::kTraceInfo && packet.spec_depth > kMaxCounted) {
        // OpenCSD keeps the depth in an int: this one is negative there,
        // and no atom is committed before 2^31 of them.
        return Refusal{packet.index,
                       absl::StrFormat("a trace info of trace id %#x says %u elements are "
                                       "speculative, more than OpenCSD counts",
                                       trace_id, packet.spec_depth)};
      }
      if (packet.atom_count > 0) {
        longest_run = std::max(longest_run, run);
        run = 0;
        continue;
      }
      ++run;
      if (Bound() > kMaxWaiting) {
        return Refusal{packet.index,
                       absl::StrFormat("up to %d trace elements of trace id %#x could wait "
                                       "for a commit there (%d packets without an atom)",
                                       Bound(), trace_id, std::max(run, longest_run))};
      }
    }
    return std::nullopt;
  }

  // What may wait: max_spec_depth + 1 runs as long as the longest, and the
  // one being read (saturating at kMaxWaiting + 1).
  uint64_t Bound() const {
    const uint64_t runs = uint64_t{max_spec_depth} + 1;
    const uint64_t longest = std::max(longest_run, run) + 1;
    if (longest > kMaxWaiting / runs) return kMaxWaiting + 1;
    return runs * longest + run;
  }

  void Reset() {
    parser.Reset();
    run = 0;
    longest_run = 0;
  }

  uint8_t trace_id;
  uint32_t max_spec_depth;
  Etm4PacketParser parser;
  std::vector<Etm4Packet> packets;
  uint64_t run = 0;          // packets since the last atom packet
  uint64_t longest_run = 0;  // of the runs ended so far
};

WaitingElementsGuard::WaitingElementsGuard(const CsEtmInfo& info,
                                           const std::map<uint32_t, uint8_t>& trace_ids,
                                           bool formatted, uint32_t raw_cpu)
    : formatted_(formatted) {
  for (const TraceSource& source : info.sources) {
    if (!formatted && source.cpu != raw_cpu) continue;
    if (source.protocol != TraceProtocol::kEtmV4 && source.protocol != TraceProtocol::kEte) {
      continue;
    }
    streams_.push_back(std::make_unique<Stream>(source, DecoderTraceId(source, trace_ids)));
  }
}

WaitingElementsGuard::~WaitingElementsGuard() = default;

WaitingElementsGuard::Stream* WaitingElementsGuard::StreamOf(uint8_t trace_id) {
  for (auto& stream : streams_) {
    if (stream->trace_id == trace_id) return stream.get();
  }
  return nullptr;
}

std::optional<WaitingElementsGuard::Refusal> WaitingElementsGuard::Check(
    std::span<const uint8_t> block) {
  if (streams_.empty()) return std::nullopt;
  for (auto& stream : streams_) stream->Reset();
  if (!formatted_) {
    // In pieces: the packets of one are held at once.
    constexpr size_t kPiece = 4096;
    for (size_t at = 0; at < block.size(); at += kPiece) {
      auto refusal =
          streams_.front()->Read(block.subspan(at, std::min(kPiece, block.size() - at)), at);
      if (refusal) return refusal;
    }
    return std::nullopt;
  }

  // The frames OpenCSD takes apart: the whole block, or those before a
  // frame cut short (which OpenCSD reads to the block's end).
  class Runs : public FrameDemuxSink {
   public:
    explicit Runs(WaitingElementsGuard& guard) : guard_(guard) {}
    void Run(const FrameRun& run) override {
      if (refusal) return;
      if (Stream* stream = guard_.StreamOf(run.trace_id))
        refusal = stream->Read(run.bytes, run.index);
    }
    // Four frame syncs reset OpenCSD's decoders, and what waits with them.
    void Reset(uint64_t) override {
      for (auto& stream : guard_.streams_) stream->Reset();
    }
    std::optional<Refusal> refusal;

   private:
    WaitingElementsGuard& guard_;
  } runs(*this);
  DemuxWholeFrames(block, runs);
  return runs.refusal;
}

}  // namespace perftk::cs_etm
