// Malformed recordings: each gives an error that names the input, the offset
// and what is wrong (or, where perftk can step over it, a warning), never a
// crash or a hang.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/describe.h"
#include "perf/input.h"
#include "perf/reader.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

AttrBuilder Attr() {
  return AttrBuilder()
      .Type(PERF_TYPE_SOFTWARE)
      .SampleType(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN)
      .Ids({1});
}

PerfDataBuilder Small() {
  PerfDataBuilder b;
  b.Attr(Attr()).Feature(HEADER_HOSTNAME, StringFeature("h"));
  b.Record(MakeComm(1, 1, "a"));
  perf::Sample s;
  s.ip = 0x401000;
  s.pid = s.tid = 1;
  s.time = 5;
  s.callchain = {PERF_CONTEXT_USER, 0x401000};
  b.Record(MakeSample(Attr(), s));
  b.Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
  return b;
}

// The error of reading `bytes` to the end ("" if it reads fine).
std::string ReadError(base::Bytes bytes) {
  absl::StatusOr<ReadBack> back = ReadAll(bytes, "bad.data");
  return back.ok() ? "" : std::string(back.status().message());
}

std::vector<std::byte> Patched(std::vector<std::byte> bytes, size_t at, uint64_t value,
                               int width = 8) {
  if (width == 8) base::Store<uint64_t>(bytes.data() + at, value);
  if (width == 4) base::Store<uint32_t>(bytes.data() + at, static_cast<uint32_t>(value));
  if (width == 2) base::Store<uint16_t>(bytes.data() + at, static_cast<uint16_t>(value));
  return bytes;
}

TEST(BadInputTest, SmallRecordingIsFine) {
  EXPECT_EQ(ReadError(Small().BuildFile().bytes), "");
  EXPECT_EQ(ReadError(Small().BuildPipe()), "");
}

TEST(BadInputTest, EmptyAndTruncatedHeaders) {
  EXPECT_EQ(ReadError({}), "bad.data: offset 0: 0 bytes are too few for a perf.data header");
  std::vector<std::byte> file = Small().BuildFile().bytes;
  EXPECT_EQ(ReadError(base::Bytes(file).first(15)),
            "bad.data: offset 0: 15 bytes are too few for a perf.data header");
  EXPECT_EQ(ReadError(base::Bytes(file).first(50)),
            "bad.data: offset 0: file ends inside its header");
  EXPECT_EQ(ReadError(base::Bytes(file).first(103)),
            "bad.data: offset 0: file ends inside its header");
}

TEST(BadInputTest, WrongMagic) {
  std::vector<std::byte> file = Small().BuildFile().bytes;
  std::vector<std::byte> elf = file;
  std::memcpy(elf.data(),
              "\x7f"
              "ELF\2\1\1\0",
              8);
  EXPECT_EQ(ReadError(elf), "bad.data: offset 0: not a perf.data file (no PERFILE2 magic)");
  std::vector<std::byte> v1 = file;
  std::memcpy(v1.data(), "PERFFILE", 8);
  EXPECT_EQ(ReadError(v1),
            "bad.data: offset 0: version 1 perf.data (magic PERFFILE) is not supported");
}

TEST(BadInputTest, BogusHeaderSize) {
  std::vector<std::byte> file = Patched(Small().BuildFile().bytes, 8, 200);
  EXPECT_EQ(ReadError(file), "bad.data: offset 0x8: header size 200 is neither 16 (pipe) nor 104");
  file = Patched(Small().BuildFile(kForeign).bytes, 8, base::ByteSwap(uint64_t{0}));
  EXPECT_THAT(ReadError(file), HasSubstr("header size 0 is neither"));
}

TEST(BadInputTest, DataSectionOutsideTheFile) {
  BuiltFile built = Small().BuildFile();
  const uint64_t size = built.bytes.size();
  EXPECT_THAT(
      ReadError(Patched(built.bytes, 40, size + 1)),
      AllOf(StartsWith("bad.data: offset 0x28: data section"), HasSubstr("lies outside the")));
  EXPECT_THAT(ReadError(Patched(built.bytes, 48, size)), HasSubstr("lies outside the"));
  // offset + size wrapping around 2^64 is outside too.
  std::vector<std::byte> wrap = Patched(built.bytes, 48, ~0ULL - built.data_offset + 2);
  EXPECT_THAT(ReadError(wrap), HasSubstr("lies outside the"));
}

TEST(BadInputTest, ImpossibleAttrSizes) {
  BuiltFile built = Small().BuildFile();
  for (uint64_t attr_size :
       {uint64_t{0}, uint64_t{16}, uint64_t{79}, uint64_t{1} << 20, ~uint64_t{0}}) {
    SCOPED_TRACE(attr_size);
    EXPECT_EQ(ReadError(Patched(built.bytes, 16, attr_size)),
              absl::StrCat("bad.data: offset 0x10: impossible attr size ", attr_size));
  }
  // A size that does not divide the section.
  EXPECT_THAT(ReadError(Patched(built.bytes, 16, built.attr_size - 8)),
              HasSubstr("is no multiple of"));
}

TEST(BadInputTest, AttrSectionOutsideTheFile) {
  BuiltFile built = Small().BuildFile();
  EXPECT_EQ(ReadError(Patched(built.bytes, 24, built.bytes.size() - 8)),
            "bad.data: offset 0x18: attr section lies outside the file");
  EXPECT_EQ(ReadError(Patched(built.bytes, 32, ~0ULL - 7)),
            "bad.data: offset 0x18: attr section lies outside the file");
}

TEST(BadInputTest, IdsOutsideTheFile) {
  BuiltFile built = Small().BuildFile();
  const size_t ids_at = built.attrs_offset + built.attr_size - 16;
  EXPECT_THAT(
      ReadError(Patched(built.bytes, ids_at, built.bytes.size())),
      AllOf(StartsWith(absl::StrCat("bad.data: offset 0x", absl::Hex(ids_at), ": id array")),
            HasSubstr("lies outside the file")));
  EXPECT_THAT(ReadError(Patched(built.bytes, ids_at + 8, 1ULL << 40)), HasSubstr("id array"));
  EXPECT_THAT(ReadError(Patched(built.bytes, ids_at + 8, 12)), HasSubstr("id array"));  // not x8
}

TEST(BadInputTest, RecordSizes) {
  BuiltFile built = Small().BuildFile();
  const uint64_t at = built.record_offsets[1];  // the sample
  const std::string where = absl::StrCat("bad.data: offset 0x", absl::Hex(at), ": SAMPLE record: ");
  for (uint16_t size : {0, 4, 7}) {
    EXPECT_EQ(ReadError(Patched(built.bytes, at + 6, size, 2)),
              absl::StrCat(where, "size ", size, " is smaller than the record header"));
  }
  EXPECT_EQ(ReadError(Patched(built.bytes, at + 6, 0xfff8, 2)),
            absl::StrCat(where, "size 65528 runs past the end of the data section at 0x",
                         absl::Hex(built.data_offset + built.data_size)));
  // The same in a pipe, where the input just ends.
  std::vector<std::byte> pipe = Small().BuildPipe();
  pipe.resize(pipe.size() - 4);
  EXPECT_EQ(ReadError(pipe), absl::StrCat("bad.data: offset 0x", absl::Hex(pipe.size() - 4),
                                          ": input ends inside a record header"));
}

TEST(BadInputTest, PipeInputEndingInsideARecord) {
  std::vector<std::byte> pipe = Small().BuildPipe();
  pipe.resize(pipe.size() - 8 - 20);  // drop FINISHED_ROUND and cut the sample
  EXPECT_THAT(ReadError(pipe), HasSubstr("SAMPLE record: input ends inside the record"));
  pipe.resize(pipe.size() - 1);
  EXPECT_THAT(ReadError(pipe), HasSubstr("input ends inside"));
}

TEST(BadInputTest, SampleShorterThanItsSampleType) {
  PerfDataBuilder b;
  b.Attr(Attr());
  b.Record(RecordBuilder(PERF_RECORD_SAMPLE).U64(0x401000).U32(1).U32(1));  // no TIME, CALLCHAIN
  absl::StatusOr<ReadBack> back = ReadAll(b.BuildFile().bytes);
  ASSERT_TRUE(back.ok());  // the reader hands records out undecoded
  std::vector<perf::Field> fields =
      perf::DescribeRecord(back->records[0].view(), back->header.events);
  bool has_error = false;
  for (const perf::Field& f : fields) {
    if (f.name == "error") {
      has_error = true;
      EXPECT_EQ(f.text, "sample ends inside its fixed field");
    }
  }
  EXPECT_TRUE(has_error);
  // In a big-endian file the sample must be decoded to be converted: an error.
  EXPECT_THAT(ReadError(b.BuildFile(kForeign).bytes),
              AllOf(HasSubstr("SAMPLE record: sample ends inside its fixed field"),
                    HasSubstr("offset 0x")));
}

TEST(BadInputTest, AuxtracePayloads) {
  PerfDataBuilder b;
  b.Attr(Attr());
  b.Record(MakeAuxtrace({.cpu = 0}, std::vector<std::byte>(64, std::byte{0x5a})));
  BuiltFile built = b.BuildFile();
  const uint64_t at = built.record_offsets[0];
  // Payload size larger than what is left of the data section.
  EXPECT_EQ(ReadError(Patched(built.bytes, at + 8, 65)),
            absl::StrCat("bad.data: offset 0x", absl::Hex(at),
                         ": AUXTRACE record: announces 65 bytes of trailing data, but only 64 "
                         "can follow"));
  // Streams: an absurd size is refused, a truncated payload is an error.
  std::vector<std::byte> pipe = b.BuildPipe();
  const size_t pipe_at = pipe.size() - 64 - 48;
  EXPECT_THAT(ReadError(Patched(pipe, pipe_at + 8, 1ULL << 62)),
              HasSubstr("AUXTRACE record: announces 4611686018427387904 bytes of trailing data"));
  pipe.resize(pipe.size() - 1);
  EXPECT_THAT(ReadError(pipe), HasSubstr("AUXTRACE record: announces 64 bytes"));
}

// Reads `bytes` through a real pipe (Input streams it, no mapping).
std::string ReadErrorThroughPipe(std::vector<std::byte> bytes) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe() failed";
  std::thread writer([fd = fds[1], bytes = std::move(bytes)] {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += n;
    }
    close(fd);
  });
  std::string path = absl::StrCat("/dev/fd/", fds[0]);
  std::string error;
  absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader = perf::PerfDataReader::Open(path);
  if (!reader.ok()) {
    error = std::string(reader.status().message());
  } else {
    while (true) {
      absl::StatusOr<std::optional<perftk::perf::Record>> r = (*reader)->Next();
      if (!r.ok()) {
        error = std::string(r.status().message());
        break;
      }
      if (!*r) break;
    }
    reader->reset();
  }
  close(fds[0]);
  writer.join();
  return error;
}

TEST(BadInputTest, StreamsFromARealPipe) {
  PerfDataBuilder b = Small();
  b.Record(MakeAuxtrace({.cpu = 0}, std::vector<std::byte>(64, std::byte{0x5a})));
  std::vector<std::byte> pipe = b.BuildPipe();
  EXPECT_EQ(ReadErrorThroughPipe(pipe), "");
  const size_t at = pipe.size() - 64 - 48;
  EXPECT_THAT(ReadErrorThroughPipe(Patched(pipe, at + 8, 1ULL << 40)),
              HasSubstr("AUXTRACE record: announces 1099511627776 bytes of trailing data"));
  std::vector<std::byte> cut = pipe;
  cut.resize(cut.size() - 10);
  EXPECT_THAT(ReadErrorThroughPipe(cut), HasSubstr("input ends inside its trailing data"));
  // A file layout recording cannot be streamed.
  EXPECT_THAT(ReadErrorThroughPipe(Small().BuildFile().bytes),
              HasSubstr("file-layout perf.data cannot be read from a pipe"));
}

TEST(BadInputTest, AStreamThatLiesAboutAPayloadCostsOnlyWhatItHolds) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::vector<std::byte> sent(3 << 20, std::byte{7});  // 3 MiB arrive
  std::thread writer([fd = fds[1], &sent] {
    size_t done = 0;
    while (done < sent.size()) {
      ssize_t n = write(fd, sent.data() + done, sent.size() - done);
      if (n <= 0) break;
      done += n;
    }
    close(fd);
  });
  absl::StatusOr<std::unique_ptr<perf::Input>> input =
      perf::Input::Open(absl::StrCat("/dev/fd/", fds[0]));
  ASSERT_TRUE(input.ok()) << input.status();
  std::vector<std::byte> scratch;
  absl::StatusOr<base::Bytes> got = (*input)->Read(uint64_t{1} << 32, scratch);  // 4 GiB announced
  writer.join();
  close(fds[0]);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), sent.size());
  EXPECT_EQ(got->front(), std::byte{7});
  EXPECT_LE(scratch.size(), 2 * sent.size());  // grown by doubling, never to 4 GiB
}

TEST(BadInputTest, FeatureTableOutsideTheFileIsAWarning) {
  PerfDataBuilder b = Small();
  b.Feature(HEADER_NRCPUS, NrCpusFeature(1, 1));
  BuiltFile built = b.BuildFile();
  // Cut the file inside the feature table: a warning, the records still read.
  std::vector<std::byte> cut(built.bytes.begin(),
                             built.bytes.begin() + built.feature_table_offset + 20);
  absl::StatusOr<ReadBack> back = ReadAll(cut, "bad.data");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->records.size(), 3u);
  EXPECT_TRUE(back->header.features.empty());
  // The hostname entry is whole but its section is cut off; the nrcpus entry is cut.
  ASSERT_EQ(back->warnings.size(), 2u);
  EXPECT_THAT(back->warnings[0], AllOf(StartsWith("bad.data: hostname feature section [0x"),
                                       HasSubstr("lies outside the file")));
  EXPECT_THAT(back->warnings[1], AllOf(StartsWith("bad.data: feature table at 0x"),
                                       HasSubstr("features from nrcpus on are ignored")));

  // A section pointing outside the file: that section is dropped with a warning.
  std::vector<std::byte> bad = Patched(built.bytes, built.feature_table_offset, 1ULL << 50);
  back = ReadAll(bad, "bad.data");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.features.count(HEADER_HOSTNAME), 0u);
  EXPECT_EQ(back->header.features.count(HEADER_NRCPUS), 1u);
  ASSERT_EQ(back->warnings.size(), 1u);
  EXPECT_THAT(back->warnings[0], HasSubstr("hostname feature section"));
}

TEST(BadInputTest, UnknownFeatureBitsAreKeptAsBytes) {
  PerfDataBuilder b = Small();
  b.Feature(200, U64Feature({1, 2}));
  absl::StatusOr<ReadBack> back = ReadAll(b.BuildFile().bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.features.at(200), U64Feature({1, 2}).Serialize(kNative));
  // Big-endian: not convertible, dropped with a warning.
  back = ReadAll(b.BuildFile(kForeign).bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->header.features.count(200), 0u);
  EXPECT_EQ(back->warnings.size(), 1u);
  // A HEADER_FEATURE record for a bit past the bitmap is ignored with a warning.
  PerfDataBuilder p = Small();
  p.Record(MakeHeaderFeature(300, U64Feature({1})));
  back = ReadAll(p.BuildPipe());
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->warnings.size(), 1u);
  EXPECT_THAT(back->warnings[0], HasSubstr("unknown feature 300"));
}

TEST(BadInputTest, PipeHeaderAttrOfImpossibleSize) {
  std::vector<std::byte> pipe = Small().BuildPipe();
  // The first record is HEADER_ATTR at 16; its attr.size at 16 + 8 + 4.
  EXPECT_THAT(ReadError(Patched(pipe, 28, 5000, 4)),
              AllOf(StartsWith("bad.data: offset 0x10: HEADER_ATTR record: "),
                    HasSubstr("impossible size 5000")));
}

TEST(BadInputTest, ForeignHeaderAttrShorterThanAnAttr) {
  // Fuzzer find (heap-buffer-overflow in SwapRecordToNative).
  PerfDataBuilder b;
  b.Record(RecordBuilder(PERF_RECORD_HEADER_ATTR));
  b.Record(RecordBuilder(PERF_RECORD_HEADER_ATTR).U32(1));
  EXPECT_EQ(ReadError(b.BuildPipe(kForeign)),
            "bad.data: offset 0x10: HEADER_ATTR record: HEADER_ATTR record of 8 bytes is too "
            "short for an attr");
}

TEST(BadInputTest, ForeignRecordTooShortForItsTrailer) {
  AttrBuilder attr = Attr().SampleIdAll();
  PerfDataBuilder b;
  b.Attr(attr);
  b.Record(RecordBuilder(PERF_RECORD_COMM).U32(1).U32(1));  // no trailer
  EXPECT_THAT(
      ReadError(b.BuildFile(kForeign).bytes),
      HasSubstr("COMM record: COMM record of 16 bytes is shorter than its sample_id trailer"));
}

// Compressed data: corrupt, ending inside a record, nested.
TEST(BadInputTest, CorruptZstdData) {
  std::vector<std::byte> inner = MakeComm(1, 1, "zz").Build();
  std::vector<std::byte> frame = Compress(inner);
  for (size_t i = 4; i < frame.size(); ++i) frame[i] ^= std::byte{0xa5};
  PerfDataBuilder b = Small();
  b.Record(MakeCompressed(frame));
  BuiltFile built = b.BuildFile();
  EXPECT_THAT(
      ReadError(built.bytes),
      AllOf(StartsWith(absl::StrCat("bad.data: offset 0x", absl::Hex(built.record_offsets[3]),
                                    ": COMPRESSED record: zstd: "))));
  EXPECT_THAT(ReadError(b.BuildPipe()), HasSubstr("COMPRESSED record: zstd: "));
}

TEST(BadInputTest, CompressedDataEndingInsideARecord) {
  std::vector<std::byte> inner = MakeComm(1, 1, "a-long-command-name").Build();
  std::vector<std::byte> frame = Compress(base::Bytes(inner).first(inner.size() - 8));
  PerfDataBuilder b = Small();
  b.Record(MakeCompressed(frame));
  EXPECT_THAT(ReadError(b.BuildFile().bytes),
              HasSubstr("COMPRESSED record: compressed data ends inside a record"));
  EXPECT_THAT(ReadError(b.BuildPipe()),
              HasSubstr("COMPRESSED record: compressed data ends inside a record"));
  // Fewer bytes than a record header left over.
  PerfDataBuilder c = Small();
  c.Record(MakeCompressed(Compress(base::Bytes(inner).first(5))));
  EXPECT_THAT(ReadError(c.BuildFile().bytes), HasSubstr("compressed data ends inside a record"));
  EXPECT_THAT(ReadError(c.BuildPipe()), HasSubstr("compressed data ends inside a record"));
}

TEST(BadInputTest, DecompressedRecordOfSizeZero) {
  std::vector<std::byte> inner = MakeComm(1, 1, "x").Build();
  base::Store<uint16_t>(inner.data() + 6, 0);
  PerfDataBuilder b = Small();
  b.Record(MakeCompressed(Compress(inner)));
  EXPECT_THAT(ReadError(b.BuildFile().bytes),
              HasSubstr("COMM record: decompressed record size 0 is smaller than its header"));
}

TEST(BadInputTest, CompressedRecordInsideCompressedData) {
  // perf never nests them; a nested one must not be decompressed over the
  // buffer that holds it.
  std::vector<std::byte> innermost = MakeComm(1, 1, "innermost").Build();
  std::vector<std::byte> nested = MakeCompressed(Compress(innermost)).Build();
  std::vector<std::byte> outer;
  for (int i = 0; i < 3; ++i) {
    std::vector<std::byte> comm = MakeComm(2, 2, absl::StrCat("filler-", i)).Build();
    outer.insert(outer.end(), comm.begin(), comm.end());
  }
  outer.insert(outer.end(), nested.begin(), nested.end());
  std::vector<std::byte> after = MakeComm(3, 3, "after").Build();
  outer.insert(outer.end(), after.begin(), after.end());
  PerfDataBuilder b = Small();
  b.Record(MakeCompressed(Compress(outer)));
  EXPECT_THAT(ReadError(b.BuildFile().bytes),
              HasSubstr("COMPRESSED record: a compressed record inside compressed data"));
}

}  // namespace
}  // namespace perftk::testing
