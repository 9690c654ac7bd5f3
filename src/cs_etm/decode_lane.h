// A lane of the decode: decodes the blocks it is given, one at a time, into
// samples (or a profile) and counts.
//
// A lane owns its decoders (one per trace source, remade when the setup
// changes and after a block with errors, so each block's errors are its
// own), the synthesizer or branch profile whose state carries from block to
// block, and the caches of its map lookups. Everything else it reads comes
// in LaneInputs, which lanes on other threads read at the same time: the
// machine model is const to it, and the images and the encoder are
// thread-safe. Whoever owns the model changes it only while no lane runs,
// and says so with the model generation of the next job: a lane forgets its
// cached address spaces when that changes.
//
// Decode trees are made and destroyed under OpenCSD's setup lock
// (opencsd_guard.h).
#ifndef PERFTK_CS_ETM_DECODE_LANE_H_
#define PERFTK_CS_ETM_DECODE_LANE_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cs_etm/binary_images.h"
#include "cs_etm/code_blocks.h"
#include "cs_etm/decode_options.h"
#include "cs_etm/decoder.h"
#include "cs_etm/etm4_decoder.h"
#include "cs_etm/fast_decoder.h"
#include "cs_etm/frame_scan.h"
#include "cs_etm/packet.h"
#include "cs_etm/profile.h"
#include "cs_etm/sample_output.h"
#include "cs_etm/synthesizer.h"
#include "cs_etm/trace_blocks.h"
#include "machine/machines.h"

namespace perftk::cs_etm {

// What every lane reads and no lane changes. All must outlive the lanes.
struct LaneInputs {
  const DecodeOptions& options;  // format, itrace, packet_batch
  const machine::Machines& machines;
  BinaryImages& images;                   // thread-safe
  const SampleEncoder& encoder;           // thread-safe
  const perf::BuildIdsByPath& build_ids;  // by path, for profiles
};

// One block to decode, and what decoding it gave.
struct BlockJob {
  TraceBlock block;
  std::vector<std::byte> data;            // the block's trace when it outlives its record
  bool views_input = false;               // the trace is read, after its record, from the input
  int64_t source = -1;                    // -1: formatted; else the raw trace's cpu
  TraceFlows* flows = nullptr;            // of the source, or own_flows
  std::unique_ptr<TraceFlows> own_flows;  // when no flow carries from block to block
  std::optional<TraceIdSet> ids;          // the trace ids the block may feed; nullopt: any
  std::shared_ptr<const DecodeSetup> setup;
  uint64_t model_generation = 0;  // changes of the machine model before it
  // Results, written by the lane; read once its task is done.
  absl::Status status;
  EncodedSamples samples;
  DecodeStats stats;  // packets, samples, decoder waits
  uint64_t errors = 0;
  std::string first_error;
};

class DecodeLane : private DecodeEnvironment,
                   private CodeReader,
                   private CodeLocator,
                   private SampleOutput,
                   private PacketSink {
 public:
  explicit DecodeLane(const LaneInputs& inputs) : inputs_(inputs) {}
  ~DecodeLane() override;
  DecodeLane(const DecodeLane&) = delete;
  DecodeLane& operator=(const DecodeLane&) = delete;

  // Decodes `job`'s block and writes its results into it.
  void Run(BlockJob& job);
  // kAutoFdo, kBolt: the counts of every block the lane ran; else null.
  const BranchProfile* profile() const { return profile_.get(); }

 private:
  struct KeyedDecoder {
    uint64_t generation = 0;
    std::unique_ptr<TraceDecoder> decoder;
  };
  struct KeyedFastDecoder {
    // A source whose blocks keep going back to OpenCSD (AArch32 code, say)
    // stops being tried after this many in a row, until its setup changes.
    static constexpr int kMaxRefusals = 8;
    bool set_up = false;  // generation and opencsd_only hold
    uint64_t generation = 0;
    std::unique_ptr<FastTraceDecoder> decoder;  // null: made at the next block
    int refusals = 0;                           // blocks handed back in a row
    bool opencsd_only = false;                  // the setup, or the refusals
  };
  // A page of code read from a file that is not mapped (the kernel's, a
  // module's), for the fast decoder's spans.
  struct CodePage {
    std::vector<uint8_t> bytes;
  };

  absl::Status Decode(BlockJob& job);
  absl::Status DecodeBlock(BlockJob& job);
  // The block decoded by the fast decoder; false if it is OpenCSD's.
  absl::StatusOr<bool> DecodeFast(BlockJob& job);
  absl::StatusOr<TraceDecoder*> DecoderFor(const BlockJob& job);
  // Null when the fast decoder does not take this setup.
  absl::StatusOr<FastTraceDecoder*> FastDecoderFor(const BlockJob& job);
  void DropDecoder(int64_t source);
  std::optional<machine::Map> FindMap(const PacketContext& context, uint64_t address);
  std::optional<machine::Map> LookUpMap(int32_t pid, bool kernel, uint64_t address);
  // How far the running kernel is from `code`'s link addresses (KASLR).
  uint64_t KernelSlide(const machine::Map& text, const KernelCode& code);

  // PacketSink: every packet to the synthesizer and, for profiles, to the profile.
  absl::Status Consume(std::span<const Packet> packets) override;
  // Both the synthesizer and the profile take them.
  bool TakesPaths() const override;
  absl::Status EndBlock() override;
  // DecodeEnvironment
  int32_t PidOf(int32_t tid) override;
  uint32_t ReadCode(const PacketContext& context, uint64_t address, uint32_t size,
                    uint8_t* out) override;
  // CodeReader: ReadCode's bytes, as spans.
  CodeSpan CodeAt(const PacketContext& context, uint64_t address) override;
  // The bytes `read` gives for the page of `image` at `offset` on, at most
  // `limit` of them (a page is read once, then kept).
  CodeSpan PageAt(const void* image, uint64_t offset, uint64_t limit,
                  absl::FunctionRef<uint32_t(uint64_t, uint32_t, uint8_t*)> read);
  // CodeLocator
  std::optional<CodeLocation> Locate(const PacketContext& context, uint64_t address) override;
  std::optional<uint64_t> DirectBranchTarget(const PacketContext& context, uint64_t address,
                                             Isa isa) override;
  // SampleOutput
  absl::Status Emit(const SynthesizedSample& sample) override;

  const LaneInputs inputs_;
  BlockJob* job_ = nullptr;
  std::map<int64_t, KeyedDecoder> decoders_;  // by source
  std::map<int64_t, KeyedFastDecoder> fast_decoders_;
  CodeBlockCaches code_blocks_;
  // Pages of code read so far; emptied between blocks once there are more
  // than kMaxCodePages (16 MB).
  static constexpr size_t kMaxCodePages = 4096;
  absl::flat_hash_map<std::pair<const void*, uint64_t>, CodePage> code_pages_;
  std::vector<uint8_t> scratch_;  // PageAt's bytes when a page will not do
  // The two maps found last (most recent first), for this block only.
  struct MapMemo {
    bool valid = false;
    bool kernel = false;
    int32_t pid = 0;
    machine::Map map;
  };
  std::array<MapMemo, 2> map_memos_;
  std::unique_ptr<SampleSynthesizer> synthesizer_;
  uint64_t synthesizer_generation_ = 0;  // of the setup it was made for
  std::unique_ptr<BranchProfile> profile_;
  uint64_t model_generation_ = 0;  // of the model the cache below was filled from
  int32_t cached_pid_ = -2;
  std::shared_ptr<const machine::Maps> cached_maps_;
  machine::MapsCache maps_cache_;
  machine::MapsCache kernel_cache_;
  std::optional<uint64_t> kernel_slide_;  // of the model generation above
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DECODE_LANE_H_
