// JitTool on synthetic recordings: perf.data written with PerfDataWriter,
// jitdumps with JitDumpBuilder, the result read back with PerfDataReader.
#include "jit/jit_tool.h"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../testing/v8_eh_frame.h"
#include "base/warnings.h"
#include "elf/build_id_cache.h"
#include "elf/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitdump_builder.h"
#include "perf/features.h"
#include "perf/reader.h"
#include "perf/writer.h"
#include "pipeline/pipeline.h"

namespace perftk::jit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::JitDumpBuilder;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

constexpr uint32_t kPid = 4100;
constexpr uint32_t kOtherPid = 4200;
constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
constexpr uint64_t kEventId = 77;
constexpr uint32_t kCpu = 3;

struct Options {
  bool monotonic = true;
  uint64_t sample_type = kSampleType;
};

perf::EventAttr MakeAttr(const Options& o) {
  perf::EventAttr attr;
  attr.SetU32(attr_offset::kType, PERF_TYPE_SOFTWARE);
  attr.set_sample_type(o.sample_type);
  uint64_t flags = 1ULL << kAttrFlagSampleIdAll;
  if (o.monotonic) flags |= 1ULL << kAttrFlagUseClockid;
  attr.SetU64(attr_offset::kFlags, flags);
  attr.SetU32(attr_offset::kClockid, o.monotonic ? 1 : 0);
  attr.ids() = {kEventId};
  return attr;
}

// Builds a recording record by record, each with the sample_id the attr asks for.
class Recording {
 public:
  explicit Recording(const Options& o = {}) {
    header_.events.Add(MakeAttr(o));
    format_ = header_.events.format(0);
  }

  void Mmap2(uint64_t time, uint32_t pid, uint64_t start, uint64_t len, const std::string& name) {
    std::vector<std::byte> body;
    base::Append<uint32_t>(body, pid);
    base::Append<uint32_t>(body, pid);
    base::Append<uint64_t>(body, start);
    base::Append<uint64_t>(body, len);
    base::Append<uint64_t>(body, 0);
    for (int i = 0; i < 3; ++i) base::Append<uint64_t>(body, 0);  // maj, min, ino, ino_generation
    base::Append<uint32_t>(body, PROT_READ | PROT_EXEC);
    base::Append<uint32_t>(body, MAP_PRIVATE);
    base::AppendBytes(body, base::AsBytes(name.data(), name.size()));
    body.resize(base::AlignUp(body.size() + 1, 8));
    Trailer(body, pid, time);
    records_.push_back(*perf::MakeRecordBytes(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body));
  }

  void Sample(uint64_t time, uint32_t pid, uint64_t ip) {
    perftk::perf::Sample s;
    s.identifier = kEventId;
    s.ip = ip;
    s.pid = s.tid = pid;
    s.time = time;
    s.cpu = kCpu;
    s.period = 1;
    std::vector<std::byte> body;
    perf::EncodeSample(format_, s, body);
    records_.push_back(*perf::MakeRecordBytes(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body));
  }

  void TimeConv(uint64_t shift, uint64_t mult, uint64_t zero) {
    std::vector<std::byte> body;
    base::Append<uint64_t>(body, shift);
    base::Append<uint64_t>(body, mult);
    base::Append<uint64_t>(body, zero);
    records_.push_back(*perf::MakeRecordBytes(PERF_RECORD_TIME_CONV, 0, body));
  }

  void FinishedRound() {
    records_.push_back(*perf::MakeRecordBytes(PERF_RECORD_FINISHED_ROUND, 0, {}));
  }

  void Write(const std::string& path) {
    auto writer = perf::PerfDataWriter::Create(path, perf::DataLayout::kFile, header_);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (const auto& r : records_) ASSERT_TRUE((*writer)->WriteBytes(r).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }

 private:
  void Trailer(std::vector<std::byte>& body, uint32_t pid, uint64_t time) {
    perf::SampleId id;
    id.pid = id.tid = pid;
    id.time = time;
    id.cpu = kCpu;
    id.identifier = kEventId;
    perf::EncodeSampleId(format_, id, body);
  }

  perf::Header header_;
  perf::SampleFormat format_;
  std::vector<std::vector<std::byte>> records_;
};

struct OutRecord {
  uint32_t type;
  std::optional<uint64_t> time;
  std::vector<std::byte> bytes;
};

std::vector<OutRecord> ReadBack(const std::string& path, perf::Header* header = nullptr) {
  std::vector<OutRecord> out;
  auto reader = perf::PerfDataReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return out;
  if (header) *header = (*reader)->header();
  while (true) {
    auto r = (*reader)->Next();
    EXPECT_TRUE(r.ok());
    if (!r.ok() || !*r) break;
    base::Bytes b = (*r)->bytes();
    out.push_back(OutRecord{(*r)->type(), (*reader)->header().events.TimeOf(**r),
                            std::vector<std::byte>(b.begin(), b.end())});
  }
  return out;
}

std::vector<uint8_t> Code(size_t n) { return std::vector<uint8_t>(n, 0xc3); }

class JitToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterized test's name holds a '/': one directory level, not two,
    // so that TearDown removes all it made.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = ::testing::TempDir() + "/jit_tool_test." + std::to_string(getpid()) + "." + name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    dump_path_ = dir_ + "/jit-" + std::to_string(kPid) + ".dump";
    in_ = dir_ + "/perf.data";
    out_ = dir_ + "/jit.data";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The usual recording: a //anon map before the marker, the marker, samples,
  // a //anon map after it, and another process's //anon map.
  void WriteRecording(const Options& o = {}) {
    Recording rec(o);
    rec.Mmap2(5, kPid, 0x1000, 0x10000, "//anon");
    rec.Mmap2(10, kPid, 0x7000000, 4096, dump_path_);
    rec.Sample(15, kPid, 0x1010);
    rec.FinishedRound();
    rec.Sample(25, kPid, 0x1010);
    rec.Mmap2(31, kPid, 0x1000, 0x20000, "//anon");
    rec.Mmap2(31, kOtherPid, 0x1000, 0x20000, "//anon");
    rec.Sample(35, kPid, 0x1010);
    rec.FinishedRound();
    rec.Write(in_);
  }

  JitDumpBuilder UsualDump() {
    JitDumpBuilder dump(kPid);
    dump.Debug(19, 0x1000, {{0x1000, 3, 1, "/app/a.js"}, {0x1008, 4, 2, "/app/a.js"}});
    dump.Unwinding(19, {1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12}, 12);
    dump.Load({.timestamp = 20,
               .pid = kPid,
               .tid = kPid + 1,
               .code_addr = 0x1000,
               .code_index = 1,
               .name = "JS:*first",
               .code = Code(20)});
    dump.Load({.timestamp = 30,
               .pid = kPid,
               .tid = kPid,
               .code_addr = 0x1000,
               .code_index = 2,
               .name = "JS:*second",
               .code = Code(40)});
    dump.Move({.timestamp = 32,
               .pid = kPid,
               .tid = kPid,
               .old_code_addr = 0x1000,
               .new_code_addr = 0x5000,
               .code_size = 20,
               .code_index = 1});
    return dump;
  }

  absl::Status Run(JitToolOptions options = {}, std::vector<std::string>* warnings = nullptr) {
    perftk::base::WarningList tool_warnings;
    JitTool tool(options, tool_warnings);
    pipeline::PipelineOptions run_options;
    run_options.input = in_;
    run_options.output = out_;
    run_options.ordered = true;
    perftk::base::WarningList reader_warnings;
    absl::StatusOr<pipeline::PipelineStats> stats =
        pipeline::RunPipeline(tool, run_options, reader_warnings);
    if (warnings) *warnings = tool_warnings.lines();
    if (stats.ok()) tool.Commit();
    return stats.status();
  }

  std::vector<std::string> SoFiles() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      std::string name = e.path().filename();
      if (name.find(".so") != std::string::npos) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir_, dump_path_, in_, out_;
};

struct Mmap2Summary {
  uint64_t time, start, len, pgoff;
  std::string filename;
};

std::vector<Mmap2Summary> Mmap2s(const std::vector<OutRecord>& records) {
  std::vector<Mmap2Summary> out;
  for (const OutRecord& r : records) {
    if (r.type != PERF_RECORD_MMAP2) continue;
    perf::Record record(r.bytes, 0);
    auto m = perf::Mmap2Record::From(record);
    out.push_back(
        {r.time.value_or(0), m->start(), m->len(), m->pgoff(), std::string(m->filename())});
  }
  return out;
}

TEST_F(JitToolTest, InjectsMmap2sInTimeOrderAndDropsLaterAnonMaps) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);
  ASSERT_TRUE(Run().ok());

  perf::Header header;
  std::vector<OutRecord> records = ReadBack(out_, &header);
  std::vector<Mmap2Summary> mmaps = Mmap2s(records);
  std::string so1 = dir_ + "/jitted-4100-1.so", so2 = dir_ + "/jitted-4100-2.so";
  ASSERT_EQ(mmaps.size(), 5u);
  // The //anon before the marker stays; the marker goes.
  EXPECT_EQ(mmaps[0].filename, "//anon");
  EXPECT_EQ(mmaps[0].time, 5u);
  // Load 1 with its unwinding data: len = ALIGN_8(20) + mapped 12.
  EXPECT_EQ(mmaps[1].time, 20u);
  EXPECT_EQ(mmaps[1].filename, so1);
  EXPECT_EQ(mmaps[1].start, 0x1000u);
  EXPECT_EQ(mmaps[1].len, 24u + 12);
  EXPECT_EQ(mmaps[1].pgoff, 0x80u);
  EXPECT_EQ(mmaps[2].time, 30u);
  EXPECT_EQ(mmaps[2].filename, so2);
  EXPECT_EQ(mmaps[2].len, 40u);
  // The other process keeps its //anon; this one's at 31 is dropped.
  EXPECT_EQ(mmaps[3].time, 31u);
  EXPECT_EQ(mmaps[3].filename, "//anon");
  EXPECT_EQ(mmaps[4].time, 32u);
  EXPECT_EQ(mmaps[4].filename, so1);
  EXPECT_EQ(mmaps[4].start, 0x5000u);

  uint64_t last = 0;
  int rounds = 0;
  for (const OutRecord& r : records) {
    if (r.type == PERF_RECORD_FINISHED_ROUND) ++rounds;
    if (!r.time) continue;
    EXPECT_GE(*r.time, last) << "out of time order";
    last = *r.time;
  }
  EXPECT_EQ(rounds, 2);
  EXPECT_THAT(SoFiles(), ElementsAre("jitted-4100-1.so", "jitted-4100-2.so"));
}

TEST_F(JitToolTest, ReusedAddressBelongsToTheLaterLoadFromItsTime) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);  // loads 1 (t=20) and 2 (t=30), both at 0x1000
  ASSERT_TRUE(Run().ok());
  // What a reader sees in order: load 1's map, the sample at 25, load 2's
  // map, the sample at 35; so 0x1010 is load 1's at 25 and load 2's at 35.
  std::vector<std::string> sequence;
  for (const OutRecord& r : ReadBack(out_)) {
    if (r.type == PERF_RECORD_SAMPLE && r.time >= 20u) {
      sequence.push_back("sample@" + std::to_string(*r.time));
    } else if (r.type == PERF_RECORD_MMAP2 && r.time >= 20u) {
      perf::Record record(r.bytes, 0);
      auto m = perf::Mmap2Record::From(record);
      if (m->start() != 0x1000 || m->pid() != kPid) continue;
      std::string name(m->filename());
      sequence.push_back(name.substr(name.rfind('/') + 1));
    }
  }
  EXPECT_THAT(sequence,
              ElementsAre("jitted-4100-1.so", "sample@25", "jitted-4100-2.so", "sample@35"));
}

TEST_F(JitToolTest, DebugAndUnwindingInfoGoToTheNextLoadOnly) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);  // DEBUG_INFO and UNWINDING_INFO before load 1
  ASSERT_TRUE(Run().ok());
  auto first = elf::ElfFile::Open(dir_ + "/jitted-4100-1.so");
  auto second = elf::ElfFile::Open(dir_ + "/jitted-4100-2.so");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  auto bytes_of = [](const elf::ElfFile& elf, const char* name) {
    const elf::Section* section = elf.FindSection(name);
    if (section == nullptr) return std::string("(none)");
    auto bytes = elf.SectionBytes(*section);
    return bytes.ok() ? std::string(bytes->data(), bytes->size()) : std::string("(error)");
  };
  EXPECT_EQ(bytes_of(**first, ".eh_frame"), std::string("\x01\x02\x03\x04\x05\x06\x07\x08"));
  EXPECT_EQ(bytes_of(**first, ".eh_frame_hdr"), std::string("\x09\x0a\x0b\x0c"));
  EXPECT_NE((*first)->FindSection(".debug_line"), nullptr);
  EXPECT_EQ((*second)->FindSection(".eh_frame"), nullptr);
  EXPECT_EQ((*second)->FindSection(".debug_line"), nullptr);
}

TEST_F(JitToolTest, InjectedMmap2HasReadExecProtAndACompleteSampleId) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);
  ASSERT_TRUE(Run().ok());
  perf::Header header;
  std::vector<OutRecord> records = ReadBack(out_, &header);
  const OutRecord* injected = nullptr;
  for (const OutRecord& r : records) {
    if (r.type == PERF_RECORD_MMAP2 && r.time == 20u) injected = &r;
  }
  ASSERT_NE(injected, nullptr);
  perf::Record record(injected->bytes, 0);
  auto m = perf::Mmap2Record::From(record);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->prot(), uint32_t{PROT_READ | PROT_EXEC});
  EXPECT_EQ(m->pid(), kPid);
  EXPECT_EQ(m->tid(), kPid + 1);
  EXPECT_EQ(m->ino_generation(), 1u);
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/jitted-4100-1.so").c_str(), &st), 0);
  EXPECT_EQ(m->ino(), st.st_ino);
  EXPECT_EQ(record.misc(), PERF_RECORD_MISC_USER);
  absl::StatusOr<perf::SampleId> id = perf::DecodeSampleId(header.events.format(0), record.bytes());
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->pid, kPid);
  EXPECT_EQ(id->tid, kPid + 1);
  EXPECT_EQ(id->time, 20u);
  EXPECT_EQ(id->cpu, kCpu);
  EXPECT_EQ(id->identifier, kEventId);
}

TEST_F(JitToolTest, MergeWritesOneFileWithAnOffsetPerLoad) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);
  std::vector<std::string> warnings;
  ASSERT_TRUE(Run({.merge = true}, &warnings).ok());
  // Load 1's unwinding tables are no .eh_frame perftk can read: it keeps a
  // file of its own, with its tables mapped after its code as perf writes
  // it, and a warning; load 2 goes into the merged file.
  EXPECT_THAT(SoFiles(), ElementsAre("jitted-4100-1.so", "jitted-4100-merged.so"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr(dump_path_ + " offset "));
  EXPECT_THAT(warnings[0], HasSubstr(": UNWINDING_INFO of code_index 1: unwinding tables of "
                                     "JS:*first: .eh_frame offset 0: record length"));
  EXPECT_THAT(warnings[0], HasSubstr("the load keeps a file of its own"));
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 5u);
  std::string merged = dir_ + "/jitted-4100-merged.so";
  EXPECT_EQ(mmaps[1].filename, dir_ + "/jitted-4100-1.so");
  EXPECT_EQ(mmaps[1].pgoff, 0x80u);
  EXPECT_EQ(mmaps[1].len, 24u + 12);
  EXPECT_EQ(mmaps[2].filename, merged);
  EXPECT_EQ(mmaps[2].pgoff, 0x80u);
  EXPECT_EQ(mmaps[2].len, 40u);
  EXPECT_EQ(mmaps[4].filename, dir_ + "/jitted-4100-1.so");  // the move keeps load 1's file
  EXPECT_EQ(mmaps[4].start, 0x5000u);
  // No unwinding info came with load 2: the merged file has no tables at all.
  auto elf = elf::ElfFile::Open(merged);
  ASSERT_TRUE(elf.ok()) << elf.status();
  EXPECT_EQ((*elf)->FindSection(".eh_frame_hdr"), nullptr);
}

TEST_F(JitToolTest, MergeKeepsLoadsWithoutTablesTogetherAndSaysSo) {
  WriteRecording();
  JitDumpBuilder dump(kPid);
  // What V8 writes for builtins: no .eh_frame, a header of no entries.
  std::vector<uint8_t> empty_header = {1, 0x1b, 3, 0x3b, 0, 0, 0, 0, 0, 0, 0, 0};
  for (uint64_t i = 1; i <= 3; ++i) {
    dump.Unwinding(10 + i, {}, empty_header, 0);
    dump.Load({.timestamp = 10 + i,
               .pid = kPid,
               .tid = kPid,
               .code_addr = 0x1000 * i,
               .code_index = i,
               .name = "Builtin:b" + std::to_string(i),
               .code = Code(20)});
  }
  dump.WriteTo(dump_path_);
  ASSERT_TRUE(Run({.merge = true}).ok());
  EXPECT_THAT(SoFiles(), ElementsAre("jitted-4100-merged.so"));
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 5u);  // //anon, 3 loads, the other pid's //anon
  EXPECT_EQ(mmaps[1].pgoff, 0x80u);
  EXPECT_EQ(mmaps[2].pgoff, 0xa0u);  // 0x80 + 20, aligned to 16
  EXPECT_EQ(mmaps[3].pgoff, 0xc0u);
  EXPECT_EQ(mmaps[3].len, 20u);
  auto elf = elf::ElfFile::Open(dir_ + "/jitted-4100-merged.so");
  ASSERT_TRUE(elf.ok()) << elf.status();
  const elf::Section* eh_frame = (*elf)->FindSection(".eh_frame");
  const elf::Section* header = (*elf)->FindSection(".eh_frame_hdr");
  ASSERT_NE(eh_frame, nullptr);
  ASSERT_NE(header, nullptr);
  EXPECT_EQ(eh_frame->size, 4u);  // the terminator
  EXPECT_EQ(eh_frame->addr + 4, header->addr);
  EXPECT_GE(eh_frame->addr, 0xc0u + 20);  // after the code
  auto bytes = (*elf)->SectionBytes(*header);
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(bytes->size(), 8u);
  EXPECT_EQ(static_cast<uint8_t>((*bytes)[0]), 1);     // version
  EXPECT_EQ(static_cast<uint8_t>((*bytes)[2]), 0xff);  // no fde_count: no search table
}

std::vector<uint8_t> AsUint8(const std::vector<std::byte>& bytes) {
  std::vector<uint8_t> out(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

TEST_F(JitToolTest, MergePutsEveryLoadsTablesInTheOneFile) {
  WriteRecording();
  JitDumpBuilder dump(kPid);
  std::vector<uint8_t> empty_header = {1, 0x1b, 3, 0x3b, 0, 0, 0, 0, 0, 0, 0, 0};
  std::vector<uint64_t> sizes = {0x40, 0x33, 0x20};
  for (uint64_t i = 0; i < sizes.size(); ++i) {
    // Loads 0 and 2 come with V8's tables (mapped after the code in the
    // process), load 1 with V8's "none".
    std::vector<uint8_t> table =
        i == 1 ? std::vector<uint8_t>{} : AsUint8(::perftk::testing::V8Table(sizes[i]));
    dump.Unwinding(11 + i, table, empty_header, table.size() + empty_header.size());
    dump.Load({.timestamp = 11 + i,
               .pid = kPid,
               .tid = kPid,
               .code_addr = 0x10000 * (i + 1),
               .code_index = i,
               .name = "JS:*f" + std::to_string(i),
               .code = Code(sizes[i])});
  }
  dump.WriteTo(dump_path_);
  std::vector<std::string> warnings;
  ASSERT_TRUE(Run({.merge = true}, &warnings).ok());
  EXPECT_THAT(warnings, ::testing::IsEmpty());
  EXPECT_THAT(SoFiles(), ElementsAre("jitted-4100-merged.so"));
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 5u);  // //anon, 3 loads, the other pid's //anon
  std::vector<uint64_t> pgoffs;
  for (uint64_t i = 0; i < sizes.size(); ++i) {
    // The merged file maps the code only: its tables are after all the code.
    EXPECT_EQ(mmaps[1 + i].len, sizes[i]);
    pgoffs.push_back(mmaps[1 + i].pgoff);
  }
  EXPECT_EQ(pgoffs, (std::vector<uint64_t>{0x80, 0xc0, 0x100}));
  std::string command = "readelf --debug-dump=frames " + dir_ + "/jitted-4100-merged.so";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string frames;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) frames.append(buf, n);
  pclose(pipe);
  EXPECT_THAT(frames, HasSubstr("pc=0000000000000080..00000000000000be"));
  EXPECT_THAT(frames, HasSubstr("pc=0000000000000100..000000000000011e"));
  EXPECT_THAT(frames, ::testing::Not(HasSubstr("pc=00000000000000c0")));
}

TEST_F(JitToolTest, JitDirTakesTheFiles) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);
  std::string other = dir_ + "/elsewhere";
  std::filesystem::create_directories(other);
  ASSERT_TRUE(Run({.jit_dir = other}).ok());
  EXPECT_TRUE(SoFiles().empty());
  EXPECT_TRUE(std::filesystem::exists(other + "/jitted-4100-2.so"));
  EXPECT_EQ(Mmap2s(ReadBack(out_))[2].filename, other + "/jitted-4100-2.so");
}

TEST_F(JitToolTest, ForeignByteOrderDump) {
  WriteRecording();
  JitDumpBuilder dump(kPid, testing::kForeign);
  dump.Load({.timestamp = 20,
             .pid = kPid,
             .tid = kPid,
             .code_addr = 0x1000,
             .code_index = 9,
             .name = "f",
             .code = Code(8)});
  dump.WriteTo(dump_path_);
  ASSERT_TRUE(Run().ok());
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 3u);
  EXPECT_EQ(mmaps[1].filename, dir_ + "/jitted-4100-9.so");
  EXPECT_EQ(mmaps[1].start, 0x1000u);
  EXPECT_EQ(mmaps[1].time, 20u);
}

TEST_F(JitToolTest, ArchTimestampsAreConvertedThroughTimeConv) {
  Recording rec;
  rec.TimeConv(1, 2, 1000);  // perf time = 1000 + cycles
  rec.Mmap2(1010, kPid, 0x7000000, 4096, dump_path_);
  rec.Sample(1100, kPid, 0x1010);
  rec.Write(in_);
  JitDumpBuilder dump(kPid, testing::kNative, kJitFlagArchTimestamp);
  dump.Load({.timestamp = 50,
             .pid = kPid,
             .tid = kPid,
             .code_addr = 0x1000,
             .code_index = 1,
             .name = "f",
             .code = Code(8)});
  dump.WriteTo(dump_path_);
  ASSERT_TRUE(Run().ok());
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 1u);
  EXPECT_EQ(mmaps[0].time, 1050u);
}

TEST_F(JitToolTest, RecordingWithoutMonotonicClockIsRefusedWithAHint) {
  WriteRecording({.monotonic = false});
  UsualDump().WriteTo(dump_path_);
  absl::Status s = Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("perf record -k 1"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(dump_path_));
  EXPECT_FALSE(std::filesystem::exists(out_));
  EXPECT_TRUE(SoFiles().empty());
}

TEST_F(JitToolTest, CorruptDumpFailsWithoutAnyOutput) {
  WriteRecording();
  JitDumpBuilder dump = UsualDump();
  dump.Load({.timestamp = 33,
             .pid = kPid,
             .tid = kPid,
             .code_addr = 0x9000,
             .code_index = 5,
             .name = "bad",
             .code = Code(8)});
  dump.Patch64(dump.last_record_offset() + 40, 1ULL << 40);  // code_size
  dump.WriteTo(dump_path_);
  absl::Status s = Run();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("code_size 1099511627776 does not fit"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(dump_path_));
  EXPECT_FALSE(std::filesystem::exists(out_));
  EXPECT_TRUE(SoFiles().empty()) << "the .so files of a failed run are removed";
}

TEST_F(JitToolTest, TruncatedDumpTailIsAWarning) {
  WriteRecording();
  JitDumpBuilder dump = UsualDump();
  dump.WriteTo(dump_path_, dump.size() - 5);  // the CODE_MOVE is cut short
  std::vector<std::string> warnings;
  ASSERT_TRUE(Run({}, &warnings).ok());
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("CODE_MOVE record of 64 bytes is cut short")));
  EXPECT_EQ(Mmap2s(ReadBack(out_)).size(), 4u);
}

TEST_F(JitToolTest, MissingDumpKeepsTheMarkerAndTheAnonMaps) {
  WriteRecording();
  std::vector<std::string> warnings;
  ASSERT_TRUE(Run({}, &warnings).ok());
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("cannot be read")));
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 4u);
  EXPECT_EQ(mmaps[1].filename, dump_path_);
  EXPECT_EQ(mmaps[2].filename, "//anon");
}

TEST_F(JitToolTest, ProcessInAPidNamespace) {
  // Node in a container: pid 7 there, kPid outside; it names its dump with 7.
  constexpr uint32_t kNamespacePid = 7;
  std::string dump_path = dir_ + "/jit-7.dump";
  Recording rec;
  rec.Mmap2(10, kPid, 0x7000000, 4096, dump_path);
  rec.Sample(25, kPid, 0x1010);
  rec.Mmap2(31, kPid, 0x1000, 0x20000, "//anon");
  rec.Write(in_);
  JitDumpBuilder dump(kNamespacePid);
  dump.Load({.timestamp = 20,
             .pid = kNamespacePid,
             .tid = kNamespacePid + 1,
             .code_addr = 0x1000,
             .code_index = 3,
             .name = "JS:*f",
             .code = Code(16)});
  dump.WriteTo(dump_path);
  ASSERT_TRUE(Run().ok());
  std::vector<OutRecord> records = ReadBack(out_);
  std::vector<Mmap2Summary> mmaps = Mmap2s(records);
  ASSERT_EQ(mmaps.size(), 1u) << "the marker and the later //anon are gone";
  EXPECT_EQ(mmaps[0].filename, dir_ + "/jitted-7-3.so");  // perf's name: the dump's pid
  for (const OutRecord& r : records) {
    if (r.type != PERF_RECORD_MMAP2) continue;
    perf::Record record(r.bytes, 0);
    auto m = perf::Mmap2Record::From(record);
    EXPECT_EQ(m->pid(), kPid) << "namespace pids become the mapping's pid";
    EXPECT_EQ(m->tid(), kPid);
  }
}

TEST_F(JitToolTest, MarkerOfAnotherPidNeedsADumpOfThatPid) {
  // jit-7.dump mapped by kPid, but the dump there was written by pid 9: not
  // this process's dump, so nothing is injected and its maps stay.
  std::string dump_path = dir_ + "/jit-7.dump";
  Recording rec;
  rec.Mmap2(10, kPid, 0x7000000, 4096, dump_path);
  rec.Mmap2(31, kPid, 0x1000, 0x20000, "//anon");
  rec.Write(in_);
  JitDumpBuilder dump(9);
  dump.Load({.timestamp = 20,
             .pid = 9,
             .tid = 9,
             .code_addr = 0x1000,
             .code_index = 3,
             .name = "f",
             .code = Code(16)});
  dump.WriteTo(dump_path);
  std::vector<std::string> warnings;
  ASSERT_TRUE(Run({}, &warnings).ok());
  EXPECT_THAT(warnings, ElementsAre(HasSubstr("no readable jitdump there has pid 7")));
  std::vector<Mmap2Summary> mmaps = Mmap2s(ReadBack(out_));
  ASSERT_EQ(mmaps.size(), 2u);
  EXPECT_EQ(mmaps[0].filename, dump_path);
  EXPECT_EQ(mmaps[1].filename, "//anon");
  EXPECT_TRUE(SoFiles().empty());
}

TEST(DumpCandidates, TheProcessRootThenTheRecordedPath) {
  EXPECT_THAT(DumpCandidates("/app/jit-1.dump", 4100),
              ElementsAre("/proc/4100/root/app/jit-1.dump", "/app/jit-1.dump"));
  EXPECT_THAT(DumpCandidates("/app/jit-1.dump", 0), ElementsAre("/app/jit-1.dump"));
  EXPECT_THAT(DumpCandidates("jit-1.dump", 4100), ElementsAre("jit-1.dump"));
}

TEST_F(JitToolTest, BuildIdTableListsEveryFileWritten) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);
  ASSERT_TRUE(Run().ok());
  perf::Header header;
  ReadBack(out_, &header);
  auto entries = perf::ReadBuildIds(header.features);
  ASSERT_TRUE(entries.ok()) << entries.status();
  std::vector<std::string> names;
  for (const perf::BuildIdEntry& e : *entries) {
    names.push_back(e.filename);
    auto elf = elf::ElfFile::Open(e.filename);
    ASSERT_TRUE(elf.ok()) << elf.status();
    EXPECT_EQ((*elf)->BuildId(), e.build_id) << e.filename;
    EXPECT_EQ(e.pid, -1);
    EXPECT_EQ(e.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_USER);
  }
  EXPECT_THAT(names, UnorderedElementsAre(dir_ + "/jitted-4100-1.so", dir_ + "/jitted-4100-2.so"));
}

TEST_F(JitToolTest, BuildIdCacheHasPerfsLayout) {
  WriteRecording();
  UsualDump().WriteTo(dump_path_);
  std::string cache = dir_ + "/cache";
  ASSERT_TRUE(Run({.buildid_cache_dir = cache}).ok());
  for (const char* name : {"jitted-4100-1.so", "jitted-4100-2.so"}) {
    std::string so = dir_ + "/" + name;
    auto elf = elf::ElfFile::Open(so);
    ASSERT_TRUE(elf.ok()) << elf.status();
    std::string hex = (*elf)->BuildId().value_or(base::BuildId()).ToHex();
    ASSERT_EQ(hex.size(), 40u);
    // perf names entries by the file's real path (no "//", "..", links).
    const std::string real = std::filesystem::canonical(so).string();
    std::string entry = cache + real + "/" + hex;
    struct stat original, cached;
    ASSERT_EQ(stat(so.c_str(), &original), 0);
    ASSERT_EQ(stat((entry + "/elf").c_str(), &cached), 0) << entry;
    EXPECT_EQ(cached.st_ino, original.st_ino) << "a hard link";
    std::string link = cache + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
    char target[4096];
    ssize_t n = readlink(link.c_str(), target, sizeof(target));
    ASSERT_GT(n, 0) << link;
    EXPECT_EQ(std::string(target, n), "../.." + real + "/" + hex);
    ASSERT_EQ(stat((link + "/elf").c_str(), &cached), 0);
    EXPECT_EQ(cached.st_ino, original.st_ino);
  }
  // A second run finds everything in place and succeeds.
  ASSERT_TRUE(Run({.buildid_cache_dir = cache}).ok());
}

// Issue 30, D5: the jitdump's path comes from the recording. With ".."
// in it, the cache entries (named by the .so files' paths, beside the dump)
// were joined to the cache directory as they were and landed outside it.
// Such a path is refused now (the marker is kept, nothing is written), and
// cache entries are named by the files' real paths (BuildIdCacheHasPerfsLayout).
TEST_F(JitToolTest, AJitdumpPathWithDotDotIsRefusedAndNothingIsWritten) {
  const std::string real_dump = dump_path_;
  dump_path_.clear();
  for (int i = 0; i < 16; ++i) dump_path_ += "/..";  // "/.." is "/": the same file
  dump_path_ += real_dump;
  WriteRecording();
  UsualDump().WriteTo(real_dump);
  const std::string cache = dir_ + "/cache";
  std::vector<std::string> warnings;
  ASSERT_TRUE(Run({.buildid_cache_dir = cache}, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("'..' component: refused"));
  EXPECT_TRUE(SoFiles().empty());
  EXPECT_FALSE(std::filesystem::exists(cache));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    names.push_back(e.path().filename());
  }
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names, ElementsAre("jit-4100.dump", "jit.data", "perf.data"));
}

TEST(JitDumpPidOf, PerfsBasenameRule) {
  EXPECT_EQ(JitDumpPidOf("/tmp/x/jit-123.dump"), 123u);
  EXPECT_EQ(JitDumpPidOf("jit-7.dump"), 7u);
  EXPECT_EQ(JitDumpPidOf("/tmp/jit-12a.dump"), std::nullopt);
  EXPECT_EQ(JitDumpPidOf("/tmp/jit-.dump"), std::nullopt);
  EXPECT_EQ(JitDumpPidOf("/tmp/jit-12.dump.old"), std::nullopt);
  EXPECT_EQ(JitDumpPidOf("/tmp/myjit-12.dump"), std::nullopt);
  EXPECT_EQ(JitDumpPidOf("/tmp/jit-99999999999.dump"), std::nullopt);
  EXPECT_TRUE(IsAnonymousMapping("//anon"));
  EXPECT_TRUE(IsAnonymousMapping("[anon:v8]"));
  EXPECT_TRUE(IsAnonymousMapping("/memfd:jit (deleted)"));
  EXPECT_FALSE(IsAnonymousMapping("[heap]"));
  EXPECT_FALSE(IsAnonymousMapping("/usr/bin/node"));
}

// --- Files created ahead on a second thread (create_ahead) ---------------

// One run's observable result: status, warnings, output bytes with the
// MMAP2s' device and inode numbers zeroed, and every .so file's bytes.
struct RunOutcome {
  absl::Status status;
  std::vector<std::string> warnings;
  bool output_exists = false;
  std::string output;
  std::map<std::string, std::string> so_files;
};

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The perf.data at `path` with the maj, min and ino fields of its MMAP2s zeroed.
std::string WithoutFileIds(const std::string& path) {
  std::string bytes = ReadWhole(path);
  auto reader = perf::PerfDataReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return bytes;
  size_t mmap2s = 0;
  while (true) {
    auto r = (*reader)->Next();
    EXPECT_TRUE(r.ok());
    if (!r.ok() || !*r) break;
    if ((*r)->type() != PERF_RECORD_MMAP2) continue;
    // header 8, pid/tid 8, start/len/pgoff 24: then maj, min (4 each), ino (8).
    size_t at = (*r)->file_offset() + 40;
    EXPECT_EQ(std::memcmp(bytes.data() + (*r)->file_offset(), (*r)->bytes().data(), 8), 0)
        << "file_offset is where the record is";
    std::memset(bytes.data() + at, 0, 16);
    ++mmap2s;
  }
  EXPECT_GT(mmap2s, 0u);
  return bytes;
}

// kCreateFailsThenCorrupt: a file cannot be created a few loads before a
// corrupt record; one thread meets the creation error first, and so must two.
enum class Scenario {
  kUsual,
  kMany,
  kManyMerged,
  kTruncated,
  kCorrupt,
  kDirInTheWay,
  kLinkInTheWay,
  kCreateFailsThenCorrupt
};

class CreateAheadTest : public JitToolTest, public ::testing::WithParamInterface<Scenario> {
 protected:
  static constexpr int kLoads = 300;

  // Many loads: code_index values seen again (with shorter code, so that a
  // file not replaced whole would show), line tables, unwinding tables,
  // moves, and a move of an index never loaded.
  JitDumpBuilder ManyLoads() {
    JitDumpBuilder dump(kPid);
    uint64_t t = 11;
    for (int i = 0; i < kLoads; ++i, ++t) {
      uint64_t index = i % 9 == 4 ? i / 3 : i;
      uint64_t addr = 0x100000 + 0x1000 * i;
      if (i % 5 == 0) {
        dump.Debug(t, addr,
                   {{addr, 10u + i, 1, "/app/f" + std::to_string(i % 3) + ".js"},
                    {addr + 4, 11u + i, 2, "/app/f.js"}});
      }
      if (i % 11 == 0) dump.Unwinding(t, {1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12}, i % 2 ? 12 : 0);
      dump.Load({.timestamp = t,
                 .pid = kPid,
                 .tid = kPid + i % 3,
                 .code_addr = addr,
                 .code_index = index,
                 .name = "JS:*f" + std::to_string(i),
                 .code = Code(900 - i)});
      if (i % 13 == 0) {
        dump.Move({.timestamp = t,
                   .pid = kPid,
                   .tid = kPid,
                   .old_code_addr = addr,
                   .new_code_addr = addr + 0x800,
                   .code_size = 8,
                   .code_index = index});
      }
    }
    dump.Move({.timestamp = t,
               .pid = kPid,
               .tid = kPid,
               .old_code_addr = 0x10,
               .new_code_addr = 0x20,
               .code_size = 8,
               .code_index = 99999});
    return dump;
  }

  void WriteInput() {
    Recording rec;
    rec.Mmap2(5, kPid, 0x1000, 0x10000, "//anon");
    rec.Mmap2(10, kPid, 0x7000000, 4096, dump_path_);
    for (uint64_t t = 12; t < 12 + kLoads; t += 50) rec.Sample(t, kPid, 0x100010);
    rec.FinishedRound();
    rec.Mmap2(2000, kPid, 0x1000, 0x20000, "//anon");
    rec.FinishedRound();
    rec.Write(in_);
    JitDumpBuilder dump = GetParam() == Scenario::kUsual ? UsualDump() : ManyLoads();
    if (GetParam() == Scenario::kCorrupt || GetParam() == Scenario::kCreateFailsThenCorrupt) {
      dump.Load({.timestamp = 1900,
                 .pid = kPid,
                 .tid = kPid,
                 .code_addr = 0x9000,
                 .code_index = 5,
                 .name = "bad",
                 .code = Code(8)});
      dump.Patch64(dump.last_record_offset() + 40, 1ULL << 40);  // code_size
    }
    dump.WriteTo(dump_path_, GetParam() == Scenario::kTruncated ? dump.size() - 5 : SIZE_MAX);
  }

  // What stands in the way of the failing scenarios, made again before each run.
  void PlantObstacle() {
    if (GetParam() == Scenario::kDirInTheWay) {
      std::filesystem::create_directory(dir_ + "/jitted-4100-100.so");
    } else if (GetParam() == Scenario::kCreateFailsThenCorrupt) {
      std::filesystem::create_directory(dir_ + "/jitted-4100-290.so");
    } else if (GetParam() == Scenario::kLinkInTheWay) {
      std::filesystem::create_symlink("/dev/full", dir_ + "/jitted-4100-50.so");
    }
  }

  RunOutcome RunWith(size_t create_ahead) {
    for (const std::string& name : SoFiles()) std::filesystem::remove_all(dir_ + "/" + name);
    std::filesystem::remove(out_);
    PlantObstacle();
    JitToolOptions options;
    options.merge = GetParam() == Scenario::kManyMerged;
    options.create_ahead = create_ahead;
    RunOutcome outcome;
    outcome.status = Run(options, &outcome.warnings);
    outcome.output_exists = std::filesystem::exists(out_);
    if (outcome.output_exists) outcome.output = WithoutFileIds(out_);
    for (const std::string& name : SoFiles()) {
      outcome.so_files[name] = std::filesystem::is_directory(dir_ + "/" + name)
                                   ? "(directory)"
                                   : ReadWhole(dir_ + "/" + name);
    }
    return outcome;
  }
};

TEST_P(CreateAheadTest, SameOutputFilesWarningsAndErrorsAsOneThread) {
  WriteInput();
  RunOutcome serial = RunWith(0);
  bool fails = GetParam() == Scenario::kCorrupt || GetParam() == Scenario::kDirInTheWay ||
               GetParam() == Scenario::kCreateFailsThenCorrupt;
  if (GetParam() == Scenario::kLinkInTheWay) {
    // A link where a .so goes is replaced by the file, not written through.
    EXPECT_FALSE(std::filesystem::is_symlink(dir_ + "/jitted-4100-50.so"));
    EXPECT_TRUE(std::filesystem::is_regular_file(dir_ + "/jitted-4100-50.so"));
  }
  ASSERT_EQ(serial.status.ok(), !fails) << serial.status;
  if (fails) {
    EXPECT_FALSE(serial.output_exists);
    if (GetParam() == Scenario::kDirInTheWay) {
      EXPECT_THAT(serial.so_files, ElementsAre(Pair("jitted-4100-100.so", "(directory)")));
    } else if (GetParam() == Scenario::kCreateFailsThenCorrupt) {
      EXPECT_THAT(serial.so_files, ElementsAre(Pair("jitted-4100-290.so", "(directory)")));
      EXPECT_THAT(std::string(serial.status.message()), HasSubstr("cannot create"));
    } else {
      EXPECT_THAT(serial.so_files, ::testing::IsEmpty());
    }
  } else {
    EXPECT_GT(serial.so_files.size(), 1u);
  }
  for (size_t ahead : {size_t{1}, size_t{7}, size_t{128}}) {
    SCOPED_TRACE(::testing::Message() << "create_ahead " << ahead);
    RunOutcome threaded = RunWith(ahead);
    EXPECT_EQ(threaded.status, serial.status);
    EXPECT_EQ(threaded.warnings, serial.warnings);
    EXPECT_EQ(threaded.output_exists, serial.output_exists);
    EXPECT_TRUE(threaded.output == serial.output) << "the output differs beyond inode numbers";
    std::vector<std::string> threaded_names, serial_names;
    for (const auto& [name, bytes] : threaded.so_files) threaded_names.push_back(name);
    for (const auto& [name, bytes] : serial.so_files) serial_names.push_back(name);
    EXPECT_EQ(threaded_names, serial_names);
    EXPECT_TRUE(threaded.so_files == serial.so_files) << "a .so file differs";
  }
}

std::string ScenarioName(const ::testing::TestParamInfo<Scenario>& info) {
  static const char* const kNames[] = {
      "Usual",   "Many",        "ManyMerged",   "Truncated",
      "Corrupt", "DirInTheWay", "LinkInTheWay", "CreateFailsThenCorrupt"};
  return kNames[static_cast<int>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Scenarios, CreateAheadTest,
                         ::testing::Values(Scenario::kUsual, Scenario::kMany, Scenario::kManyMerged,
                                           Scenario::kTruncated, Scenario::kCorrupt,
                                           Scenario::kDirInTheWay, Scenario::kLinkInTheWay,
                                           Scenario::kCreateFailsThenCorrupt),
                         ScenarioName);

}  // namespace
}  // namespace perftk::jit
