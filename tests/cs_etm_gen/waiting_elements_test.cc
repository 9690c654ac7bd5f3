// Trace that never commits what it says (a few hundred MB of address
// packets and no atom, or more speculation than the trace unit has) must
// not make either decoder hold it all: the fast decoder hands the block
// back past Etm4Decoder::kMaxWaiting elements, and OpenCSD is not given a
// block whose bound (waiting_elements.h) passes its limit.
#include "cs_etm/waiting_elements.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cs_etm/decoder.h"
#include "cs_etm/fast_decoder.h"
#include "cs_etm/opencsd_guard.h"
#include "etm_encoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_sources.h"

namespace perftk::cs_etm {
namespace {

using ::testing::HasSubstr;

constexpr uint8_t kExactMatchAddress = 0x90;  // one byte: the last address again
constexpr uint8_t kEAtom = 0xf7;
constexpr uint64_t kCode = 0x400000;

// A-sync, trace info, an address with context: a synchronized stream.
std::vector<uint8_t> SyncedStart() {
  etm_gen::EtmV4Encoder e;
  e.ASync();
  e.TraceInfo();
  e.AddressWithContext(kCode, etm_gen::EtmContext{.el = 0, .context_id = 7});
  return e.Take();
}

std::vector<uint8_t> Frames(const std::vector<uint8_t>& stream) {
  etm_gen::FrameFormatter formatter;
  formatter.Add(0x10, stream);
  return formatter.Finish();
}

CsEtmInfo OneSource(uint32_t spec_depth = 0) {
  CsEtmInfo info;
  info.sources.push_back(EtmV44Source(0, spec_depth));
  return info;
}

TEST(WaitingElementsGuard, RefusesWhereTheBoundPassesTheLimit) {
  std::vector<uint8_t> stream = SyncedStart();
  const uint64_t first = stream.size();
  stream.insert(stream.end(), 200000, kExactMatchAddress);
  WaitingElementsGuard guard(OneSource(), {}, /*formatted=*/false, 0);
  auto refusal = guard.Check(stream);
  ASSERT_TRUE(refusal.has_value());
  // With no speculation, what waits is the run being read and one as long
  // as the longest before it (none): 2 x run + 1 passes 2^18 at run 2^17,
  // counting the A-sync, the trace info and the address before the others.
  EXPECT_EQ(refusal->index, first + (uint64_t{1} << 17) - 4);
  EXPECT_THAT(refusal->why, HasSubstr("could wait for a commit"));
}

TEST(WaitingElementsGuard, LetsTraceWithAtomsThrough) {
  std::vector<uint8_t> stream = SyncedStart();
  for (int i = 0; i < 400; ++i) {
    stream.insert(stream.end(), 1000, kExactMatchAddress);
    stream.push_back(kEAtom);
  }
  WaitingElementsGuard guard(OneSource(), {}, /*formatted=*/false, 0);
  EXPECT_FALSE(guard.Check(stream).has_value());
}

TEST(WaitingElementsGuard, SpeculationMultipliesTheRuns) {
  // 1000 packets between atoms: (4 + 1) runs of them fit, (300 + 1) do not.
  std::vector<uint8_t> stream = SyncedStart();
  for (int i = 0; i < 400; ++i) {
    stream.insert(stream.end(), 1000, kExactMatchAddress);
    stream.push_back(kEAtom);
  }
  WaitingElementsGuard shallow(OneSource(4), {}, /*formatted=*/false, 0);
  EXPECT_FALSE(shallow.Check(stream).has_value());
  WaitingElementsGuard deep(OneSource(300), {}, /*formatted=*/false, 0);
  EXPECT_TRUE(deep.Check(stream).has_value());
}

TEST(WaitingElementsGuard, RefusesSpeculationOpenCsdTakesForNegative) {
  std::vector<uint8_t> stream(11, 0x00);
  stream.push_back(0x80);  // A-sync
  // A trace info whose speculation section says 2^31 (7 bits a byte).
  stream.insert(stream.end(), {0x01, 0x04, 0x80, 0x80, 0x80, 0x80, 0x08});
  WaitingElementsGuard guard(OneSource(4), {}, /*formatted=*/false, 0);
  auto refusal = guard.Check(stream);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->index, 12u);
  EXPECT_THAT(refusal->why, HasSubstr("says 2147483648 elements are speculative"));
  // More than TRCIDR8's 4, yet counted: OpenCSD commits what is not there.
  std::vector<uint8_t> five(11, 0x00);
  five.insert(five.end(), {0x80, 0x01, 0x04, 0x05});
  EXPECT_FALSE(guard.Check(five).has_value());
}

TEST(WaitingElementsGuard, FourFrameSyncsStartTheRunsAgain) {
  std::vector<uint8_t> half = SyncedStart();
  half.insert(half.end(), 100000, kExactMatchAddress);
  const std::vector<uint8_t> frames = Frames(half);
  std::vector<uint8_t> reset_between = frames;
  for (int i = 0; i < 4; ++i) reset_between.insert(reset_between.end(), {0xff, 0xff, 0xff, 0x7f});
  reset_between.insert(reset_between.end(), frames.begin(), frames.end());
  WaitingElementsGuard guard(OneSource(), {}, /*formatted=*/true, 0);
  EXPECT_FALSE(guard.Check(reset_between).has_value());
  // Without the reset the second half's A-sync does not empty the stack.
  std::vector<uint8_t> together = half;
  together.insert(together.end(), half.begin(), half.end());
  EXPECT_TRUE(guard.Check(Frames(together)).has_value());
}

TEST(WaitingElementsGuard, ReadsTheWholeFramesOfABlockDemuxRefuses) {
  std::vector<uint8_t> stream = SyncedStart();
  stream.insert(stream.end(), 200000, kExactMatchAddress);
  std::vector<uint8_t> frames = Frames(stream);
  // One frame sync and 12 bytes: a frame cut short, which OpenCSD reads
  // past the block; the frames before it are still OpenCSD's to decode.
  frames.insert(frames.end(), {0xff, 0xff, 0xff, 0x7f});
  frames.insert(frames.end(), 12, 0x00);
  WaitingElementsGuard guard(OneSource(), {}, /*formatted=*/true, 0);
  EXPECT_TRUE(guard.Check(frames).has_value());
}

class NoCode : public DecodeEnvironment, public CodeReader {
 public:
  int32_t PidOf(int32_t tid) override { return tid; }
  uint32_t ReadCode(const PacketContext&, uint64_t, uint32_t, uint8_t*) override { return 0; }
  CodeSpan CodeAt(const PacketContext&, uint64_t) override { return {}; }
};

struct Count : PacketSink {
  absl::Status Consume(std::span<const Packet> packets) override {
    count += packets.size();
    return absl::OkStatus();
  }
  size_t count = 0;
};

TraceBlock RawBlock(const std::vector<uint8_t>& bytes) {
  TraceBlock block;
  block.cpu = 0;
  block.formatted = false;
  block.file_offset = 0x1000;
  block.data =
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  return block;
}

// Decodes raw `stream` with the fast decoder; expects it handed back
// untouched, for a reason that says `why`.
void ExpectHandedBack(const std::vector<uint8_t>& stream, const std::string& why) {
  NoCode code;
  CodeBlockCaches caches;
  auto decoder =
      FastTraceDecoder::Create(OneSource(), {}, /*formatted=*/false, 0, code, code, caches);
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  Count sink;
  auto outcome = (*decoder)->Decode(RawBlock(stream), sink);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(*outcome, FastTraceDecoder::Outcome::kNotFollowed);
  EXPECT_THAT((*decoder)->not_followed_why(), HasSubstr(why));
  EXPECT_EQ(sink.count, 0u);
}

TEST(WaitingElements, TheFastDecoderHandsBackTraceThatNeverCommits) {
  std::vector<uint8_t> stream = SyncedStart();
  stream.insert(stream.end(), Etm4Decoder::kMaxWaiting + 10, kExactMatchAddress);
  ExpectHandedBack(stream, "wait for a commit");
}

TEST(WaitingElements, TheFastDecoderHandsBackANegativeSpeculationDepth) {
  std::vector<uint8_t> stream(11, 0x00);
  stream.push_back(0x80);
  stream.insert(stream.end(), {0x01, 0x04, 0x80, 0x80, 0x80, 0x80, 0x08});
  const std::vector<uint8_t> rest = SyncedStart();
  stream.insert(stream.end(), rest.begin() + 14, rest.end());  // its address
  stream.push_back(kEAtom);
  ExpectHandedBack(stream, "2^31 or more");
}

TEST(WaitingElements, OpenCsdIsNotGivenTraceThatNeverCommits) {
  std::vector<uint8_t> stream = SyncedStart();
  const uint64_t first = stream.size();
  stream.insert(stream.end(), 300000, kExactMatchAddress);
  NoCode code;
  auto decoder = TraceDecoder::Create(OneSource(), {}, /*formatted=*/false, 0, code);
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  Count sink;
  ASSERT_TRUE((*decoder)->Decode(RawBlock(stream), sink).ok());
  EXPECT_EQ(sink.count, 0u);
  EXPECT_EQ((*decoder)->decode_errors(), 1u);
  const uint64_t index = first + (uint64_t{1} << 17) - 4;  // as the test above says
  EXPECT_THAT((*decoder)->first_error(),
              HasSubstr(absl::StrFormat("at file offset %#x (trace byte %#x of the block)",
                                        0x1000 + index, index)));
  EXPECT_THAT((*decoder)->first_error(), HasSubstr("is not decoded"));
  // The next block is decoded as before.
  std::vector<uint8_t> fine = SyncedStart();
  fine.push_back(kEAtom);
  ASSERT_TRUE((*decoder)->Decode(RawBlock(fine), sink).ok());
  EXPECT_EQ((*decoder)->decode_errors(), 1u);
  EXPECT_GT(sink.count, 0u);
}

// What OpenCSD deletes while it decodes a block is held until the block's
// trace ends (opencsd_guard.h): past the bound, in raw trace, the decoder
// ends the trace where it is, frees them, and decodes again from the next
// sync point.

// The most deletes held, seen at each packet (batches of one packet), and
// the packets other than discontinuities.
struct HeldWatch : PacketSink {
  absl::Status Consume(std::span<const Packet> packets) override {
    for (const Packet& packet : packets) count += packet.kind != PacketKind::kDiscontinuity;
    max_held = std::max(max_held, HeldByGuard());
    return absl::OkStatus();
  }
  size_t count = 0;
  size_t max_held = 0;
};

// Decodes `block` of `info`'s sources with OpenCSD, holding at most
// `max_held` deletes (0: the default bound) into `sink`; the decode
// errors, and the first.
std::pair<uint64_t, std::string> DecodeHolding(const CsEtmInfo& info, const TraceBlock& block,
                                               size_t max_held, HeldWatch& sink,
                                               bool end_every_piece = false) {
  NoCode code;
  auto decoder = TraceDecoder::Create(info, {}, block.formatted, 0, code, /*batch_size=*/1);
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  if (!decoder.ok()) return {};
  if (max_held != 0) (*decoder)->set_held_bounds(max_held, 256, end_every_piece);
  EXPECT_TRUE((*decoder)->Decode(block, sink).ok());
  EXPECT_EQ(HeldByGuard(), 0u);  // freed when the block ends
  return {(*decoder)->decode_errors(), (*decoder)->first_error()};
}

// 300 synchronized starts, each with 100 E atoms: every atom an element
// OpenCSD makes and deletes (without code, each start's first atom is a
// range it cannot read). 38,400 bytes.
std::vector<uint8_t> ManyStarts() {
  std::vector<uint8_t> stream;
  for (int i = 0; i < 300; ++i) {
    const std::vector<uint8_t> start = SyncedStart();
    stream.insert(stream.end(), start.begin(), start.end());
    stream.insert(stream.end(), 100, kEAtom);
  }
  return stream;
}

TEST(OpenCsdHeldDeletes, PastTheBoundRawTraceIsEndedAndDecodedAgain) {
  if (!GuardHoldsDeletes()) GTEST_SKIP() << "this build frees what OpenCSD deletes at once";
  const std::vector<uint8_t> stream = ManyStarts();
  HeldWatch all;
  const auto [errors, first_error] = DecodeHolding(OneSource(), RawBlock(stream), 0, all);
  EXPECT_EQ(errors, 0u) << first_error;
  EXPECT_GT(all.max_held, 20000u);  // it grows with the block
  EXPECT_GE(all.count, 300u);       // a range it cannot read a start

  HeldWatch some;
  const auto [cuts, why] = DecodeHolding(OneSource(), RawBlock(stream), 1000, some);
  // At most the bound and what one piece of 256 bytes makes held.
  EXPECT_LE(some.max_held, 1000u + 4 * 256) << all.max_held;
  EXPECT_GT(cuts, 10u);
  EXPECT_THAT(why, testing::MatchesRegex(
                       "OpenCSD decode at file offset 0x[0-9a-f]+ \\(trace byte 0x[0-9a-f]+ of "
                       "the block\\) of cpu 0: the block \\(38400 bytes\\) made OpenCSD hold "
                       "more than 1000 freed objects, so its trace was ended there and decoded "
                       "again from the next sync point"));
  // Each end loses the trace up to the next start: at most that start's
  // packet (without code, made by its first atom alone).
  EXPECT_LE(some.count, all.count);
  EXPECT_GE(some.count + cuts, all.count);

  // Formatted trace of one source: its frames name it only in the first,
  // so the reset deformatter is told again.
  HeldWatch one;
  const std::vector<uint8_t> frame_bytes = Frames(stream);
  TraceBlock frames = RawBlock(frame_bytes);
  frames.formatted = true;
  const auto [one_ends, one_where] = DecodeHolding(OneSource(), frames, 1000, one);
  EXPECT_GT(one_ends, 10u);
  EXPECT_THAT(one_where, HasSubstr("made OpenCSD hold more than 1000 freed objects"));
  EXPECT_LE(one.max_held, 1000u + 4 * 256);
  // An end loses at most the start it falls in (its packet, if the end
  // comes before the start's first atom).
  EXPECT_LE(one.count, all.count);
  EXPECT_GE(one.count + one_ends, all.count);

  // Two sources, 40 bytes of each in turn: both decode again.
  CsEtmInfo two = OneSource();
  two.sources.push_back(EtmV44Source(1));
  etm_gen::FrameFormatter formatter;
  for (size_t at = 0; at < stream.size(); at += 40) {
    const std::vector<uint8_t> chunk(stream.begin() + at,
                                     stream.begin() + std::min(at + 40, stream.size()));
    formatter.Add(two.sources[0].trace_id(), chunk);
    formatter.Add(two.sources[1].trace_id(), chunk);
  }
  const std::vector<uint8_t> mixed_bytes = formatter.Finish();
  TraceBlock mixed = RawBlock(mixed_bytes);
  mixed.formatted = true;
  HeldWatch both;
  const auto [both_errors, both_error] = DecodeHolding(two, mixed, 0, both);
  EXPECT_EQ(both_errors, 0u) << both_error;
  EXPECT_EQ(both.count, 2 * all.count);
  HeldWatch ended;
  const auto [ends, where] = DecodeHolding(two, mixed, 1000, ended);
  EXPECT_GT(ends, 10u);
  EXPECT_THAT(where, HasSubstr("made OpenCSD hold more than 1000 freed objects"));
  EXPECT_LE(ended.max_held, 1000u + 4 * 256) << both.max_held;
  EXPECT_LE(ended.count, both.count);
  EXPECT_GE(ended.count + 2 * ends, both.count);  // a start of each source
}

// The way there in every build (sanitizers' included, where nothing is
// held): the trace ended after every piece of 256 bytes, raw and formatted
// of one source, decodes again after each end and loses at most a start an
// end.
TEST(OpenCsdHeldDeletes, EndingTheTraceAfterEveryPieceDecodesAgain) {
  const std::vector<uint8_t> stream = ManyStarts();
  HeldWatch all;
  const auto [errors, first_error] = DecodeHolding(OneSource(), RawBlock(stream), 0, all);
  EXPECT_EQ(errors, 0u) << first_error;

  HeldWatch raw;
  const auto [raw_ends, raw_where] =
      DecodeHolding(OneSource(), RawBlock(stream), SIZE_MAX, raw, /*end_every_piece=*/true);
  // 38,400 bytes: an end at the first call past every 256 bytes.
  EXPECT_GE(raw_ends, stream.size() / 256 - 10);
  EXPECT_LE(raw_ends, stream.size() / 256);
  EXPECT_THAT(raw_where,
              testing::MatchesRegex(
                  "OpenCSD decode at file offset 0x[0-9a-f]+ \\(trace byte 0x1[0-9a-f]{2} "
                  "of the block\\) of cpu 0: the block \\(38400 bytes\\) was asked to "
                  "end its trace every 256 bytes, so its trace was ended there and "
                  "decoded again from the next sync point"));
  EXPECT_LE(raw.count, all.count);
  EXPECT_GE(raw.count + raw_ends, all.count);

  const std::vector<uint8_t> frame_bytes = Frames(stream);
  TraceBlock frames = RawBlock(frame_bytes);
  frames.formatted = true;
  HeldWatch formatted;
  const auto [ends, where] =
      DecodeHolding(OneSource(), frames, SIZE_MAX, formatted, /*end_every_piece=*/true);
  // At the frame boundary at or after each 256 bytes.
  EXPECT_GE(ends, frame_bytes.size() / (256 + 16) - 2) << where;
  EXPECT_LE(ends, frame_bytes.size() / 256) << where;
  EXPECT_LE(formatted.count, all.count);
  EXPECT_GE(formatted.count + ends, all.count);
}

}  // namespace
}  // namespace perftk::cs_etm
