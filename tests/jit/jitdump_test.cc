#include "jit/jitdump.h"

#include <unistd.h>

#include <string>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitdump_builder.h"

namespace perftk::jit {
namespace {

using ::testing::ElementsAre;
using testing::Endian;
using ::testing::HasSubstr;
using testing::JitDumpBuilder;
using testing::LineFields;
using testing::LoadFields;
using testing::MoveFields;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name + "." + std::to_string(getpid());
}

std::vector<JitRecord> ReadAll(JitDumpReader& reader) {
  std::vector<JitRecord> records;
  while (true) {
    absl::StatusOr<std::optional<JitRecord>> r = reader.Next();
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || !*r) break;
    records.push_back(std::move(**r));
  }
  return records;
}

std::vector<uint8_t> Code(size_t n, uint8_t first) {
  std::vector<uint8_t> code(n);
  for (size_t i = 0; i < n; ++i) code[i] = static_cast<uint8_t>(first + i);
  return code;
}

class JitDumpReaderTest : public ::testing::TestWithParam<Endian> {};

TEST_P(JitDumpReaderTest, ReadsEveryRecordTypeInEitherByteOrder) {
  JitDumpBuilder dump(4242, GetParam());
  dump.Debug(100, 0x7f0000001000,
             {{0x7f0000001000, 3, 7, "/src/a.js"}, {0x7f0000001010, 4, 1, "/src/b.js"}});
  dump.Unwinding(101, {1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12}, 16);
  dump.Load({.timestamp = 102,
             .pid = 4242,
             .tid = 4243,
             .code_addr = 0x7f0000001000,
             .code_index = 17,
             .name = "JS:*fib",
             .code = Code(37, 0x90)});
  dump.Move({.timestamp = 103,
             .pid = 4242,
             .tid = 4244,
             .old_code_addr = 0x7f0000001000,
             .new_code_addr = 0x7f0000002000,
             .code_size = 37,
             .code_index = 17});
  dump.Close(104);
  std::string path = TempPath("every");
  dump.WriteTo(path);

  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const JitDumpHeader& h = (*reader)->header();
  EXPECT_EQ(h.pid, 4242u);
  EXPECT_EQ(h.elf_mach, 62u);
  EXPECT_EQ(h.version, 1u);
  EXPECT_EQ(h.timestamp, 123456789u);
  EXPECT_EQ(h.cross_endian, GetParam() != testing::kNative);
  EXPECT_FALSE(h.arch_timestamp());

  std::vector<JitRecord> records = ReadAll(**reader);
  ASSERT_EQ(records.size(), 5u);

  EXPECT_EQ(records[0].id, kJitCodeDebugInfo);
  EXPECT_EQ(records[0].timestamp, 100u);
  EXPECT_EQ(records[0].offset, 40u);
  const auto& debug = std::get<DebugInfo>(records[0].body);
  EXPECT_EQ(debug.code_addr, 0x7f0000001000u);
  ASSERT_EQ(debug.entries.size(), 2u);
  EXPECT_EQ(debug.entries[1].addr, 0x7f0000001010u);
  EXPECT_EQ(debug.entries[1].line, 4u);
  EXPECT_EQ(debug.entries[1].discrim, 1u);
  EXPECT_EQ(debug.entries[1].file, "/src/b.js");

  const auto& unwinding = std::get<UnwindingInfo>(records[1].body);
  EXPECT_EQ(unwinding.mapped_size, 16u);
  EXPECT_EQ(unwinding.eh_frame().size(), 8u);
  ASSERT_EQ(unwinding.eh_frame_hdr().size(), 4u);
  EXPECT_EQ(unwinding.eh_frame_hdr()[0], std::byte{9});

  // A view valid only until Next: checked on a fresh reader below.
  const auto& move = std::get<CodeMove>(records[3].body);
  EXPECT_EQ(move.tid, 4244u);
  EXPECT_EQ(move.old_code_addr, 0x7f0000001000u);
  EXPECT_EQ(move.new_code_addr, 0x7f0000002000u);
  EXPECT_EQ(move.code_size, 37u);
  EXPECT_EQ(move.code_index, 17u);
  EXPECT_EQ(records[4].id, kJitCodeClose);
  EXPECT_TRUE((*reader)->warnings().empty());

  reader = JitDumpReader::Open(path);
  ASSERT_TRUE(reader.ok());
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::optional<JitRecord>> r = (*reader)->Next();
    ASSERT_TRUE(r.ok() && *r);
    if (i < 2) continue;
    const auto& load = std::get<CodeLoad>((*r)->body);
    EXPECT_EQ(load.pid, 4242u);
    EXPECT_EQ(load.tid, 4243u);
    EXPECT_EQ(load.code_addr, 0x7f0000001000u);
    EXPECT_EQ(load.code_size, 37u);
    EXPECT_EQ(load.code_index, 17u);
    EXPECT_EQ(load.name, "JS:*fib");
    ASSERT_EQ(load.code.size(), 37u);
    EXPECT_EQ(load.code[0], std::byte{0x90});
    EXPECT_EQ(load.code[36], std::byte{0x90 + 36});
  }
  unlink(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(ByteOrders, JitDumpReaderTest,
                         ::testing::Values(Endian::kLittle, Endian::kBig));

TEST(JitDumpReader, ArchTimestampFlag) {
  JitDumpBuilder dump(1, testing::kNative, kJitFlagArchTimestamp);
  std::string path = TempPath("arch");
  dump.WriteTo(path);
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_TRUE((*reader)->header().arch_timestamp());
  unlink(path.c_str());
}

TEST(JitDumpReader, TruncatedLastRecordIsDroppedWithAWarning) {
  JitDumpBuilder dump(7);
  dump.Load({.timestamp = 1,
             .pid = 7,
             .tid = 7,
             .code_addr = 0x1000,
             .code_index = 1,
             .name = "a",
             .code = Code(16, 0)});
  size_t second = dump.size();
  dump.Load({.timestamp = 2,
             .pid = 7,
             .tid = 7,
             .code_addr = 0x2000,
             .code_index = 2,
             .name = "b",
             .code = Code(64, 0)});
  for (size_t cut : {second + 3, second + 20, dump.size() - 1}) {
    std::string path = TempPath("trunc");
    dump.WriteTo(path, cut);
    absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
    ASSERT_TRUE(reader.ok()) << reader.status();
    std::vector<JitRecord> records = ReadAll(**reader);
    EXPECT_EQ(records.size(), 1u) << "cut at " << cut;
    ASSERT_EQ((*reader)->warnings().size(), 1u);
    EXPECT_THAT((*reader)->warnings()[0], HasSubstr(absl::StrFormat("offset %#x", second)));
    unlink(path.c_str());
  }
}

TEST(JitDumpReader, UnknownRecordsAreSkippedWithOneWarning) {
  JitDumpBuilder dump(7);
  dump.Raw(9, 1, {1, 2, 3, 4, 5, 6, 7, 8});
  dump.Raw(12, 2, {});
  dump.Close(3);
  std::string path = TempPath("unknown");
  dump.WriteTo(path);
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  ASSERT_TRUE(reader.ok());
  std::vector<JitRecord> records = ReadAll(**reader);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].id, kJitCodeClose);
  EXPECT_THAT(
      (*reader)->warnings(),
      ElementsAre(HasSubstr("skipped 2 record(s) of unknown type (first: id 9 at offset 0x28)")));
  unlink(path.c_str());
}

// Each case breaks one size or field; the error must name the offset and the field.
struct BadCase {
  const char* name;
  void (*mutate)(JitDumpBuilder&);
  const char* message;
};

class JitDumpBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(JitDumpBadInputTest, ErrorNamesOffsetAndField) {
  JitDumpBuilder dump(7);
  GetParam().mutate(dump);
  std::string path = TempPath(GetParam().name);
  dump.WriteTo(path);
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  absl::Status status = reader.status();
  if (reader.ok()) {
    while (true) {
      absl::StatusOr<std::optional<JitRecord>> r = (*reader)->Next();
      if (!r.ok()) {
        status = r.status();
        break;
      }
      if (!*r) break;
    }
  }
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr(GetParam().message));
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  unlink(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, JitDumpBadInputTest,
    ::testing::Values(
        BadCase{"magic", [](JitDumpBuilder& d) { d.Patch32(0, 0x12345678); },
                "offset 0: not a jitdump (magic 0x12345678"},
        BadCase{"version", [](JitDumpBuilder& d) { d.Patch32(4, 2); },
                "offset 0x4: jitdump version 2 is not supported"},
        BadCase{"flags", [](JitDumpBuilder& d) { d.Patch64(32, 6); },
                "offset 0x20: unknown header flags 0x6"},
        BadCase{"header_size", [](JitDumpBuilder& d) { d.Patch32(8, 12); },
                "offset 0x8: header size 12"},
        BadCase{"record_size", [](JitDumpBuilder& d) { d.Close(1).Close(2).LastRecordSize(8); },
                "offset 0x38: CODE_CLOSE record: size 8 is smaller than the record prefix"},
        BadCase{"move_size",
                [](JitDumpBuilder& d) { d.Raw(1 /* CODE_MOVE */, 1, std::vector<uint8_t>(8, 0)); },
                "offset 0x28: CODE_MOVE record: size 24 is too small (64 needed)"},
        BadCase{"code_size",
                [](JitDumpBuilder& d) {
                  d.Load({.pid = 7, .tid = 7, .code_addr = 1, .name = "f", .code = Code(8, 0)});
                  d.Patch64(d.last_record_offset() + 40, 1u << 30);
                },
                "offset 0x28: CODE_LOAD record: code_size 1073741824 does not fit"},
        BadCase{"name",
                [](JitDumpBuilder& d) {
                  d.Load({.pid = 7, .tid = 7, .code_addr = 1, .name = "fff", .code = Code(8, 1)});
                  d.Patch64(d.last_record_offset() + 40, 11);  // the NUL is now code
                },
                "CODE_LOAD record: the function name is not NUL-terminated"},
        BadCase{"nr_entry",
                [](JitDumpBuilder& d) {
                  d.Debug(1, 0x1000, {{0x1000, 1, 0, "x.js"}});
                  d.Patch64(d.last_record_offset() + 24, 1000);
                },
                "offset 0x28: CODE_DEBUG_INFO record: nr_entry 1000 entries cannot fit"},
        BadCase{"debug_name",
                [](JitDumpBuilder& d) {
                  d.Debug(1, 0x1000, {{0x1000, 1, 0, "abcdefghijklmnopqrstuvw"}});
                  d.LastRecordSize(32 + 16 + 8);
                  d.Close(2);
                },
                "is not NUL-terminated in the record"},
        BadCase{"unwinding_size",
                [](JitDumpBuilder& d) {
                  d.Unwinding(1, {1, 2, 3, 4}, {5, 6, 7, 8}, 8);
                  d.Patch64(d.last_record_offset() + 16, 4096);
                },
                "CODE_UNWINDING_INFO record: unwinding_size 4096 does not fit"},
        BadCase{"eh_frame_hdr_size",
                [](JitDumpBuilder& d) {
                  d.Unwinding(1, {1, 2, 3, 4}, {5, 6, 7, 8}, 8);
                  d.Patch64(d.last_record_offset() + 24, 9);
                },
                "eh_frame_hdr_size 9 is larger than unwinding_size 8"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(JitDumpReader, MissingFileNamesThePath) {
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader =
      JitDumpReader::Open("/nonexistent/jit-1.dump");
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr("/nonexistent/jit-1.dump"));
}

TEST(JitDumpReader, RecordsLargerThanTheReadBufferAreRead) {
  JitDumpBuilder dump(7);
  dump.Load({.timestamp = 1,
             .pid = 7,
             .tid = 7,
             .code_addr = 0x1000,
             .code_index = 1,
             .name = "small",
             .code = Code(100, 0)});
  dump.Load({.timestamp = 2,
             .pid = 7,
             .tid = 7,
             .code_addr = 0x2000,
             .code_index = 2,
             .name = "big",
             .code = Code(3 << 20, 5)});
  dump.Close(3);
  std::string path = TempPath("big");
  dump.WriteTo(path);
  absl::StatusOr<std::unique_ptr<JitDumpReader>> reader = JitDumpReader::Open(path);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->Next().ok());
  absl::StatusOr<std::optional<JitRecord>> big = (*reader)->Next();
  ASSERT_TRUE(big.ok() && *big);
  const auto& load = std::get<CodeLoad>((*big)->body);
  EXPECT_EQ(load.name, "big");
  ASSERT_EQ(load.code.size(), 3u << 20);
  EXPECT_EQ(load.code[(3 << 20) - 1], std::byte{static_cast<uint8_t>(5 + (3 << 20) - 1)});
  absl::StatusOr<std::optional<JitRecord>> close = (*reader)->Next();
  ASSERT_TRUE(close.ok() && *close);
  EXPECT_EQ((*close)->id, kJitCodeClose);
  unlink(path.c_str());
}

}  // namespace
}  // namespace perftk::jit
