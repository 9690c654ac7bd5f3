// The fast decoder of trace blocks (issue 29): the same contract as
// TraceDecoder (decoder.h), a block in and perftk's Packets out, without
// OpenCSD. Formatted trace is taken apart by frame_demux.h and raw trace
// read as one stream; each source's packets are parsed (etm4_packets.h)
// and decoded (etm4_decoder.h) over one cache of code blocks, in the order
// OpenCSD would make them, so that the two decoders hand the sink the same
// packets.
//
// Made only for a setup whose every source it supports (Supports); a block
// it cannot follow to the end (Etm4Decoder::Step::kNotFollowed) is handed
// back untouched, for TraceDecoder to decode: the packets of a block are
// kept until its end, up to kMaxHeld of them. Past that they go to the
// sink; a source that then leaves the fast path's ground is started over
// at its next A-sync, with a decode error saying so.
#ifndef PERFTK_CS_ETM_FAST_DECODER_H_
#define PERFTK_CS_ETM_FAST_DECODER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cs_etm/code_blocks.h"
#include "cs_etm/decoder.h"
#include "cs_etm/etm4_decoder.h"
#include "cs_etm/etm4_packets.h"
#include "cs_etm/metadata.h"
#include "cs_etm/packet.h"
#include "cs_etm/trace_blocks.h"

namespace perftk::cs_etm {

class FastTraceDecoder {
 public:
  // 512 KB of Packets: held packets are written and read back once per
  // block, and more than a core's L2 cache holds slowed two lanes by 20%
  // (64 K of them, 4 MB, on Lua fib(30)).
  static constexpr size_t kMaxHeld = size_t{1} << 13;
  // Raw trace is parsed this many bytes at a time.
  static constexpr size_t kRawPiece = 4096;

  // Whether every source the decoder would take (all of them for formatted
  // trace, `raw_cpu`'s for raw) is one it follows.
  static bool Supports(const CsEtmInfo& info, bool formatted, uint32_t raw_cpu);

  // As TraceDecoder::Create; `code` reads the code the trace runs through,
  // `blocks` (shared with other decoders of the thread) keeps its blocks.
  // Fails as TraceDecoder::Create does when `raw_cpu` has no source.
  static absl::StatusOr<std::unique_ptr<FastTraceDecoder>> Create(
      const CsEtmInfo& info, const std::map<uint32_t, uint8_t>& trace_ids, bool formatted,
      uint32_t raw_cpu, DecodeEnvironment& environment, CodeReader& code, CodeBlockCaches& blocks,
      size_t batch_size = TraceDecoder::kDefaultBatchSize);

  enum class Outcome { kDecoded, kNotFollowed };
  // Decodes `block` into `sink` as TraceDecoder::Decode does, or returns
  // kNotFollowed having handed the sink nothing.
  absl::StatusOr<Outcome> Decode(const TraceBlock& block, PacketSink& sink);

  // What the last kNotFollowed outcome was about.
  const std::string& not_followed_why() const { return not_followed_why_; }
  uint64_t decode_errors() const { return decode_errors_; }
  const std::string& first_error() const { return first_error_; }

  // A source's runs of frames are forgotten, behind the packet it parses,
  // once this many are kept (tests: a few, to forget them at every piece).
  static constexpr size_t kPiecesKept = 1024;
  void set_pieces_kept(size_t kept) { pieces_kept_ = kept; }

 private:
  struct Source {
    uint32_t cpu = 0;
    std::unique_ptr<Etm4PacketParser> parser;
    std::unique_ptr<Etm4Decoder> decoder;
    bool lost = false;  // left the fast path after its packets went out
    // Formatted trace: where the source's stream (its runs end to end, the
    // indexes its packets carry) came from in the block.
    struct Piece {
      uint64_t position = 0;     // in the stream
      uint64_t block_index = 0;  // OpenCSD's index of the run there
    };
    uint64_t stream_position = 0;  // bytes parsed this block
    // One per run, in stream order, from the one holding the start of the
    // packet the parser reads on: a block of 200 MB has 13 M runs.
    std::vector<Piece> pieces;
    // The block index of the stream's byte at `position`.
    uint64_t BlockIndex(uint64_t position) const;
    // Forgets the pieces wholly before `position` once there are `kept`.
    void ForgetPiecesBefore(uint64_t position, size_t kept);
  };
  class Runs;

  FastTraceDecoder(DecodeEnvironment& environment, bool formatted, size_t batch_size)
      : environment_(environment), formatted_(formatted), batch_size_(batch_size) {}
  Source* FindSource(uint8_t trace_id);
  // Parses and decodes a piece of `source`'s stream, `index` its position
  // in the stream; false if the block must go to OpenCSD.
  bool Feed(Source& source, std::span<const uint8_t> bytes, uint64_t index,
            const TraceBlock& block);
  bool DecodePackets(Source& source, const TraceBlock& block);
  bool Finish(const TraceBlock& block);
  // Hands the held packets to the sink once there are too many.
  absl::Status Spill(bool all);
  // The source could not be followed from its stream's `position` on.
  void NoteLost(Source& source, const TraceBlock& block, uint64_t position);

  DecodeEnvironment& environment_;
  const bool formatted_;
  const size_t batch_size_;
  size_t pieces_kept_ = kPiecesKept;
  std::map<uint8_t, Source> sources_;  // by trace id, in id order as OpenCSD ends them
  std::vector<Etm4Packet> parsed_;
  std::vector<Packet> held_;
  PacketSink* sink_ = nullptr;  // of the block being decoded
  bool spilled_ = false;        // some of this block's packets went out
  absl::Status sink_status_;
  uint64_t decode_errors_ = 0;
  std::string first_error_;
  std::string not_followed_why_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_FAST_DECODER_H_
