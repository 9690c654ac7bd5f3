// libFuzzer target: the decoder entry of cs-etm-decode. A fixed, valid
// metadata (the registers of real recordings: ETMv4 formatted, ETE raw) and
// fuzzed trace bytes go through TraceDecoder, the sample synthesizer and the
// branch profile, as one block of cs-etm-decode.
//
// It is also the fast decoder's differential fuzzer (issue 29): a block
// goes through FastTraceDecoder as well, which must never crash or
// hang, and, when it does not hand the block back (as it does on the
// decode errors it leaves to OpenCSD), must make exactly OpenCSD's packets;
// blocks on which OpenCSD crashed (caught by opencsd_guard.h) are not
// compared. The same block is decoded twice more: after the first (the
// decoder resets), and ending the trace every 64 bytes (the path of blocks
// that make OpenCSD hold too much).
//
// Input: byte 0 chooses the mode (bit 0: formatted, bit 1: ETE instead of
// ETMv4, bits 2-3: packet batch size 1, 7, 64 or 1024, bit 4: a speculation
// depth of 4; on ETE, bit 5: transaction starts are not P0 (COMMTRANS),
// bit 6: ETE 1.0, whose timestamps need no marker); byte 1 times 4 is
// the length of the code that follows, which the program image holds at
// kCodeBase (the trace may run through it); the rest is the trace.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cs_etm/a64_branch.h"
#include "cs_etm/code_blocks.h"
#include "cs_etm/decoder.h"
#include "cs_etm/etm4_decoder.h"
#include "cs_etm/fast_decoder.h"
#include "cs_etm/frame_scan.h"
#include "cs_etm/itrace.h"
#include "cs_etm/metadata.h"
#include "cs_etm/opencsd_guard.h"
#include "cs_etm/profile.h"
#include "cs_etm/synthesizer.h"
#include "cs_etm/trace_blocks.h"
#include "machine/dso.h"

namespace {

using namespace perftk::cs_etm;  // NOLINT: a fuzz target's glue

// etm_test_loop's text in the simpleperf recordings.
constexpr uint64_t kCodeBase = 0x582b2b1000;

// CPU 1 has the trace id of the CPU perf_etm.data traced, so that the
// formatted seeds (cs_etm_seeds.py) decode; CPU 0 that of its CPU 0.
uint64_t TraceIdOfCpu(uint32_t cpu) { return cpu == 0 ? 0x10 : 0x1e; }

TraceSource EtmV4Source(uint32_t cpu, uint32_t spec_depth) {
  TraceSource source;
  source.protocol = TraceProtocol::kEtmV4;
  source.cpu = cpu;
  source.trcconfigr = 0x40;
  source.trctraceidr = TraceIdOfCpu(cpu);
  source.trcidr0 = 0x28000ea1;
  source.trcidr1 = 0x4100f422;
  source.trcidr2 = 0x20001088;
  source.trcidr8 = spec_depth;
  source.trcauthstatus = 0x8c;
  return source;
}

// The unit of simpleperf's ETE recording: ETE 1.1 with timestamp markers
// (TRCIDR0.TSMARK), transaction starts as P0 elements (COMMTRANS 0).
TraceSource EteSource(uint32_t cpu, uint32_t spec_depth, bool commit_transactions, bool ete_1_0) {
  TraceSource source;
  source.protocol = TraceProtocol::kEte;
  source.cpu = cpu;
  source.trcconfigr = 0x8080;
  source.trctraceidr = TraceIdOfCpu(cpu);
  source.trcidr0 = 0x288006a1 | (commit_transactions ? 1u << 30 : 0);
  source.trcidr1 = 0x4100fff0;
  source.trcidr2 = 0xc0001088;
  source.trcidr8 = spec_depth;
  source.trcauthstatus = 0xcc;
  source.trcdevarch = ete_1_0 ? 0x47705a13 : 0x47715a13;
  return source;
}

class Image : public DecodeEnvironment, public CodeReader, public CodeLocator, public SampleOutput {
 public:
  explicit Image(std::span<const uint8_t> code) : code_(code) { dso_.name = "/fuzz/image"; }

  int32_t PidOf(int32_t tid) override { return tid; }
  uint32_t ReadCode(const PacketContext&, uint64_t address, uint32_t size, uint8_t* out) override {
    if (address < kCodeBase || address - kCodeBase >= code_.size()) return 0;
    uint64_t offset = address - kCodeBase;
    uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(size, code_.size() - offset));
    std::memcpy(out, code_.data() + offset, n);
    return n;
  }
  CodeSpan CodeAt(const PacketContext&, uint64_t address) override {
    if (address < kCodeBase || address - kCodeBase >= code_.size()) return {};
    const uint64_t offset = address - kCodeBase;
    return CodeSpan{this, offset, code_.subspan(offset)};
  }
  std::optional<CodeLocation> Locate(const PacketContext&, uint64_t address) override {
    if (address < kCodeBase || address - kCodeBase >= code_.size()) return std::nullopt;
    return CodeLocation{&dso_, address - kCodeBase + 0x1000};
  }
  std::optional<uint64_t> DirectBranchTarget(const PacketContext& context, uint64_t address,
                                             Isa isa) override {
    uint8_t word[4];
    if (isa != Isa::kA64 || ReadCode(context, address, 4, word) != 4) return std::nullopt;
    return A64DirectBranchTarget(word[0] | word[1] << 8 | word[2] << 16 | uint32_t{word[3]} << 24,
                                 address);
  }
  absl::Status Emit(const SynthesizedSample& sample) override {
    if (sample.branches.size() > 16) abort();  // l16 caps the stack
    ++samples_;
    return absl::OkStatus();
  }

 private:
  std::span<const uint8_t> code_;
  perftk::machine::Dso dso_;
  uint64_t samples_ = 0;
};

// Feeds the synthesizer and the profile, as cs-etm-decode's lanes do, and
// checks that no packet but an idle decoder's end of trace carries an id
// outside `ids` (what the frame scan found): cs-etm-decode's parallel lanes
// rely on it.
class Tee : public PacketSink {
 public:
  Tee(SampleSynthesizer& synthesizer, BranchProfile& profile, std::optional<TraceIdSet> ids)
      : synthesizer_(synthesizer), profile_(profile), ids_(ids) {}
  absl::Status Consume(std::span<const Packet> packets) override {
    for (const Packet& packet : packets) {
      made.push_back(packet);
      if (ids_ && !ids_->test(packet.trace_id) && packet.kind != PacketKind::kDiscontinuity) {
        fprintf(stderr, "packet of trace id 0x%x that the frame scan did not find\n",
                packet.trace_id);
        abort();
      }
    }
    if (absl::Status s = synthesizer_.Consume(packets); !s.ok()) return s;
    return profile_.Consume(packets);
  }
  absl::Status EndBlock() override {
    if (absl::Status s = synthesizer_.EndBlock(); !s.ok()) return s;
    return profile_.EndBlock();
  }
  std::vector<Packet> made;  // every packet, for the fast decoder's check

 private:
  SampleSynthesizer& synthesizer_;
  BranchProfile& profile_;
  std::optional<TraceIdSet> ids_;
};

// The packets of a block, as a sink; it takes replayed paths (kPath) and
// keeps the packets they stand for, as the profile and the synthesizer
// read them.
struct Collect : PacketSink {
  bool TakesPaths() const override { return true; }
  absl::Status Consume(std::span<const Packet> packets) override {
    for (const Packet& packet : packets) {
      if (packet.kind == PacketKind::kPath) {
        AppendReplayed(packet.path(), packet.context, packet.cs_timestamp, made);
      } else {
        made.push_back(packet);
      }
    }
    return absl::OkStatus();
  }
  std::vector<Packet> made;
};

// Where a direct branch goes: the fast decoder's packets say so, OpenCSD's
// leave it to the code.
std::optional<uint64_t> TargetOf(const Packet& p, Image& image) {
  if (p.has_branch_target) return p.branch_target;
  if (p.last_branch != BranchKind::kDirect) return std::nullopt;
  return image.DirectBranchTarget(p.context, p.last_address(), p.isa);
}

bool Same(const Packet& a, const Packet& b, Image& image) {
  return TargetOf(a, image) == TargetOf(b, image) && a.kind == b.kind && a.isa == b.isa &&
         a.last_branch == b.last_branch && a.last_taken == b.last_taken &&
         a.last_cond == b.last_cond && a.last_size == b.last_size && a.trace_id == b.trace_id &&
         a.instr_count == b.instr_count && a.exception_number == b.exception_number &&
         a.start == b.start && a.end == b.end && a.cs_timestamp == b.cs_timestamp &&
         a.context == b.context;
}

// The fast decoder on `block`, against OpenCSD's `want`.
void CheckFastDecoder(const CsEtmInfo& info, const std::map<uint32_t, uint8_t>& trace_ids,
                      bool formatted, Image& image, const TraceBlock& block,
                      const std::vector<Packet>& want) {
  CodeBlockCaches caches;
  auto fast = FastTraceDecoder::Create(info, trace_ids, formatted, 0, image, image, caches);
  if (!fast.ok()) {
    fprintf(stderr, "%s\n", std::string(fast.status().message()).c_str());
    abort();
  }
  Collect got;
  absl::StatusOr<FastTraceDecoder::Outcome> outcome = (*fast)->Decode(block, got);
  if (!outcome.ok()) abort();  // the sink never fails
  if (*outcome == FastTraceDecoder::Outcome::kNotFollowed) {
    if (!got.made.empty()) {
      fprintf(stderr, "the fast decoder handed back a block after making packets of it\n");
      abort();
    }
    return;
  }
  size_t i = 0;
  while (i < got.made.size() && i < want.size() && Same(got.made[i], want[i], image)) ++i;
  if (i == got.made.size() && i == want.size()) return;
  fprintf(stderr, "the fast decoder's packet %zu differs (fast %zu packets, OpenCSD %zu):\n", i,
          got.made.size(), want.size());
  auto print = [](const char* who, const std::vector<Packet>& packets, size_t j) {
    if (j >= packets.size()) return;
    const Packet& p = packets[j];
    fprintf(stderr, "  %zu %s: kind %d id %#x [%#lx,%#lx) n %u branch %d taken %d ctx %d/%d/%d\n",
            j, who, static_cast<int>(p.kind), p.trace_id, static_cast<unsigned long>(p.start),
            static_cast<unsigned long>(p.end), p.instr_count, static_cast<int>(p.last_branch),
            p.last_taken, p.context.pid, p.context.tid, p.context.el);
  };
  for (size_t j = i >= 4 ? i - 4 : 0; j < i + 3; ++j) {
    print("fast", got.made, j);
    print("OpenCSD", want, j);
  }
  abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  QuietOpenCsdErrorLog();
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  const bool formatted = mode & 1;
  const bool ete = mode & 2;
  static constexpr size_t kBatches[] = {1, 7, 64, 1024};
  const size_t batch = kBatches[(mode >> 2) & 3];
  const uint32_t spec_depth = mode & 0x10 ? 4 : 0;
  const size_t code_size = std::min<size_t>(size_t{data[1]} * 4, size - 2);
  std::span<const uint8_t> code(data + 2, code_size);
  std::vector<std::byte> trace(reinterpret_cast<const std::byte*>(data + 2 + code_size),
                               reinterpret_cast<const std::byte*>(data + size));

  CsEtmInfo info;
  info.version = 1;
  std::map<uint32_t, uint8_t> trace_ids;
  for (uint32_t cpu = 0; cpu < 2; ++cpu) {
    info.sources.push_back(ete ? EteSource(cpu, spec_depth, mode & 0x20, mode & 0x40)
                               : EtmV4Source(cpu, spec_depth));
    trace_ids[cpu] = info.sources.back().trace_id();
  }
  Image image(code);
  auto decoder = TraceDecoder::Create(info, trace_ids, formatted, 0, image, batch);
  if (!decoder.ok()) {  // the metadata is valid
    fprintf(stderr, "%s\n", std::string(decoder.status().message()).c_str());
    abort();
  }

  std::map<uint8_t, uint32_t> cpu_of_trace_id;
  for (const auto& [cpu, id] : trace_ids) cpu_of_trace_id[id] = cpu;
  ItraceOptions itrace = *ParseItrace("i10il16b");
  SampleSynthesizer synthesizer(itrace, cpu_of_trace_id, image, image);
  BranchProfile profile(image);
  std::optional<TraceIdSet> ids;
  if (formatted) {
    ids = TraceIdsOfFrames(perftk::base::Bytes(trace));
    if (ids) {
      TraceIdSet known;
      for (const TraceSource& source : info.sources) known.set(DecoderTraceId(source, trace_ids));
      *ids &= known;
    }
  }
  Tee tee(synthesizer, profile, ids);

  TraceBlock block;
  block.cpu = 0;
  block.formatted = formatted;
  block.seed_pid = 100;
  block.seed_tid = 101;
  block.data = perftk::base::Bytes(trace);
  synthesizer.BeginBlock(kNoCpu, 1);
  const bool decoded = (*decoder)->Decode(block, tee).ok();
  // Compared where OpenCSD decoded the block (a fatal error, which ends a
  // cs-etm-decode run, or a crash are not outputs to compare with).
  if (batch == 1024 && decoded &&
      (*decoder)->first_error().find("OpenCSD crashed") == std::string::npos) {
    CheckFastDecoder(info, trace_ids, formatted, image, block, tee.made);
  }
  // A second block through the same decoder: it must reset cleanly.
  synthesizer.BeginBlock(kNoCpu, 2);
  (void)(*decoder)->Decode(block, tee);
  // And a third whose trace is ended, OpenCSD reset and (formatted) told its
  // source again every 64 bytes, as past the bound of what OpenCSD holds.
  (*decoder)->set_held_bounds(SIZE_MAX, 64, /*end_every_piece=*/true);
  synthesizer.BeginBlock(kNoCpu, 3);
  (void)(*decoder)->Decode(block, tee);
  (void)profile.AutoFdoText();
  for (const auto& entry : profile.binaries()) (void)profile.BoltText(entry.first);
  return 0;
}
