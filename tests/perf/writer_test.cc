#include "perf/writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/features.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::HasSubstr;

std::vector<std::byte> Copy(base::Bytes bytes) { return {bytes.begin(), bytes.end()}; }

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::byte> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

void WriteFileBytes(const std::string& path, base::Bytes bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

class WriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(::testing::TempDir(), "/writer_test_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    mkdir(dir_.c_str(), 0755);
    out_ = dir_ + "/out.data";
  }
  void TearDown() override {
    for (const std::string& p : {out_, out_ + ".tmp." + std::to_string(getpid()), dir_ + "/in.data",
                                 dir_ + "/link.data"}) {
      unlink(p.c_str());
    }
    rmdir(dir_.c_str());
  }
  std::string temp_path() const { return out_ + ".tmp." + std::to_string(getpid()); }

  // Reads `input`, writes every record in `layout` to out_, reads that back.
  absl::StatusOr<ReadBack> Rewrite(base::Bytes input, perf::DataLayout layout) {
    absl::StatusOr<ReadBack> in = ReadAll(input);
    if (!in.ok()) return in.status();
    absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer =
        perf::PerfDataWriter::Create(out_, layout, in->header);
    if (!writer.ok()) return writer.status();
    for (const perf::OwnedRecord& r : in->records) {
      if (absl::Status s = (*writer)->Write(r.view()); !s.ok()) return s;
    }
    if (absl::Status s = (*writer)->Finish(); !s.ok()) return s;
    written_ = ReadFileBytes(out_);
    return ReadAll(written_, out_);
  }

  std::string dir_;
  std::string out_;
  std::vector<std::byte> written_;
};

AttrBuilder EventA() {
  return AttrBuilder()
      .Type(PERF_TYPE_SOFTWARE)
      .SamplePeriod(1000)
      .SampleType(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD)
      .SampleIdAll()
      .Ids({11, 12});
}

AttrBuilder EventB() {
  return AttrBuilder()
      .Type(PERF_TYPE_TRACEPOINT)
      .Config(77)
      .SampleType(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
      .SampleIdAll()
      .Ids({21});
}

PerfDataBuilder TwoEventRecording() {
  PerfDataBuilder b;
  b.Attr(EventA()).Attr(EventB());
  b.Feature(HEADER_HOSTNAME, StringFeature("writerhost"))
      .Feature(HEADER_NRCPUS, NrCpusFeature(2, 2))
      .Feature(HEADER_CMDLINE, CmdlineFeature({"perf", "record"}))
      .Feature(HEADER_CPU_TOPOLOGY, U64Feature({5, 6}))         // passed through as bytes
      .Feature(HEADER_AUXTRACE, U64Feature({1, 0x100, 0x40}));  // input offsets: dropped
  perf::SampleId t;
  t.pid = t.tid = 5;
  t.time = 10;
  t.identifier = 11;
  b.Record(MakeComm(5, 5, "prog", true).WithSampleId(EventA(), t));
  b.Record(MakeMmap2({.pid = 5,
                      .tid = 5,
                      .start = 0x400000,
                      .len = 0x1000,
                      .prot = 5,
                      .filename = "/bin/prog"})
               .WithSampleId(EventA(), t));
  perf::Sample a;
  a.identifier = 12;
  a.ip = 0x400100;
  a.pid = a.tid = 5;
  a.time = 11;
  a.callchain = {PERF_CONTEXT_USER, 0x400100, 0x400200};
  a.period = 1000;
  b.Record(MakeSample(EventA(), a));
  perf::Sample tp;
  tp.identifier = 21;
  tp.pid = tp.tid = 5;
  tp.time = 12;
  tp.raw = ToBytes({1, 2, 3, 4});
  b.Record(MakeSample(EventB(), tp));
  b.Record(MakeAuxtrace({.cpu = 1}, ToBytes({9, 8, 7, 6, 5, 4, 3, 2})));
  b.Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
  return b;
}

void ExpectSameRecords(const ReadBack& back, const std::vector<RecordBuilder>& expected) {
  ASSERT_EQ(back.records.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("record ", i, " ", perf::RecordTypeName(expected[i].type())));
    EXPECT_EQ(Copy(back.records[i].view().bytes()), expected[i].Build(kNative));
    EXPECT_EQ(Copy(back.records[i].view().trailing_payload()), expected[i].trailing_payload());
  }
}

void ExpectSameHeader(const perf::Header& got, const PerfDataBuilder& b) {
  ASSERT_EQ(got.events.size(), b.attrs().size());
  for (size_t i = 0; i < b.attrs().size(); ++i) {
    EXPECT_EQ(Copy(got.events.attrs()[i].bytes()), b.attrs()[i].Serialize(kNative));
    EXPECT_EQ(got.events.attrs()[i].ids(), b.attrs()[i].ids());
  }
  EXPECT_EQ(perf::ReadStringFeature(got.features, HEADER_HOSTNAME).value_or(""), "writerhost");
  EXPECT_EQ(got.features.count(HEADER_NRCPUS), 1u);
  EXPECT_EQ(got.features.count(HEADER_CMDLINE), 1u);
}

// The AUXTRACE index of a written file: one entry per AUXTRACE record, at the
// record's offset in the new file, with the record's size without its
// payload, as perf writes it and checks it (the input's index pointed
// elsewhere and must not survive).
void ExpectAuxtraceIndexOfOutput(const ReadBack& back) {
  std::vector<perf::AuxtraceIndexEntry> expected;
  for (const perf::OwnedRecord& r : back.records) {
    if (r.view().type() != PERF_RECORD_AUXTRACE) continue;
    expected.push_back({r.view().file_offset(), r.view().bytes().size()});
  }
  ASSERT_EQ(expected.size(), 1u);
  absl::StatusOr<std::vector<perf::AuxtraceIndexEntry>> index =
      perf::ReadAuxtraceIndex(back.header.features);
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_EQ(index->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*index)[i].offset, expected[i].offset);
    EXPECT_EQ((*index)[i].size, expected[i].size);
  }
  // perf's layout: a leading count word.
  base::Bytes section = back.header.features.at(HEADER_AUXTRACE);
  ASSERT_EQ(section.size(), 8 + 16 * expected.size());
  EXPECT_EQ(base::Load<uint64_t>(section.data()), expected.size());
}

TEST_F(WriterTest, FileLayoutReadsBackEqual) {
  PerfDataBuilder b = TwoEventRecording();
  absl::StatusOr<ReadBack> back = Rewrite(b.BuildFile().bytes, perf::DataLayout::kFile);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.layout, perf::DataLayout::kFile);
  ExpectSameHeader(back->header, b);
  EXPECT_EQ(back->header.features.at(HEADER_CPU_TOPOLOGY), U64Feature({5, 6}).Serialize(kNative));
  ExpectSameRecords(*back, b.records());
  ExpectAuxtraceIndexOfOutput(*back);
  EXPECT_TRUE(back->warnings.empty());
  EXPECT_FALSE(Exists(temp_path()));
  // The data section starts right after the 104-byte header.
  EXPECT_EQ(back->records[0].view().file_offset(), 104u);
}

TEST_F(WriterTest, ARecordingWithoutRecordsReadsBack) {
  // Data size 0 with features is an empty recording, not an unfinished one.
  PerfDataBuilder b;
  b.Attr(EventA()).Feature(HEADER_HOSTNAME, StringFeature("empty"));
  absl::StatusOr<ReadBack> back = Rewrite(b.BuildFile().bytes, perf::DataLayout::kFile);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->records.empty());
  EXPECT_TRUE(back->warnings.empty());
  EXPECT_EQ(back->header.features.count(HEADER_HOSTNAME), 1u);
}

TEST_F(WriterTest, PipeLayoutReadsBackEqual) {
  PerfDataBuilder b = TwoEventRecording();
  absl::StatusOr<ReadBack> back = Rewrite(b.BuildFile().bytes, perf::DataLayout::kPipe);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.layout, perf::DataLayout::kPipe);
  ExpectSameHeader(back->header, b);
  ExpectSameRecords(*back, b.records());
  EXPECT_EQ(back->header.features.count(HEADER_AUXTRACE), 0u);  // a pipe has no index
  // The preamble: pipe header, then HEADER_ATTR records.
  ASSERT_GE(written_.size(), 24u);
  EXPECT_EQ(base::Load<uint64_t>(written_.data() + 8), 16u);
  EXPECT_EQ(base::Load<uint32_t>(written_.data() + 16), PERF_RECORD_HEADER_ATTR);
}

TEST_F(WriterTest, BigEndianInputIsWrittenNative) {
  PerfDataBuilder b = TwoEventRecording();
  for (perf::DataLayout layout : {perf::DataLayout::kFile, perf::DataLayout::kPipe}) {
    absl::StatusOr<ReadBack> back = Rewrite(b.BuildFile(kForeign).bytes, layout);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_FALSE(back->header.cross_endian);
    ExpectSameHeader(back->header, b);
    EXPECT_EQ(back->header.features.count(HEADER_CPU_TOPOLOGY), 0u);  // not convertible: dropped
    ExpectSameRecords(*back, b.records());
  }
}

TEST_F(WriterTest, PipeToFileToPipeKeepsTracingDataAndBuildIds) {
  PerfDataBuilder b;
  b.Attr(EventA()).Feature(HEADER_HOSTNAME, StringFeature("writerhost"));
  std::vector<std::byte> tracing = ToBytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  b.Record(MakeHeaderTracingData(tracing));
  b.Record(MakeBuildIdEntry(PERF_RECORD_HEADER_BUILD_ID, -1, {0xab, 0xcd}, "/bin/prog"));
  b.Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND));

  absl::StatusOr<ReadBack> file = Rewrite(b.BuildPipe(), perf::DataLayout::kFile);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->header.features.at(HEADER_TRACING_DATA), tracing);
  absl::StatusOr<std::vector<perf::BuildIdEntry>> ids = perf::ReadBuildIds(file->header.features);
  ASSERT_TRUE(ids.ok()) << ids.status();
  ASSERT_EQ(ids->size(), 1u);
  EXPECT_EQ((*ids)[0].filename, "/bin/prog");
  ASSERT_EQ(file->records.size(), 1u);  // only FINISHED_ROUND is a data record

  std::vector<std::byte> file_bytes = written_;
  absl::StatusOr<ReadBack> pipe = Rewrite(file_bytes, perf::DataLayout::kPipe);
  ASSERT_TRUE(pipe.ok()) << pipe.status();
  EXPECT_EQ(pipe->header.features.at(HEADER_TRACING_DATA), tracing);
  ids = perf::ReadBuildIds(pipe->header.features);
  ASSERT_TRUE(ids.ok()) << ids.status();
  ASSERT_EQ(ids->size(), 1u);
  EXPECT_EQ((*ids)[0].build_id, base::BuildId::FromBytes(ToBytes({0xab, 0xcd})));
}

TEST_F(WriterTest, AttrsOfOldAndFutureSizesRoundTrip) {
  for (uint32_t size : {PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER5, 160u}) {
    SCOPED_TRACE(size);
    AttrBuilder attr = EventA().Size(size).FutureWords({0xa1, 0xa2, 0xa3});
    PerfDataBuilder b;
    b.Attr(attr).Feature(HEADER_HOSTNAME, StringFeature("writerhost"));
    b.Record(MakeComm(1, 1, "x"));
    for (perf::DataLayout layout : {perf::DataLayout::kFile, perf::DataLayout::kPipe}) {
      absl::StatusOr<ReadBack> back = Rewrite(b.BuildFile().bytes, layout);
      ASSERT_TRUE(back.ok()) << back.status();
      ASSERT_EQ(back->header.events.size(), 1u);
      EXPECT_EQ(Copy(back->header.events.attrs()[0].bytes()), attr.Serialize(kNative));
    }
  }
}

TEST_F(WriterTest, ToolsReplaceFeaturesBeforeFinish) {
  PerfDataBuilder b = TwoEventRecording();
  absl::StatusOr<ReadBack> in = ReadAll(b.BuildFile().bytes);
  ASSERT_TRUE(in.ok());
  absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer =
      perf::PerfDataWriter::Create(out_, perf::DataLayout::kFile, in->header);
  ASSERT_TRUE(writer.ok()) << writer.status();
  (*writer)->features()[HEADER_HOSTNAME] = StringFeature("renamed").Serialize(kNative);
  (*writer)->features().erase(HEADER_CMDLINE);
  ASSERT_TRUE((*writer)->Write(in->records.back().view()).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  absl::StatusOr<ReadBack> back = ReadAll(ReadFileBytes(out_));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(perf::ReadStringFeature(back->header.features, HEADER_HOSTNAME).value_or(""),
            "renamed");
  EXPECT_EQ(back->header.features.count(HEADER_CMDLINE), 0u);
  EXPECT_EQ(back->records.size(), 1u);
}

TEST_F(WriterTest, OutputAppearsOnlyAtFinish) {
  PerfDataBuilder b = TwoEventRecording();
  absl::StatusOr<ReadBack> in = ReadAll(b.BuildFile().bytes);
  ASSERT_TRUE(in.ok());
  WriteFileBytes(out_, ToBytes("previous contents"));
  for (perf::DataLayout layout : {perf::DataLayout::kFile, perf::DataLayout::kPipe}) {
    {
      absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer =
          perf::PerfDataWriter::Create(out_, layout, in->header);
      ASSERT_TRUE(writer.ok()) << writer.status();
      for (const perf::OwnedRecord& r : in->records) ASSERT_TRUE((*writer)->Write(r.view()).ok());
      EXPECT_TRUE(Exists(temp_path()));
      EXPECT_EQ(ReadFileBytes(out_), ToBytes("previous contents"));
      // Destroyed without Finish: no output, no temporary file.
    }
    EXPECT_FALSE(Exists(temp_path()));
    EXPECT_EQ(ReadFileBytes(out_), ToBytes("previous contents"));
  }
  unlink(out_.c_str());
  {
    absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer =
        perf::PerfDataWriter::Create(out_, perf::DataLayout::kFile, in->header);
    ASSERT_TRUE(writer.ok());
  }
  EXPECT_FALSE(Exists(out_));
  EXPECT_FALSE(Exists(temp_path()));
}

TEST_F(WriterTest, FileLayoutToStdoutIsRefused) {
  absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer =
      perf::PerfDataWriter::Create("-", perf::DataLayout::kFile, perf::Header());
  ASSERT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), HasSubstr("pipe layout only"));
}

TEST_F(WriterTest, MissingDirectoryIsAnError) {
  absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> writer = perf::PerfDataWriter::Create(
      dir_ + "/no/such/dir/out.data", perf::DataLayout::kFile, perf::Header());
  ASSERT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), HasSubstr("out.data: cannot create"));
}

}  // namespace
}  // namespace perftk::testing
