#include "aslr/aslr_tool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../testing/collecting_sink.h"
#include "base/warnings.h"
#include "perf/sample.h"
#include "pipeline/tool_feed.h"

namespace perftk::aslr {
namespace {

using Collect = testing::CollectingSink;

constexpr uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;

perf::EventAttr Attr(uint64_t sample_type, uint32_t type = PERF_TYPE_SOFTWARE) {
  perf::EventAttr attr;
  attr.SetU32(attr_offset::kType, type);
  attr.set_sample_type(sample_type);
  attr.SetU64(attr_offset::kFlags, 1ULL << kAttrFlagSampleIdAll);
  attr.ids() = {7};
  return attr;
}

std::vector<std::byte> RecordBytes(uint32_t type, uint16_t misc,
                                   const std::vector<std::byte>& body) {
  absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(type, misc, body);
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

// MMAP2 of `filename` for pid 42, with the sample_id trailer of `attr`.
std::vector<std::byte> Mmap2(const perf::EventAttr& attr, uint16_t misc, int32_t pid,
                             uint64_t start, uint64_t len, uint64_t pgoff,
                             const std::string& filename) {
  std::vector<std::byte> body;
  base::Append(body, static_cast<uint32_t>(pid));
  base::Append(body, static_cast<uint32_t>(pid));
  base::Append(body, start);
  base::Append(body, len);
  base::Append(body, pgoff);
  base::Append(body, uint32_t{254});   // maj
  base::Append(body, uint32_t{0});     // min
  base::Append(body, uint64_t{1234});  // ino
  base::Append(body, uint64_t{0});     // ino_generation
  base::Append(body, uint32_t{5});     // prot r-x
  base::Append(body, uint32_t{2});     // flags MAP_PRIVATE
  std::vector<std::byte> name(base::AlignUp(filename.size() + 1, 8));
  std::memcpy(name.data(), filename.data(), filename.size());
  base::AppendBytes(body, name);
  perf::SampleId id;
  id.pid = id.tid = pid;
  perf::EncodeSampleId(perf::SampleFormat::Of(attr), id, body);
  return RecordBytes(PERF_RECORD_MMAP2, misc, body);
}

std::vector<std::byte> SampleRecord(const perf::EventAttr& attr, uint16_t misc,
                                    const perf::Sample& sample) {
  std::vector<std::byte> body;
  perf::EncodeSample(perf::SampleFormat::Of(attr), sample, body);
  return RecordBytes(PERF_RECORD_SAMPLE, misc, body);
}

class AslrToolTest : public ::testing::Test {
 protected:
  void Start(perf::EventAttr attr) {
    header_.events = perf::EventList({attr});
    attr_ = attr;
    ASSERT_TRUE(tool_.Begin(header_).ok());
  }
  absl::Status Feed(const std::vector<std::byte>& bytes) {
    return feed_.Process(perf::Record(bytes, offset_++ * 0x100), out_);
  }
  perf::Sample LastSample() {
    absl::StatusOr<perf::Sample> s =
        perf::DecodeSample(header_.events.format(0), out_.records.back().view().body());
    EXPECT_TRUE(s.ok()) << s.status();
    return *s;
  }

  AslrTool tool_;
  pipeline::ToolFeed feed_{tool_};  // keeps the model, as the pipeline does
  perf::Header header_;
  perf::EventAttr attr_;
  Collect out_;
  uint64_t offset_ = 1;
};

TEST_F(AslrToolTest, MovesMappingsAndKeepsOffsetsInThem) {
  Start(Attr(kSampleType));
  ASSERT_TRUE(
      Feed(Mmap2(attr_, PERF_RECORD_MISC_USER, 42, 0x55d0c0001000, 0x3000, 0x1000, "/usr/bin/prog"))
          .ok());
  absl::StatusOr<perf::Mmap2Record> mmap = perf::Mmap2Record::From(out_.records.back().view());
  ASSERT_TRUE(mmap.ok());
  const uint64_t new_start = mmap->start();
  EXPECT_NE(new_start, 0x55d0c0001000u);
  EXPECT_EQ(mmap->pgoff(), 0x1000u);  // a file offset stays
  EXPECT_EQ(mmap->filename(), "/usr/bin/prog");

  perf::Sample s;
  s.ip = 0x55d0c0002abc;
  s.pid = s.tid = 42;
  s.callchain = {PERF_CONTEXT_USER, 0x55d0c0002abc, 0x55d0c0001100, 0};
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_USER, s)).ok());
  perf::Sample out = LastSample();
  EXPECT_EQ(out.ip, new_start + 0x1abc);
  EXPECT_EQ(out.callchain,
            (std::vector<uint64_t>{PERF_CONTEXT_USER, new_start + 0x1abc, new_start + 0x100, 0}));
}

TEST_F(AslrToolTest, CallchainMarkersSwitchBetweenKernelAndUserSpace) {
  Start(Attr(kSampleType));
  std::vector<std::byte> kernel_body;
  base::Append(kernel_body, uint32_t{0xffffffff});
  base::Append(kernel_body, uint32_t{0});
  base::Append(kernel_body, uint64_t{0xffffffff81000000});
  base::Append(kernel_body, uint64_t{0x1000000});
  base::Append(kernel_body, uint64_t{0xffffffff81000000});
  std::vector<std::byte> name(24);
  std::memcpy(name.data(), "[kernel.kallsyms]_text", 22);
  base::AppendBytes(kernel_body, name);
  perf::EncodeSampleId(perf::SampleFormat::Of(attr_), perf::SampleId{}, kernel_body);
  ASSERT_TRUE(Feed(RecordBytes(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, kernel_body)).ok());
  absl::StatusOr<perf::MmapRecord> kernel = perf::MmapRecord::From(out_.records.back().view());
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->start(), RemapTable::kKernelBase64);
  EXPECT_EQ(kernel->pgoff(), RemapTable::kKernelBase64);  // the relocation address moves along
  ASSERT_TRUE(
      Feed(Mmap2(attr_, PERF_RECORD_MISC_USER, 42, 0x7f0000000000, 0x1000, 0, "/lib/libc.so.6"))
          .ok());
  const uint64_t libc = perf::Mmap2Record::From(out_.records.back().view())->start();

  perf::Sample s;
  s.ip = 0xffffffff81000010;
  s.pid = s.tid = 42;
  s.callchain = {PERF_CONTEXT_KERNEL, 0xffffffff81000010, PERF_CONTEXT_USER, 0x7f0000000020};
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_KERNEL, s)).ok());
  perf::Sample out = LastSample();
  EXPECT_EQ(out.ip, RemapTable::kKernelBase64 + 0x10);
  EXPECT_EQ(out.callchain,
            (std::vector<uint64_t>{PERF_CONTEXT_KERNEL, RemapTable::kKernelBase64 + 0x10,
                                   PERF_CONTEXT_USER, libc + 0x20}));
}

TEST_F(AslrToolTest, UnknownAddressesGetDistinctSubstitutesNeverZero) {
  Start(Attr(kSampleType));
  perf::Sample s;
  s.pid = s.tid = 42;
  s.ip = 0x7f1111111111;
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_USER, s)).ok());
  uint64_t first = LastSample().ip;
  s.ip = 0x7f2222222222;
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_USER, s)).ok());
  uint64_t second = LastSample().ip;
  EXPECT_NE(first, 0u);
  EXPECT_NE(first, second);
  EXPECT_EQ(first % 4096, 0x111u);
  EXPECT_EQ(tool_.stats().unknown_addresses, 2u);
}

// The tool remembers the substitute pages of unknown addresses; what it
// remembers must agree with the table, still be counted, and give way to a
// mapping that comes to cover the page.
TEST_F(AslrToolTest, AnUnknownPageMovesAlikeUntilAMappingCoversIt) {
  Start(Attr(kSampleType));
  perf::Sample s;
  s.pid = s.tid = 42;
  s.callchain = {PERF_CONTEXT_USER, 0x7f3333333010, 0x7f3333333ff8, 0x7f3333333010, 0x7f3333334000};
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_USER, s)).ok());
  std::vector<uint64_t> out = LastSample().callchain;
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[2] - out[1], 0xfe8u);  // one page, one substitute
  EXPECT_EQ(out[3], out[1]);
  EXPECT_NE(out[4] / 4096, out[1] / 4096);  // the next page has its own
  EXPECT_EQ(tool_.stats().unknown_addresses, 4u);
  // Another process's same address is substituted the same way.
  s.pid = s.tid = 43;
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_USER, s)).ok());
  EXPECT_EQ(LastSample().callchain, out);

  ASSERT_TRUE(
      Feed(Mmap2(attr_, PERF_RECORD_MISC_USER, 42, 0x7f3333333000, 0x1000, 0, "/lib/libnew.so"))
          .ok());
  const uint64_t libnew = perf::Mmap2Record::From(out_.records.back().view())->start();
  s.pid = s.tid = 42;
  ASSERT_TRUE(Feed(SampleRecord(attr_, PERF_RECORD_MISC_USER, s)).ok());
  out = LastSample().callchain;
  EXPECT_EQ(out[1], libnew + 0x10);
  EXPECT_EQ(out[2], libnew + 0xff8);
  EXPECT_EQ(tool_.stats().unknown_addresses, 4u + 4u + 1u);  // 0x7f3333334000 still unknown
}

TEST_F(AslrToolTest, RegistersStacksAndRawDataLeaveSamplesThatStay) {
  perf::EventAttr attr = Attr(kSampleType | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                              PERF_SAMPLE_RAW | PERF_SAMPLE_PHYS_ADDR);
  attr.SetU64(attr_offset::kSampleRegsUser, 0xff);
  attr.SetU32(attr_offset::kSampleStackUser, 64);
  header_.events = perf::EventList({attr});
  ASSERT_TRUE(tool_.Begin(header_).ok());
  const perf::EventAttr& out_attr = header_.events.attrs()[0];
  EXPECT_EQ(out_attr.sample_type(), kSampleType);
  EXPECT_EQ(out_attr.sample_regs_user(), 0u);
  EXPECT_EQ(out_attr.sample_stack_user(), 0u);

  perf::Sample s;
  s.pid = s.tid = 42;
  s.ip = 0x7f0000000000;
  s.regs_user.abi = 2;
  s.regs_user.values.assign(8, 0x7ffd12345678);
  s.stack_user.data.assign(64, std::byte{0x55});
  s.stack_user.dyn_size = 64;
  s.raw.assign(12, std::byte{0x77});
  s.phys_addr = 0x12345000;
  std::vector<std::byte> body;
  perf::EncodeSample(perf::SampleFormat::Of(attr), s, body);
  ASSERT_TRUE(
      feed_
          .Process(perf::Record(RecordBytes(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body), 0x80),
                   out_)
          .ok());
  ASSERT_EQ(out_.records.size(), 1u);
  perf::Sample out = LastSample();
  EXPECT_EQ(out.pid, 42u);
  EXPECT_TRUE(out.regs_user.values.empty());
  EXPECT_TRUE(out.stack_user.data.empty());
  EXPECT_TRUE(out.raw.empty());
}

TEST_F(AslrToolTest, BreakpointAddressAndProbeTargetsAreCleared) {
  perf::EventAttr bp = Attr(kSampleType, PERF_TYPE_BREAKPOINT);
  bp.SetU64(attr_offset::kConfig1, 0x404040);
  bp.SetU64(attr_offset::kConfig2, 8);
  header_.events = perf::EventList({bp});
  ASSERT_TRUE(tool_.Begin(header_).ok());
  EXPECT_EQ(header_.events.attrs()[0].config1(), 0u);
  EXPECT_EQ(header_.events.attrs()[0].config2(), 8u);  // bp_len is no address
  EXPECT_EQ(ScrubEventName("mem:0x0000000000404040:w"), "mem:0x0:w");
  EXPECT_EQ(ScrubEventName("mem:0x404040/8:rw"), "mem:0x0/8:rw");
  EXPECT_EQ(ScrubEventName("cpu-clock"), "cpu-clock");
}

// Each dropped feature section is named with why: the option that asked for
// it, an unknown feature, or the error that kept it from being scrubbed.
TEST(AslrTool, DroppedFeaturesSayWhy) {
  AslrSettings settings;
  settings.strip_cmdline = true;
  AslrTool tool(settings);
  perf::Header header;
  header.events = perf::EventList({Attr(kSampleType)});
  auto bytes = [](absl::string_view text) {
    std::vector<std::byte> out(text.size());
    std::memcpy(out.data(), text.data(), text.size());
    return out;
  };
  header.features[HEADER_CMDLINE] = bytes("\x01\0\0\0\x08\0\0\0./prog\0\0");
  header.features[HEADER_TRACING_DATA] = bytes("not tracing data");
  header.features[HEADER_BPF_PROG_INFO] = bytes("anything");
  ASSERT_TRUE(tool.Begin(header).ok());
  EXPECT_TRUE(header.features.empty());
  const std::vector<std::string>& removed = tool.stats().removed;
  ASSERT_EQ(removed.size(), 3u);
  // In feature order: TRACING_DATA (1), CMDLINE (11), BPF_PROG_INFO (25).
  EXPECT_THAT(removed[0], ::testing::MatchesRegex("feature tracing_data \\(.+\\)"));
  EXPECT_EQ(removed[1], "feature cmdline (--strip-cmdline)");
  EXPECT_EQ(removed[2], "feature bpf_prog_info (not known to be free of addresses)");
}

TEST_F(AslrToolTest, RecordsThatCannotBeRemappedAreDropped) {
  Start(Attr(kSampleType));
  for (uint32_t type : {PERF_RECORD_TEXT_POKE, PERF_RECORD_AUX, PERF_RECORD_AUXTRACE_INFO,
                        PERF_RECORD_AUXTRACE_ERROR, uint32_t{40}, uint32_t{200}}) {
    std::vector<std::byte> body(32);
    ASSERT_TRUE(Feed(RecordBytes(type, 0, body)).ok()) << type;
  }
  EXPECT_TRUE(out_.records.empty());
  EXPECT_EQ(tool_.stats().dropped.at("TEXT_POKE"), 1u);
  EXPECT_EQ(tool_.stats().dropped.at("UNKNOWN(40)"), 1u);
}

TEST_F(AslrToolTest, MalformedSamplesAreClearErrors) {
  Start(Attr(kSampleType));
  perf::Sample s;
  s.callchain = {1, 2, 3};
  std::vector<std::byte> bytes = SampleRecord(attr_, PERF_RECORD_MISC_USER, s);
  // Cut inside the callchain.
  std::vector<std::byte> shorter(bytes.begin(), bytes.end() - 16);
  base::Store<uint16_t>(shorter.data() + 6, static_cast<uint16_t>(shorter.size()));
  absl::Status status = Feed(shorter);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("SAMPLE record"), std::string::npos) << status;
  EXPECT_NE(std::string(status.message()).find("CALLCHAIN"), std::string::npos) << status;
  // A callchain nr far past the end (after header, ip, pid/tid, time, period).
  std::vector<std::byte> huge = bytes;
  ASSERT_EQ(base::Load<uint64_t>(huge.data() + 40), 3u);
  base::Store<uint64_t>(huge.data() + 40, uint64_t{1} << 60);
  status = Feed(huge);
  EXPECT_NE(std::string(status.message()).find("CALLCHAIN"), std::string::npos) << status;
  EXPECT_TRUE(out_.records.empty());
}

TEST_F(AslrToolTest, TheSameInputGivesTheSameOutput) {
  std::vector<std::vector<std::byte>> runs;
  for (int run = 0; run < 2; ++run) {
    AslrTool tool;
    pipeline::ToolFeed feed(tool);
    perf::Header header;
    header.events = perf::EventList({Attr(kSampleType)});
    ASSERT_TRUE(feed.Begin(header).ok());
    Collect out;
    perf::EventAttr attr = Attr(kSampleType);
    ASSERT_TRUE(feed.Process(perf::Record(Mmap2(attr, PERF_RECORD_MISC_USER, 42, 0x55d0c0001000,
                                                0x3000, 0x1000, "/usr/bin/prog"),
                                          0),
                             out)
                    .ok());
    perf::Sample s;
    s.pid = s.tid = 42;
    s.ip = 0x55d0c0002000;
    s.callchain = {PERF_CONTEXT_USER, 0x55d0c0002000, 0x7f9999999999};
    ASSERT_TRUE(
        feed.Process(perf::Record(SampleRecord(attr, PERF_RECORD_MISC_USER, s), 0), out).ok());
    std::vector<std::byte> all;
    for (const perf::OwnedRecord& r : out.records) base::AppendBytes(all, r.view().bytes());
    runs.push_back(all);
  }
  EXPECT_EQ(runs[0], runs[1]);
}

}  // namespace
}  // namespace perftk::aslr
