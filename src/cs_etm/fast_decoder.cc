#include "cs_etm/fast_decoder.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "cs_etm/frame_demux.h"

namespace perftk::cs_etm {

// Routes the runs of a formatted block to the sources' parsers and
// decoders. Consecutive runs of one source are parsed as one piece: a
// frame holds at most 15 bytes of a source, so most long packets would
// otherwise straddle two runs and be read a byte at a time. The pieces
// still end wherever the source changes, at a decoder reset and at the
// block's end, the places where what the parser does at the end of a
// piece can be seen.
class FastTraceDecoder::Runs : public FrameDemuxSink {
 public:
  // Pieces are parsed once they hold this much: 1 KB makes about 500
  // Etm4Packets of 100 bytes, parsed and decoded while still in cache.
  static constexpr size_t kMaxPiece = 1024;

  Runs(FastTraceDecoder& decoder, const TraceBlock& block) : decoder_(decoder), block_(block) {}
  void Run(const FrameRun& run) override {
    if (!followed_) return;
    if (run.trace_id != last_id_ || last_source_ == nullptr) {
      last_id_ = run.trace_id;
      last_source_ = decoder_.FindSource(run.trace_id);
    }
    Source* source = last_source_;
    if (source == nullptr) return;
    if (source != pending_ || piece_.size() + run.bytes.size() > kMaxPiece) Flush();
    if (!followed_) return;
    pending_ = source;
    source->pieces.push_back({source->stream_position + piece_.size(), run.index});
    piece_.insert(piece_.end(), run.bytes.begin(), run.bytes.end());
  }
  void Reset(uint64_t) override {
    Flush();
    for (auto& [id, source] : decoder_.sources_) {
      source.parser->Reset();
      source.decoder->Reset();
    }
  }
  // Parses and decodes the piece gathered so far.
  void Flush() {
    if (pending_ == nullptr || piece_.empty() || !followed_) return;
    followed_ = decoder_.Feed(*pending_, piece_, pending_->stream_position, block_);
    pending_->stream_position += piece_.size();
    piece_.clear();
  }
  bool followed() const { return followed_; }

 private:
  FastTraceDecoder& decoder_;
  const TraceBlock& block_;
  bool followed_ = true;
  uint8_t last_id_ = 0;
  Source* last_source_ = nullptr;
  Source* pending_ = nullptr;  // whose bytes piece_ holds
  std::vector<uint8_t> piece_;
};

bool FastTraceDecoder::Supports(const CsEtmInfo& info, bool formatted, uint32_t raw_cpu) {
  bool any = false;
  for (const TraceSource& source : info.sources) {
    if (!formatted && source.cpu != raw_cpu) continue;
    if (!Etm4Decoder::Supports(source)) return false;
    any = true;
  }
  return any;
}

absl::StatusOr<std::unique_ptr<FastTraceDecoder>> FastTraceDecoder::Create(
    const CsEtmInfo& info, const std::map<uint32_t, uint8_t>& trace_ids, bool formatted,
    uint32_t raw_cpu, DecodeEnvironment& environment, CodeReader& code, CodeBlockCaches& blocks,
    size_t batch_size) {
  std::unique_ptr<FastTraceDecoder> decoder(
      new FastTraceDecoder(environment, formatted, std::max<size_t>(batch_size, 1)));
  for (const TraceSource& source : info.sources) {
    if (!formatted && source.cpu != raw_cpu) continue;
    if (!Etm4Decoder::Supports(source)) {
      return absl::FailedPreconditionError(
          absl::StrFormat("the fast decoder does not follow the trace of cpu %d", source.cpu));
    }
    const uint8_t id = DecoderTraceId(source, trace_ids);
    const Etm4Config config = Etm4Config::For(source);
    const A64TraceFeatures features = Etm4Decoder::FeaturesOf(source);
    Source& entry = decoder->sources_[id];
    entry.cpu = source.cpu;
    entry.parser = std::make_unique<Etm4PacketParser>(config);
    entry.decoder =
        std::make_unique<Etm4Decoder>(source, id, environment, code, blocks.For(features));
  }
  if (decoder->sources_.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "no trace source metadata for cpu %d in AUXTRACE_INFO", static_cast<int32_t>(raw_cpu)));
  }
  return decoder;
}

FastTraceDecoder::Source* FastTraceDecoder::FindSource(uint8_t trace_id) {
  auto it = sources_.find(trace_id);
  if (it != sources_.end()) return &it->second;
  // A raw stream has one source whatever id its packets carry.
  return !formatted_ && sources_.size() == 1 ? &sources_.begin()->second : nullptr;
}

absl::StatusOr<FastTraceDecoder::Outcome> FastTraceDecoder::Decode(const TraceBlock& block,
                                                                   PacketSink& sink) {
  sink_ = &sink;
  spilled_ = false;
  sink_status_ = absl::OkStatus();
  held_.clear();
  // The thread perf says the CPU runs, as TraceDecoder seeds it.
  PacketContext seed;
  if (block.seed_tid >= 0) {
    seed.tid = block.seed_tid;
    seed.pid = block.seed_pid;
  } else if (block.cpu == kNoCpu && block.tid != 0) {
    seed.tid = static_cast<int32_t>(block.tid);
  }
  for (auto& [id, source] : sources_) {
    source.parser->Reset();
    source.stream_position = 0;
    source.pieces.clear();
    PacketContext context = seed;
    if (seed.tid >= 0 && seed.pid < 0) context.pid = environment_.PidOf(seed.tid);
    source.decoder->StartBlock(context);
    source.decoder->set_emit_paths(sink.TakesPaths());
  }
  const std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(block.data.data()),
                                      block.data.size());
  bool followed = true;
  if (formatted_) {
    if (!CanDemux(data)) {
      not_followed_why_ = "frames OpenCSD reads past";
      return Outcome::kNotFollowed;
    }
    Runs runs(*this, block);
    Demux(data, runs);
    runs.Flush();
    followed = runs.followed();
  } else {
    // In pieces, as formatted trace is: a piece's packets are held at
    // once (80 bytes each, a packet a byte or two of trace), and where a
    // piece ends within one stream cannot be seen in them.
    Source& source = sources_.begin()->second;
    for (size_t at = 0; followed && at < data.size(); at += kRawPiece) {
      followed = Feed(source, data.subspan(at, std::min(kRawPiece, data.size() - at)), at, block);
    }
  }
  if (followed) followed = Finish(block);
  if (!sink_status_.ok()) return sink_status_;
  if (!followed) return Outcome::kNotFollowed;
  if (absl::Status s = Spill(/*all=*/true); !s.ok()) return s;
  if (absl::Status s = sink.EndBlock(); !s.ok()) return s;
  return Outcome::kDecoded;
}

bool FastTraceDecoder::Feed(Source& source, std::span<const uint8_t> bytes, uint64_t index,
                            const TraceBlock& block) {
  parsed_.clear();
  source.parser->Parse(bytes, index, parsed_);
  const bool followed = DecodePackets(source, block);
  source.ForgetPiecesBefore(source.parser->pending_index(), pieces_kept_);
  return followed;
}

void FastTraceDecoder::Source::ForgetPiecesBefore(uint64_t position, size_t kept) {
  // Now and then, not at every piece: the erase moves what stays.
  if (pieces.size() < kept) return;
  auto it = std::upper_bound(pieces.begin(), pieces.end(), position,
                             [](uint64_t p, const Piece& piece) { return p < piece.position; });
  if (it == pieces.begin()) return;
  pieces.erase(pieces.begin(), it - 1);  // the piece holding `position` stays
}

bool FastTraceDecoder::DecodePackets(Source& source, const TraceBlock& block) {
  for (const Etm4Packet& packet : parsed_) {
    if (source.decoder->Decode(packet, held_) == Etm4Decoder::Step::kNotFollowed) {
      not_followed_why_ = source.decoder->not_followed_why();
      if (!spilled_) return false;
      NoteLost(source, block, packet.index);
    }
    if (held_.size() >= kMaxHeld) {
      sink_status_ = Spill(/*all=*/false);
      if (!sink_status_.ok()) return false;
    }
  }
  return true;
}

bool FastTraceDecoder::Finish(const TraceBlock& block) {
  // OpenCSD ends its decoders in trace id order: a packet cut short, then
  // the end of the trace.
  for (auto& [id, source] : sources_) {
    parsed_.clear();
    source.parser->Finish(parsed_);
    if (!DecodePackets(source, block)) return false;
    source.decoder->EndOfTrace(held_);
  }
  return true;
}

absl::Status FastTraceDecoder::Spill(bool all) {
  if (held_.empty()) return absl::OkStatus();
  if (!all) spilled_ = true;
  for (size_t at = 0; at < held_.size(); at += batch_size_) {
    const size_t n = std::min(batch_size_, held_.size() - at);
    if (absl::Status s = sink_->Consume(std::span<const Packet>(held_.data() + at, n)); !s.ok()) {
      return s;
    }
  }
  held_.clear();
  return absl::OkStatus();
}

uint64_t FastTraceDecoder::Source::BlockIndex(uint64_t position) const {
  if (pieces.empty()) return position;  // raw trace: the stream is the block
  auto it = std::upper_bound(pieces.begin(), pieces.end(), position,
                             [](uint64_t p, const Piece& piece) { return p < piece.position; });
  if (it == pieces.begin()) return position;
  --it;
  return it->block_index + (position - it->position);
}

void FastTraceDecoder::NoteLost(Source& source, const TraceBlock& block, uint64_t position) {
  const uint64_t index = source.BlockIndex(position);
  source.decoder->Reset();
  ++decode_errors_;
  if (first_error_.empty()) {
    first_error_ = absl::StrFormat(
        "the fast decoder cannot follow the trace of cpu %d at file offset %#x (trace byte %#x "
        "of the block): %s; decoded again from its next A-sync",
        source.cpu, block.file_offset + index, index, not_followed_why_);
  }
}

}  // namespace perftk::cs_etm
