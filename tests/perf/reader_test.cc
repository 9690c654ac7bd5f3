#include "perf/reader.h"

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "../testing/resident_memory.h"
#include "absl/strings/str_cat.h"
#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/features.h"
#include "perf/input.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::byte> Copy(base::Bytes bytes) { return {bytes.begin(), bytes.end()}; }

// Two events told apart by IDENTIFIER, each with a different sample layout.
AttrBuilder CyclesAttr() {
  return AttrBuilder()
      .Type(PERF_TYPE_HARDWARE)
      .Config(0)
      .SamplePeriod(4000)
      .SampleType(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
                  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_READ)
      .ReadFormat(PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED)
      .BranchSampleType(PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS)
      .RegsUser(0x1ff)
      .StackUser(64)
      .Flag(8)
      .Flag(15)  // precise_ip = 1
      .SampleIdAll()
      .Flag(23)
      .Size(PERF_ATTR_SIZE_VER8)
      .Ids({101, 102});
}

AttrBuilder TracepointAttr() {
  return AttrBuilder()
      .Type(PERF_TYPE_TRACEPOINT)
      .Config(312)
      .SamplePeriod(1)
      .SampleType(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW | PERF_SAMPLE_ADDR |
                  PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_AUX |
                  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_DATA_PAGE_SIZE |
                  PERF_SAMPLE_CODE_PAGE_SIZE)
      .RegsIntr(0x5)
      .SampleIdAll()
      .Size(PERF_ATTR_SIZE_VER8)
      .Ids({201, 202, 203});
}

perf::Sample CyclesSample(uint64_t id, uint64_t time) {
  perf::Sample s;
  s.identifier = id;
  s.ip = 0x401000 + time;
  s.pid = 10;
  s.tid = 11;
  s.time = time;
  s.cpu = 1;
  s.period = 4000;
  s.read.time_enabled = 77;
  s.read.values = {{.value = 5, .id = id, .lost = 1}};
  s.callchain = {PERF_CONTEXT_KERNEL, 0xffffffff81000000, PERF_CONTEXT_USER, 0x401000};
  s.branch_stack.hw_idx = 3;
  // mispred, cycles 0x321, type 4, priv 2: a bitfield that must come back in order.
  s.branch_stack.entries = {{0x401000, 0x401200, 1 | 0x321ULL << 4 | 4ULL << 20 | 2ULL << 30},
                            {0x401210, 0x400ff0, 2 | 7ULL << 4}};
  s.branch_stack.counters = {0x10, 0x20};
  s.regs_user.abi = 2;
  for (int i = 0; i < 9; ++i) s.regs_user.values.push_back(0x100 * i + time);
  for (int i = 0; i < 64; ++i) s.stack_user.data.push_back(static_cast<std::byte>(i));
  s.stack_user.dyn_size = 40;
  s.weight = 0x0002000100000010;
  s.data_src = 0x68100142;
  return s;
}

perf::Sample TracepointSample(uint64_t id, uint64_t time) {
  perf::Sample s;
  s.identifier = s.id = id;
  s.pid = 20;
  s.tid = 21;
  s.time = time;
  s.addr = 0xffff888000001000;
  s.stream_id = id;
  s.cpu = 2;
  s.raw = ToBytes({1, 0, 0, 0, 0x14, 0, 0, 0, 'a', 'b', 'c', 0});  // 4 + 12 = 16
  s.regs_intr.abi = 2;
  s.regs_intr.values = {0xaa, 0xbb};
  s.transaction = 0x3;
  s.phys_addr = 0x1000;
  s.cgroup = 0x99;
  s.data_page_size = 4096;
  s.code_page_size = 4096;
  s.aux = ToBytes({5, 5, 5, 5, 5, 5, 5, 5});
  return s;
}

perf::SampleId TrailerFor(const AttrBuilder& attr, uint64_t id, uint64_t time) {
  perf::SampleId t;
  t.pid = 30;
  t.tid = 31;
  t.time = time;
  t.id = id;
  t.stream_id = id;
  t.cpu = 3;
  t.identifier = id;
  (void)attr;
  return t;
}

// A recording with two events, known features and one record of every type
// for each event.
PerfDataBuilder Recording() {
  PerfDataBuilder b;
  b.Attr(CyclesAttr()).Attr(TracepointAttr());
  b.Feature(HEADER_HOSTNAME, StringFeature("buildhost"))
      .Feature(HEADER_OSRELEASE, StringFeature("6.1.0-test"))
      .Feature(HEADER_ARCH, StringFeature("s390x"))
      .Feature(HEADER_NRCPUS, NrCpusFeature(4, 8))
      .Feature(HEADER_CMDLINE, CmdlineFeature({"perf", "record", "-g", "--", "true"}))
      .Feature(HEADER_TOTAL_MEM, U64Feature({16 << 20}))
      .Feature(HEADER_SAMPLE_TIME, U64Feature({1000, 2000}))
      .Feature(HEADER_CLOCKID, U64Feature({1000000}));
  Fields build_ids;
  build_ids.Append(MakeBuildIdEntry(0, -1, {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                            11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
                                    "/usr/bin/true")
                       .ToFields());
  build_ids.Append(
      MakeBuildIdEntry(0, 1234, {0xaa, 0xbb, 0xcc}, "/tmp/jitted-1234-1.so").ToFields());
  b.Feature(HEADER_BUILD_ID, build_ids);
  uint64_t time = 1000;
  for (const AttrBuilder& attr : {CyclesAttr(), TracepointAttr()}) {
    uint64_t id = attr.ids()[1];
    perf::Sample sample = attr.sample_type() & PERF_SAMPLE_CALLCHAIN ? CyclesSample(id, time)
                                                                     : TracepointSample(id, time);
    for (RecordBuilder& r : EveryRecordType(attr, sample, TrailerFor(attr, id, time))) {
      b.Record(std::move(r));
    }
    time += 1000;
  }
  return b;
}

// Records of `back` equal the builder's native bytes, trailing data included.
void ExpectRecords(const ReadBack& back, const std::vector<RecordBuilder>& expected) {
  ASSERT_EQ(back.records.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("record ", i, " ", perf::RecordTypeName(expected[i].type())));
    EXPECT_EQ(Copy(back.records[i].view().bytes()), expected[i].Build(kNative));
    EXPECT_EQ(Copy(back.records[i].view().trailing_payload()), expected[i].trailing_payload());
  }
}

void ExpectEvents(const perf::Header& header, const std::vector<AttrBuilder>& attrs) {
  ASSERT_EQ(header.events.size(), attrs.size());
  for (size_t i = 0; i < attrs.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("attr ", i));
    EXPECT_EQ(Copy(header.events.attrs()[i].bytes()), attrs[i].Serialize(kNative));
    EXPECT_EQ(header.events.attrs()[i].ids(), attrs[i].ids());
  }
}

TEST(ReaderTest, FileLayoutReadsBackRecordForRecord) {
  PerfDataBuilder b = Recording();
  BuiltFile file = b.BuildFile();
  absl::StatusOr<ReadBack> back = ReadAll(file.bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.layout, perf::DataLayout::kFile);
  EXPECT_FALSE(back->header.cross_endian);
  ExpectEvents(back->header, b.attrs());
  ExpectRecords(*back, b.records());
  for (size_t i = 0; i < file.record_offsets.size(); ++i) {
    EXPECT_EQ(back->records[i].view().file_offset(), file.record_offsets[i]);
  }
  EXPECT_THAT(back->warnings, IsEmpty());
  EXPECT_EQ(perf::ReadStringFeature(back->header.features, HEADER_HOSTNAME).value_or(""),
            "buildhost");
  EXPECT_EQ(perf::ReadStringFeature(back->header.features, HEADER_ARCH).value_or(""), "s390x");
  absl::StatusOr<perf::NrCpus> cpus = perf::ReadNrCpus(back->header.features);
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus->online, 4u);
  EXPECT_EQ(cpus->available, 8u);
  EXPECT_THAT(perf::ReadCmdline(back->header.features).value_or(std::vector<std::string>{}),
              ElementsAre("perf", "record", "-g", "--", "true"));
  absl::StatusOr<std::vector<perf::BuildIdEntry>> ids = perf::ReadBuildIds(back->header.features);
  ASSERT_TRUE(ids.ok()) << ids.status();
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_EQ((*ids)[0].filename, "/usr/bin/true");
  EXPECT_EQ((*ids)[0].build_id.size(), 20u);
  EXPECT_EQ((*ids)[1].pid, 1234);
  EXPECT_EQ((*ids)[1].build_id, base::BuildId::FromBytes(ToBytes({0xaa, 0xbb, 0xcc})));
  EXPECT_EQ((*ids)[1].filename, "/tmp/jitted-1234-1.so");
}

TEST(ReaderTest, PipeLayoutReadsBackRecordForRecord) {
  PerfDataBuilder b = Recording();
  absl::StatusOr<ReadBack> back = ReadAll(b.BuildPipe());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.layout, perf::DataLayout::kPipe);
  ExpectEvents(back->header, b.attrs());
  // The HEADER_ATTR / HEADER_FEATURE preamble is folded into the header,
  // not handed out.
  ExpectRecords(*back, b.records());
  EXPECT_EQ(back->header.features.size(), 9u);
  EXPECT_EQ(perf::ReadStringFeature(back->header.features, HEADER_OSRELEASE).value_or(""),
            "6.1.0-test");
}

// Known feature sections of `back` equal those of `expected`; others are
// absent with a warning each.
void ExpectConvertedFeatures(const ReadBack& back, const ReadBack& expected) {
  for (const auto& [bit, section] : expected.header.features) {
    SCOPED_TRACE(perf::FeatureName(bit));
    auto it = back.header.features.find(bit);
    ASSERT_NE(it, back.header.features.end());
    EXPECT_EQ(it->second, section);
  }
}

TEST(ReaderTest, BigEndianFileReadsBackEqualToTheNativeOne) {
  PerfDataBuilder b = Recording();
  absl::StatusOr<ReadBack> native = ReadAll(b.BuildFile(kNative).bytes);
  absl::StatusOr<ReadBack> foreign = ReadAll(b.BuildFile(kForeign).bytes);
  ASSERT_TRUE(native.ok()) << native.status();
  ASSERT_TRUE(foreign.ok()) << foreign.status();
  EXPECT_TRUE(foreign->header.cross_endian);
  ExpectEvents(foreign->header, b.attrs());
  EXPECT_TRUE(foreign->header.events.attrs()[0].flag(15));  // precise_ip = 1
  EXPECT_FALSE(foreign->header.events.attrs()[0].flag(16));
  ExpectConvertedFeatures(*foreign, *native);
  ExpectRecords(*foreign, b.records());
  ASSERT_EQ(foreign->records.size(), native->records.size());
  for (size_t i = 0; i < native->records.size(); ++i) {
    EXPECT_EQ(foreign->records[i].view().file_offset(), native->records[i].view().file_offset());
  }
}

TEST(ReaderTest, BigEndianPipeReadsBackEqualToTheNativeOne) {
  PerfDataBuilder b = Recording();
  absl::StatusOr<ReadBack> native = ReadAll(b.BuildPipe(kNative));
  absl::StatusOr<ReadBack> foreign = ReadAll(b.BuildPipe(kForeign));
  ASSERT_TRUE(native.ok()) << native.status();
  ASSERT_TRUE(foreign.ok()) << foreign.status();
  EXPECT_TRUE(foreign->header.cross_endian);
  ExpectEvents(foreign->header, b.attrs());
  ExpectConvertedFeatures(*foreign, *native);
  ExpectRecords(*foreign, b.records());
}

TEST(ReaderTest, ForeignSectionsPerftkCannotConvertAreDroppedWithAWarning) {
  PerfDataBuilder b;
  b.Attr(CyclesAttr().Ids({1}))
      .Feature(HEADER_HOSTNAME, StringFeature("h"))
      .Feature(HEADER_CPU_TOPOLOGY, U64Feature({1, 2, 3}))
      .Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
  absl::StatusOr<ReadBack> native = ReadAll(b.BuildFile(kNative).bytes);
  ASSERT_TRUE(native.ok());
  EXPECT_EQ(native->header.features.count(HEADER_CPU_TOPOLOGY), 1u);
  absl::StatusOr<ReadBack> foreign = ReadAll(b.BuildFile(kForeign).bytes);
  ASSERT_TRUE(foreign.ok()) << foreign.status();
  EXPECT_EQ(foreign->header.features.count(HEADER_CPU_TOPOLOGY), 0u);
  EXPECT_EQ(foreign->header.features.count(HEADER_HOSTNAME), 1u);
  ASSERT_EQ(foreign->warnings.size(), 1u);
  EXPECT_THAT(foreign->warnings[0], HasSubstr("cpu_topology"));
}

TEST(ReaderTest, BigEndianBitmapOfA32BitPerf) {
  // A 32-bit big-endian perf writes the feature bitmap as u32 words.
  PerfDataBuilder b;
  b.Attr(CyclesAttr().Ids({1}))
      .Feature(HEADER_HOSTNAME, StringFeature("h32"))
      .Feature(HEADER_NRCPUS, NrCpusFeature(2, 2))
      .Feature(HEADER_CLOCKID, U64Feature({1}))
      .Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND))
      .Bitmap32(true);
  absl::StatusOr<ReadBack> back = ReadAll(b.BuildFile(Endian::kBig).bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.features.size(), 3u);
  EXPECT_EQ(perf::ReadStringFeature(back->header.features, HEADER_HOSTNAME).value_or(""), "h32");
}

TEST(ReaderTest, AttrsOfOlderAndNewerAbisReadAndKeepTheirSize) {
  for (uint32_t size : {PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER5, 160u}) {
    for (Endian endian : {kNative, kForeign}) {
      SCOPED_TRACE(absl::StrCat("attr size ", size, endian == kNative ? " native" : " foreign"));
      AttrBuilder attr = AttrBuilder()
                             .Type(PERF_TYPE_SOFTWARE)
                             .SampleType(PERF_SAMPLE_IP | PERF_SAMPLE_TID)
                             .Config1(0x42)
                             .FutureWords({0x77, 0x88, 0x99})
                             .Size(size)
                             .Ids({5});
      PerfDataBuilder b;
      b.Attr(attr).Record(MakeComm(1, 1, "a"));
      perf::Sample sample;
      sample.ip = 0x1234;
      sample.pid = sample.tid = 1;
      b.Record(MakeSample(attr, sample));
      for (bool pipe : {false, true}) {
        SCOPED_TRACE(pipe ? "pipe" : "file");
        absl::StatusOr<ReadBack> back =
            ReadAll(pipe ? b.BuildPipe(endian) : b.BuildFile(endian).bytes);
        ASSERT_TRUE(back.ok()) << back.status();
        ExpectEvents(back->header, {attr});
        EXPECT_EQ(back->header.events.attrs()[0].size(), size);
        EXPECT_EQ(back->header.events.attrs()[0].config1(), 0x42u);
        ExpectRecords(*back, b.records());
      }
    }
  }
}

// A recording with compressed records: the records of `expected` (after
// the first), serialized in `endian`, cut into two zstd frames inside the
// fourth record, each frame in one COMPRESSED record.
struct CompressedCase {
  PerfDataBuilder file;
  std::vector<RecordBuilder> expected;  // what the reader must hand out
};

CompressedCase CompressedRecording(Endian endian, uint32_t type = PERF_RECORD_COMPRESSED) {
  AttrBuilder attr = CyclesAttr().Ids({1});
  std::vector<RecordBuilder> inner;
  inner.push_back(MakeComm(10, 10, "compressed").WithSampleId(attr, TrailerFor(attr, 1, 1)));
  for (uint64_t t = 1; t <= 6; ++t) inner.push_back(MakeSample(attr, CyclesSample(1, t)));
  inner.push_back(MakeExit({.pid = 10, .ppid = 1, .tid = 10, .ptid = 1, .time = 7})
                      .WithSampleId(attr, TrailerFor(attr, 1, 7)));
  std::vector<std::byte> stream;
  size_t fourth = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    if (i == 3) fourth = stream.size();
    std::vector<std::byte> bytes = inner[i].Build(endian);
    stream.insert(stream.end(), bytes.begin(), bytes.end());
  }
  const size_t split = fourth + 20;
  auto compressed = [&](base::Bytes part) {
    std::vector<std::byte> frame = Compress(part);
    return type == PERF_RECORD_COMPRESSED ? MakeCompressed(frame) : MakeCompressed2(frame);
  };
  CompressedCase c;
  c.file.Attr(attr).Feature(HEADER_HOSTNAME, StringFeature("z"));
  c.file.Record(MakeComm(1, 1, "before").WithSampleId(attr, TrailerFor(attr, 1, 0)));
  c.file.Record(compressed(base::Bytes(stream).first(split)));
  c.file.Record(compressed(base::Bytes(stream).subspan(split)));
  c.file.Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
  c.expected.push_back(c.file.records()[0]);
  c.expected.insert(c.expected.end(), inner.begin(), inner.end());
  c.expected.push_back(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
  return c;
}

TEST(ReaderTest, CompressedRecordsReadTransparently) {
  for (uint32_t type : {PERF_RECORD_COMPRESSED, PERF_RECORD_COMPRESSED2}) {
    for (Endian endian : {kNative, kForeign}) {
      CompressedCase c = CompressedRecording(endian, type);
      for (bool pipe : {false, true}) {
        SCOPED_TRACE(absl::StrCat(perf::RecordTypeName(type),
                                  endian == kNative ? " native" : " foreign",
                                  pipe ? " pipe" : " file"));
        absl::StatusOr<ReadBack> back =
            ReadAll(pipe ? c.file.BuildPipe(endian) : c.file.BuildFile(endian).bytes);
        ASSERT_TRUE(back.ok()) << back.status();
        ExpectRecords(*back, c.expected);
      }
    }
  }
}

TEST(ReaderTest, PipePreambleIsFoldedIntoTheHeader) {
  AttrBuilder first = CyclesAttr().Ids({1});
  AttrBuilder late = TracepointAttr().Ids({2});
  std::vector<std::byte> tracing = ToBytes({'t', 'r', 'a', 'c', 'i', 'n', 'g', 0});
  PerfDataBuilder b;
  b.Attr(first).Feature(HEADER_HOSTNAME, StringFeature("pipehost"));
  b.Record(MakeHeaderTracingData(tracing));
  b.Record(MakeBuildIdEntry(PERF_RECORD_HEADER_BUILD_ID, -1, {1, 2, 3, 4}, "/bin/true"));
  b.Record(MakeHeaderFeature(HEADER_NRCPUS, NrCpusFeature(3, 4)));
  // The first non-header record ends the preamble.
  b.Record(MakeComm(1, 1, "first").WithSampleId(first, TrailerFor(first, 1, 1)));
  b.Record(MakeHeaderAttr(late));  // a late attr: folded in and handed out
  b.Record(MakeSample(late, TracepointSample(2, 5)));
  for (Endian endian : {kNative, kForeign}) {
    SCOPED_TRACE(endian == kNative ? "native" : "foreign");
    absl::StatusOr<ReadBack> back = ReadAll(b.BuildPipe(endian));
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectEvents(back->header, {first, late});
    EXPECT_EQ(perf::ReadStringFeature(back->header.features, HEADER_HOSTNAME).value_or(""),
              "pipehost");
    EXPECT_EQ(back->header.features.at(HEADER_TRACING_DATA), tracing);
    EXPECT_EQ(perf::ReadNrCpus(back->header.features).value_or(perf::NrCpus{}).online, 3u);
    absl::StatusOr<std::vector<perf::BuildIdEntry>> ids = perf::ReadBuildIds(back->header.features);
    ASSERT_TRUE(ids.ok()) << ids.status();
    ASSERT_EQ(ids->size(), 1u);
    EXPECT_EQ((*ids)[0].filename, "/bin/true");
    EXPECT_EQ((*ids)[0].build_id, base::BuildId::FromBytes(ToBytes({1, 2, 3, 4})));
    ASSERT_EQ(back->records.size(), 3u);
    EXPECT_EQ(back->records[0].view().type(), PERF_RECORD_COMM);
    EXPECT_EQ(back->records[1].view().type(), PERF_RECORD_HEADER_ATTR);
    EXPECT_EQ(Copy(back->records[2].view().bytes()), b.records().back().Build(kNative));
  }
}

TEST(ReaderTest, UnknownRecordTypesPassThrough) {
  PerfDataBuilder b;
  b.Attr(CyclesAttr().Ids({1}));
  b.Record(RecordBuilder(23).U64(0x1122334455667788));  // a kernel type newer than perftk
  b.Record(RecordBuilder(99).Raw(ToBytes({1, 2, 3, 4, 5, 6, 7, 8})));
  for (bool pipe : {false, true}) {
    absl::StatusOr<ReadBack> back = ReadAll(pipe ? b.BuildPipe() : b.BuildFile().bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectRecords(*back, b.records());
  }
}

TEST(ReaderTest, DataSizeZeroReadsToTheEndWithAWarning) {
  PerfDataBuilder b;
  b.Attr(CyclesAttr().Ids({1})).Record(MakeComm(1, 1, "a")).Record(MakeComm(2, 2, "b"));
  BuiltFile file = b.BuildFile();
  base::Store<uint64_t>(file.bytes.data() + 48, 0);  // data.size, as a killed perf record leaves it
  file.bytes.resize(file.data_offset + file.data_size);  // and no feature table
  absl::StatusOr<ReadBack> back = ReadAll(file.bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectRecords(*back, b.records());
  ASSERT_EQ(back->warnings.size(), 1u);
  EXPECT_THAT(back->warnings[0], HasSubstr("data size in the header is 0"));
}

TEST(ReaderTest, OpenReadsARegularFile) {
  PerfDataBuilder b = Recording();
  std::string path = absl::StrCat(::testing::TempDir(), "/reader_open_test.data");
  {
    BuiltFile file = b.BuildFile(kForeign);
    FILE* f = fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(fwrite(file.bytes.data(), 1, file.bytes.size(), f), file.bytes.size());
    fclose(f);
  }
  absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader = perf::PerfDataReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->name(), path);
  size_t n = 0;
  while (true) {
    absl::StatusOr<std::optional<perftk::perf::Record>> r = (*reader)->Next();
    ASSERT_TRUE(r.ok()) << r.status();
    if (!*r) break;
    EXPECT_EQ(Copy((*r)->bytes()), b.records()[n].Build(kNative));
    ++n;
  }
  EXPECT_EQ(n, b.records().size());
  unlink(path.c_str());
}

// Reads a 48 MB file of big records to its end; returns the KB of it left
// in memory. `held`: the offset the reader is told views are held from.
size_t ResidentAfterReading(const std::string& path, std::optional<uint64_t> held) {
  absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader = perf::PerfDataReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return SIZE_MAX;
  if (held) (*reader)->set_views_held_from([&held] { return *held; });
  const std::byte* base = nullptr;
  while (true) {
    absl::StatusOr<std::optional<perftk::perf::Record>> r = (*reader)->Next();
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || !*r) break;
    if (base == nullptr) base = (*r)->bytes().data() - (*r)->file_offset();
  }
  return base == nullptr ? SIZE_MAX : ResidentKbOfMapping(base);
}

TEST(ReaderTest, PagesOfViewsHeldStayInMemory) {
  PerfDataBuilder b;
  b.Attr(CyclesAttr().Ids({1}));
  constexpr size_t kRecords = 800;
  constexpr size_t kBody = 60000;
  for (size_t i = 0; i < kRecords; ++i) b.Record(RecordBuilder(PERF_RECORD_SAMPLE).Zeros(kBody));
  const std::string path = absl::StrCat(::testing::TempDir(), "/reader_held_test.data");
  {
    BuiltFile file = b.BuildFile(kNative);
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(file.bytes.data()),
               static_cast<std::streamsize>(file.bytes.size()));
  }
  constexpr size_t kFileKb = kRecords * (kBody + 8) / 1024;
  // Alone, the reader keeps less than its release step (16 MB) and what
  // the step it passed last left.
  EXPECT_LT(ResidentAfterReading(path, std::nullopt), 32u * 1024);
  // Told that views are held from 6 MB on, it keeps everything after them.
  EXPECT_GT(ResidentAfterReading(path, uint64_t{6} << 20), kFileKb - 7 * 1024);
  unlink(path.c_str());
}

}  // namespace
}  // namespace perftk::testing
