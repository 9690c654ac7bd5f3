// A block whose packets outgrow what the fast decoder holds, then leaves
// the fast path: the packets already handed over stay, the source is lost
// until its next A-sync, and the error names the trace byte where it was
// lost, as OpenCSD indexes formatted trace, however the runs of frames were
// gathered into pieces for the parser.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cs_etm/fast_decoder.h"
#include "cs_etm/frame_demux.h"
#include "etm_encoder.h"
#include "gtest/gtest.h"
#include "test_sources.h"

namespace perftk::cs_etm {
namespace {

constexpr uint64_t kCodeStart = 0x400000;

// A page of `b .`: every E atom is a range of one instruction, back to it.
class Loops : public DecodeEnvironment, public CodeReader {
 public:
  Loops() : code_(4096) {
    for (size_t at = 0; at < code_.size(); at += 4) {
      const uint32_t branch_to_self = 0x14000000u;
      std::memcpy(code_.data() + at, &branch_to_self, 4);
    }
  }
  int32_t PidOf(int32_t tid) override { return tid; }
  uint32_t ReadCode(const PacketContext&, uint64_t address, uint32_t size, uint8_t* out) override {
    if (address < kCodeStart || address - kCodeStart >= code_.size()) return 0;
    const uint64_t n = std::min<uint64_t>(size, code_.size() - (address - kCodeStart));
    std::memcpy(out, code_.data() + (address - kCodeStart), n);
    return static_cast<uint32_t>(n);
  }
  CodeSpan CodeAt(const PacketContext&, uint64_t address) override {
    if (address < kCodeStart || address - kCodeStart >= code_.size()) return {};
    const uint64_t offset = address - kCodeStart;
    return CodeSpan{this, offset, std::span<const uint8_t>(code_).subspan(offset)};
  }

 private:
  std::vector<uint8_t> code_;
};

// Where Demux says the stream's byte at `position` is: OpenCSD's index.
uint64_t IndexOfStreamByte(std::span<const uint8_t> frames, uint64_t position) {
  struct Find : FrameDemuxSink {
    void Run(const FrameRun& run) override {
      if (run.trace_id != 0x10) return;
      if (wanted >= seen && wanted < seen + run.bytes.size()) index = run.index + (wanted - seen);
      seen += run.bytes.size();
    }
    void Reset(uint64_t) override {}
    uint64_t wanted = 0;
    uint64_t seen = 0;
    uint64_t index = ~uint64_t{0};
  } find;
  find.wanted = position;
  EXPECT_TRUE(Demux(frames, find));
  return find.index;
}

struct Collect : PacketSink {
  absl::Status Consume(std::span<const Packet> packets) override {
    for (const Packet& p : packets) ranges += p.kind == PacketKind::kRange;
    return absl::OkStatus();
  }
  size_t ranges = 0;
};

// What decoding `frames` (formatted, at file offset 0x10000) gave, with
// `cpus` ETMv4 sources (trace ids 0x10, 0x12, ...).
struct Decoded {
  FastTraceDecoder::Outcome outcome = FastTraceDecoder::Outcome::kNotFollowed;
  size_t ranges = 0;
  uint64_t errors = 0;
  std::string first_error;
};

Decoded DecodeFrames(const std::vector<uint8_t>& frames, uint32_t cpus,
                     size_t pieces_kept = FastTraceDecoder::kPiecesKept) {
  CsEtmInfo info;
  for (uint32_t cpu = 0; cpu < cpus; ++cpu) info.sources.push_back(EtmV44Source(cpu));
  Loops code;
  CodeBlockCaches caches;
  auto decoder = FastTraceDecoder::Create(info, {}, /*formatted=*/true, 0, code, code, caches);
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  if (!decoder.ok()) return {};
  (*decoder)->set_pieces_kept(pieces_kept);
  TraceBlock block;
  block.formatted = true;
  block.seed_tid = 7;
  block.file_offset = 0x10000;
  block.data =
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(frames.data()), frames.size());
  Collect sink;
  absl::StatusOr<FastTraceDecoder::Outcome> outcome = (*decoder)->Decode(block, sink);
  EXPECT_TRUE(outcome.ok()) << outcome.status();
  if (!outcome.ok()) return {};
  return {*outcome, sink.ranges, (*decoder)->decode_errors(), (*decoder)->first_error()};
}

// The first error names the trace byte of the 0x10 stream's byte `lost_at`,
// and then says `then`.
void ExpectLostAt(const Decoded& decoded, const std::vector<uint8_t>& frames, uint64_t lost_at,
                  const std::string& then) {
  const uint64_t index = IndexOfStreamByte(frames, lost_at);
  ASSERT_NE(index, ~uint64_t{0});
  EXPECT_NE(
      decoded.first_error.find(absl::StrFormat("at file offset %#x (trace byte %#x of the block)%s",
                                               0x10000 + index, index, then)),
      std::string::npos)
      << decoded.first_error << "; want trace byte " << absl::StrFormat("%#x", index);
}

// `one_byte_atoms`: each atom its own packet (0xf7), so that the stream
// has more runs than the decoder keeps pieces of.
void ExpectLostSourceNamedByTraceByte(size_t atoms, bool one_byte_atoms) {
  etm_gen::EtmV4Encoder e;
  e.ASync();
  e.TraceInfo();
  e.AddressWithContext(kCodeStart + 0x100, etm_gen::EtmContext{.el = 0, .context_id = 7});
  const size_t kAtoms = atoms;
  if (!one_byte_atoms) {
    for (size_t i = 0; i < kAtoms; ++i) e.Atom(true);
  }
  std::vector<uint8_t> stream = e.Take();
  if (one_byte_atoms) stream.insert(stream.end(), kAtoms, 0xf7);
  // A context in AArch32, then an atom: code the fast decoder does not
  // follow.
  e.Context(etm_gen::EtmContext{.el = 0, .context_id = 7, .sixty_four_bit = false});
  const std::vector<uint8_t> context = e.Take();
  stream.insert(stream.end(), context.begin(), context.end());
  const uint64_t lost_at = stream.size();
  stream.push_back(0xf7);  // one E atom
  // More trace after it: the decoder waits for an A-sync.
  for (int i = 0; i < 40; ++i) stream.push_back(0xf7);

  etm_gen::FrameFormatter formatter;
  formatter.Add(0x10, stream);
  const std::vector<uint8_t> frames = formatter.Finish();
  const Decoded decoded = DecodeFrames(frames, 1);
  // Too late to hand the block back: decoded, with an error.
  EXPECT_EQ(decoded.outcome, FastTraceDecoder::Outcome::kDecoded);
  EXPECT_EQ(decoded.ranges, kAtoms);
  EXPECT_EQ(decoded.errors, 1u);
  ExpectLostAt(decoded, frames, lost_at, ": AArch32 code");
}

TEST(FastTraceDecoder, ASourceLostAfterItsPacketsWentOutIsNamedByTraceByte) {
  ExpectLostSourceNamedByTraceByte(FastTraceDecoder::kMaxHeld + 5000, false);
}

TEST(FastTraceDecoder, ASourceLostAfterThousandsOfRunsIsNamedByTraceByte) {
  // 60,000 bytes in frames of 15: 4,000 runs, past the pieces kept.
  ExpectLostSourceNamedByTraceByte(60000, true);
}

TEST(FastTraceDecoder, APacketLostAcrossPiecesIsNamedByItsFirstByte) {
  // Atoms enough to spill, then 9-byte long addresses and no atom until
  // too many elements wait. A second trace id takes a byte after every 7
  // of the first, so each piece parsed is one run of 5 to 7 bytes: the
  // packet that leaves the fast path starts in one piece and ends in the
  // next, after the decoder forgot the runs before (every 1,024 pieces).
  for (size_t atoms = FastTraceDecoder::kMaxHeld + 100; atoms < FastTraceDecoder::kMaxHeld + 103;
       ++atoms) {
    SCOPED_TRACE(atoms);
    etm_gen::EtmV4Encoder e;
    e.ASync();
    e.TraceInfo();
    e.AddressWithContext(kCodeStart + 0x100, etm_gen::EtmContext{.el = 0, .context_id = 7});
    std::vector<uint8_t> stream = e.Take();
    stream.insert(stream.end(), atoms, 0xf7);
    // The address packets: the first 2^16 wait, the next is one too many.
    const uint64_t lost_at = stream.size() + Etm4Decoder::kMaxWaiting * 9;
    for (size_t i = 0; i <= Etm4Decoder::kMaxWaiting + 2; ++i) {
      stream.push_back(0x9d);  // long address, 64 bits, IS0
      stream.insert(stream.end(), 8, 0x00);
    }
    etm_gen::FrameFormatter formatter;
    for (size_t at = 0; at < stream.size(); at += 7) {
      formatter.Add(0x10, std::vector<uint8_t>(stream.begin() + static_cast<ptrdiff_t>(at),
                                               stream.begin() + static_cast<ptrdiff_t>(std::min(
                                                                    at + 7, stream.size()))));
      formatter.Add(0x12, {0x55});  // never synchronized
    }
    const std::vector<uint8_t> frames = formatter.Finish();
    // And with the runs forgotten at every piece: the one holding the
    // lost packet's first byte must stay.
    for (const size_t kept : {FastTraceDecoder::kPiecesKept, size_t{2}}) {
      SCOPED_TRACE(kept);
      const Decoded decoded = DecodeFrames(frames, 2, kept);
      EXPECT_EQ(decoded.outcome, FastTraceDecoder::Outcome::kDecoded);
      ExpectLostAt(decoded, frames, lost_at, ": more trace elements wait");
    }
  }
}

}  // namespace
}  // namespace perftk::cs_etm
