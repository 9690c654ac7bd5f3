// Decodes CoreSight trace blocks with OpenCSD (C API) into Packets.
//
// One decoder handles one kind of input: formatted CoreSight frames, which
// multiplex every trace source of the recording by trace id, or the raw
// stream of one CPU (TRBE). It holds one OpenCSD decode tree with one
// protocol decoder per trace source, configured from the AUXTRACE_INFO
// registers, and is reset before each block.
//
// Per trace source it keeps the decoding context (thread and exception
// level) that PE_CONTEXT elements set; instruction bytes are read through
// the Environment with that context, and every packet is stamped with it
// when made (see packet.h). Packets are handed to the sink in batches: the
// element callback answers OpenCSD with WAIT when a batch is full, and the
// input loop drains it and resumes with FLUSH, as OpenCSD's protocol asks.
//
// A fatal OpenCSD response is an error naming the file offset of the trace
// byte and the CPU; non-fatal decode errors (bad packets, lost sync) are
// counted and reported as warnings, and decoding resynchronizes.
#ifndef PERFTK_CS_ETM_DECODER_H_
#define PERFTK_CS_ETM_DECODER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cs_etm/metadata.h"
#include "cs_etm/packet.h"
#include "cs_etm/trace_blocks.h"
#include "cs_etm/waiting_elements.h"

struct _ocsd_pe_context;

namespace perftk::cs_etm {

// What the decoder needs from the recording's model.
class DecodeEnvironment {
 public:
  virtual ~DecodeEnvironment() = default;
  // The process of a thread id found in the trace; tid itself if unknown.
  virtual int32_t PidOf(int32_t tid) = 0;
  // Reads up to `size` code bytes at `address` in the address space of
  // `context`; returns how many were read (0: no image there).
  virtual uint32_t ReadCode(const PacketContext& context, uint64_t address, uint32_t size,
                            uint8_t* out) = 0;
};

// The trace id a decoder gives `source`: its entry in `trace_ids` (by
// CPU, from the metadata or AUX_OUTPUT_HW_ID), else its metadata's.
uint8_t DecoderTraceId(const TraceSource& source, const std::map<uint32_t, uint8_t>& trace_ids);

// What decoders are made from (TraceDecoder::Create's info and trace_ids),
// as of one point of a recording; replaced, never changed, when it changes.
// `generation` grows with each replacement, so a decoder made from an older
// setup can be told apart.
struct DecodeSetup {
  CsEtmInfo info;
  std::map<uint32_t, uint8_t> trace_ids;  // by cpu
  uint64_t generation = 0;
};

class TraceDecoder {
 public:
  static constexpr size_t kDefaultBatchSize = 1024;
  // Deletes held before a block's trace is ended and started again (about
  // 64 MB of them).
  static constexpr size_t kMaxHeldDeletes = size_t{1} << 20;
  // Trace is given to OpenCSD at most this many bytes at a time.
  static constexpr size_t kPiece = size_t{1} << 20;

  // `trace_ids`: the trace id of each CPU (from the metadata, or from
  // AUX_OUTPUT_HW_ID records). For raw input, `raw_cpu` names the one CPU.
  // `batch_size` packets are handed over per WAIT (small values exercise
  // the WAIT/FLUSH path in tests).
  static absl::StatusOr<std::unique_ptr<TraceDecoder>> Create(
      const CsEtmInfo& info, const std::map<uint32_t, uint8_t>& trace_ids, bool formatted,
      uint32_t raw_cpu, DecodeEnvironment& environment, size_t batch_size = kDefaultBatchSize);
  ~TraceDecoder();
  TraceDecoder(const TraceDecoder&) = delete;
  TraceDecoder& operator=(const TraceDecoder&) = delete;

  // Resets the decoder, decodes the block to its end and hands every packet
  // to `sink`, then calls sink.EndBlock(). A block that could make OpenCSD
  // hold too much (waiting_elements.h) is not decoded: a decode error says
  // where, and the sink gets only the EndBlock.
  //
  // What OpenCSD deletes while it decodes a block is freed at the block's
  // end (opencsd_guard.h): 18 bytes of memory per byte of simpleperf's raw
  // ETE trace, 5 of its formatted trace. Past kMaxHeldDeletes of them, the
  // trace is ended as at a block's end, they are freed, and the decode
  // starts again from the next sync point, with a decode error saying
  // where: only blocks of several MB reach it. Formatted trace is ended at
  // a frame boundary, and the reset deformatter is told which source the
  // frames after it belong to (a frame names its source only when the
  // source changes).
  absl::Status Decode(const TraceBlock& block, PacketSink& sink);
  // Sets that bound and the bytes given at a time (tests). With
  // `end_every_piece` the trace is ended so every `piece` bytes instead,
  // whatever OpenCSD holds (sanitizer builds hold nothing: the fuzzer's
  // way there).
  void set_held_bounds(size_t max_held_deletes, size_t piece, bool end_every_piece = false) {
    max_held_deletes_ = max_held_deletes;
    piece_ = piece;
    end_every_piece_ = end_every_piece;
  }

  // Counts over all blocks so far.
  uint64_t decode_errors() const { return decode_errors_; }
  uint64_t no_access_ranges() const { return no_access_; }
  const std::string& first_error() const { return first_error_; }
  // How often the element callback asked OpenCSD to wait.
  uint64_t waits() const { return waits_; }

 private:
  struct Source;
  class Callbacks;
  explicit TraceDecoder(DecodeEnvironment& environment);

  absl::Status AddSource(const TraceSource& source, uint8_t trace_id);
  Source* FindSource(uint8_t trace_id);
  // Applies a PE_CONTEXT; false if nothing this decoder tracks changed.
  bool UpdateContext(Source& source, const ::_ocsd_pe_context& context);
  absl::Status Drain(PacketSink& sink);
  // Ends the trace after a datapath call that answered `response`: the
  // flushes a WAIT asks for, then the end of trace, handing what they make
  // to `sink`. If OpenCSD crashes in them, the tree is abandoned (tree_
  // null) and the block ended (Callbacks::Abandon).
  absl::Status EndTrace(int response, size_t pos, const TraceBlock& block, PacketSink& sink);
  absl::Status Check(int response, uint64_t index, const TraceBlock& block, const char* op);

  DecodeEnvironment& environment_;
  std::unique_ptr<WaitingElementsGuard> guard_;  // of the ETMv4/ETE sources
  void* tree_ = nullptr;                         // dcd_tree_handle_t
  bool formatted_ = false;
  size_t max_held_deletes_ = kMaxHeldDeletes;
  size_t piece_ = kPiece;
  bool end_every_piece_ = false;
  std::vector<std::unique_ptr<Source>> sources_;
  std::vector<Packet> batch_;
  size_t batch_size_ = kDefaultBatchSize;
  uint64_t waits_ = 0;
  uint64_t decode_errors_ = 0;
  uint64_t no_access_ = 0;
  std::string first_error_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DECODER_H_
