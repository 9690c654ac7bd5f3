// The recordings in tests/data (made by perf record, see the README there):
// each reads without error, the builder re-encodes every record of it to the
// same bytes perf wrote, and the recording converted to big-endian by the
// builder reads back equal to the original.
#include <dirent.h>

#include <algorithm>
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
#include "perf/sample.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

std::vector<std::byte> Copy(base::Bytes bytes) { return {bytes.begin(), bytes.end()}; }

std::vector<std::string> DataFiles() {
  std::vector<std::string> names;
  if (DIR* dir = opendir(PERFTK_TEST_DATA_DIR)) {
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".data") names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::byte> ReadData(const std::string& name) {
  std::ifstream in(absl::StrCat(PERFTK_TEST_DATA_DIR, "/", name), std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// Walks the native bytes of a record and re-describes them as typed fields.
class Rebuilder {
 public:
  Rebuilder(const perftk::perf::Record& record, size_t end)
      : bytes_(record.bytes()), end_(end), out_(record.type(), record.misc()) {}

  Rebuilder& U8() {
    out_.U8(static_cast<uint8_t>(bytes_[pos_]));
    pos_ += 1;
    return *this;
  }
  Rebuilder& U16() {
    out_.U16(base::Load<uint16_t>(At(2)));
    return *this;
  }
  Rebuilder& U32() {
    out_.U32(base::Load<uint32_t>(At(4)));
    return *this;
  }
  Rebuilder& U64() {
    out_.U64(base::Load<uint64_t>(At(8)));
    return *this;
  }
  Rebuilder& Raw(size_t n) {
    out_.Raw(base::Bytes(At(n), n));
    return *this;
  }
  Rebuilder& RestRaw() { return Raw(end_ - pos_); }
  Rebuilder& RestU64() {
    while (pos_ + 8 <= end_) U64();
    return *this;
  }
  // perf_record_cpu_map_data
  Rebuilder& CpuMap() {
    const uint16_t type = base::Load<uint16_t>(bytes_.data() + pos_);
    U16();
    if (type == 0) {
      const uint16_t nr = base::Load<uint16_t>(bytes_.data() + pos_);
      U16();
      for (int i = 0; i < nr; ++i) U16();
    } else if (type == 1) {
      const uint16_t nr = base::Load<uint16_t>(bytes_.data() + pos_);
      const uint16_t long_size = base::Load<uint16_t>(bytes_.data() + pos_ + 2);
      U16().U16();
      if (long_size == 8) Raw(4);
      for (int i = 0; i < nr; ++i) long_size == 8 ? U64() : U32();
    } else if (type == 2) {
      U8().U8().U16().U16();
    }
    return RestRaw();
  }
  bool ok() const { return pos_ <= end_; }
  RecordBuilder& builder() { return out_; }

 private:
  const std::byte* At(size_t n) {
    const std::byte* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

  base::Bytes bytes_;
  size_t pos_ = perf::kRecordHeaderSize;
  size_t end_;
  RecordBuilder out_;
};

// The builder form of one native record; fails the test for record types
// it does not know.
RecordBuilder Rebuild(const perftk::perf::Record& r, const perf::EventList& events,
                      const std::vector<AttrBuilder>& attrs) {
  size_t index = 0;
  if (r.type() < PERF_RECORD_USER_TYPE_START) {
    absl::StatusOr<size_t> i = events.IndexOf(r);
    EXPECT_TRUE(i.ok()) << i.status();
    index = i.value_or(0);
  }
  const AttrBuilder& attr = attrs[index];
  const perf::SampleFormat& format = events.format(index);
  if (r.type() == PERF_RECORD_SAMPLE) {
    absl::StatusOr<perf::Sample> sample = perf::DecodeSample(format, r.body());
    EXPECT_TRUE(sample.ok()) << sample.status();
    return MakeSample(attr, sample.value_or(perf::Sample{}), r.misc());
  }
  const bool kernel = r.type() < PERF_RECORD_USER_TYPE_START;
  const size_t end = r.bytes().size() - (kernel ? format.trailer_size() : 0);
  Rebuilder b(r, end);
  switch (r.type()) {
    case PERF_RECORD_MMAP:
      b.U32().U32().U64().U64().U64().RestRaw();
      break;
    case PERF_RECORD_COMM:
      b.U32().U32().RestRaw();
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      b.U32().U32().U32().U32().U64();
      break;
    case PERF_RECORD_MMAP2:
      b.U32().U32().U64().U64().U64();
      if (r.misc() & PERF_RECORD_MISC_MMAP_BUILD_ID) {
        b.U8().Raw(3).Raw(20);
      } else {
        b.U32().U32().U64().U64();
      }
      b.U32().U32().RestRaw();
      break;
    case PERF_RECORD_SWITCH:
      break;
    case PERF_RECORD_SWITCH_CPU_WIDE:
      b.U32().U32();
      break;
    case PERF_RECORD_LOST:
      b.U64().U64();
      break;
    case PERF_RECORD_KSYMBOL:
      b.U64().U32().U16().U16().RestRaw();
      break;
    case PERF_RECORD_BPF_EVENT:
      b.U16().U16().U32().RestRaw();
      break;
    case PERF_RECORD_CGROUP:
      b.U64().RestRaw();
      break;
    case PERF_RECORD_FINISHED_ROUND:
    case PERF_RECORD_FINISHED_INIT:
      break;
    case PERF_RECORD_ID_INDEX:
      b.RestU64();
      break;
    case PERF_RECORD_TIME_CONV:
      b.U64().U64().U64().U64().U64().RestRaw();
      break;
    case PERF_RECORD_THREAD_MAP: {
      const uint64_t nr = base::Load<uint64_t>(r.bytes().data() + 8);
      b.U64();
      for (uint64_t i = 0; i < nr; ++i) b.U64().Raw(16);
      b.RestRaw();
      break;
    }
    case PERF_RECORD_CPU_MAP:
      b.CpuMap();
      break;
    case PERF_RECORD_EVENT_UPDATE: {
      const uint64_t type = base::Load<uint64_t>(r.bytes().data() + 8);
      b.U64().U64();
      if (type == 1) b.U64();
      if (type == 3) b.CpuMap();
      b.RestRaw();
      break;
    }
    default:
      ADD_FAILURE() << "no rebuild rule for " << perf::RecordTypeName(r.type());
      b.RestRaw();
  }
  EXPECT_TRUE(b.ok()) << perf::RecordTypeName(r.type());
  if (kernel && format.sample_id_all) {
    absl::StatusOr<perf::SampleId> id = perf::DecodeSampleId(format, r.bytes());
    EXPECT_TRUE(id.ok()) << id.status();
    b.builder().WithSampleId(attr, id.value_or(perf::SampleId{}));
  }
  return b.builder();
}

// Feature sections of the kinds perftk converts, re-described as fields.
bool RebuildFeature(int feature, base::Bytes s, Fields& out) {
  base::ByteCursor in(s);
  switch (feature) {
    case HEADER_HOSTNAME:
    case HEADER_OSRELEASE:
    case HEADER_VERSION:
    case HEADER_ARCH:
    case HEADER_CPUDESC:
    case HEADER_CPUID: {
      uint32_t len = in.Read<uint32_t>();
      out.U32(len).Raw(in.ReadBytes(len));
      return in.ok();
    }
    case HEADER_NRCPUS:
      out.U32(in.Read<uint32_t>()).U32(in.Read<uint32_t>());
      return in.ok();
    case HEADER_TOTAL_MEM:
    case HEADER_SAMPLE_TIME:
    case HEADER_CLOCKID:
    case HEADER_DIR_FORMAT:
      while (in.remaining() >= 8) out.U64(in.Read<uint64_t>());
      return in.remaining() == 0;
    case HEADER_CMDLINE: {
      uint32_t nr = in.Read<uint32_t>();
      out.U32(nr);
      for (uint32_t i = 0; i < nr && in.ok(); ++i) {
        uint32_t len = in.Read<uint32_t>();
        out.U32(len).Raw(in.ReadBytes(len));
      }
      return in.ok();
    }
    case HEADER_BUILD_ID:
      while (in.remaining() >= 8) {
        uint32_t type = in.Read<uint32_t>();
        uint16_t misc = in.Read<uint16_t>();
        uint16_t size = in.Read<uint16_t>();
        out.U32(type).U16(misc).U16(size).U32(in.Read<uint32_t>()).Raw(in.ReadBytes(size - 12));
      }
      return in.ok();
    default:
      return false;
  }
}

struct Converted {
  PerfDataBuilder builder;
  std::vector<int> features;  // the sections converted
};

Converted Convert(const ReadBack& native) {
  Converted c;
  std::vector<AttrBuilder> attrs;
  for (const perf::EventAttr& attr : native.header.events.attrs()) {
    attrs.push_back(AttrBuilder::FromNative(attr));
    c.builder.Attr(attrs.back());
  }
  for (const auto& [feature, section] : native.header.features) {
    Fields fields;
    if (RebuildFeature(feature, section, fields)) {
      c.builder.Feature(feature, fields);
      c.features.push_back(feature);
    }
  }
  for (const perf::OwnedRecord& r : native.records) {
    c.builder.Record(Rebuild(r.view(), native.header.events, attrs));
  }
  return c;
}

bool IsPipe(const std::string& name) { return name.find("pipe") != std::string::npos; }

TEST(RealDataTest, TheCorpusIsThere) {
  std::vector<std::string> files = DataFiles();
  EXPECT_GE(files.size(), 10u);
  EXPECT_THAT(files, ::testing::Contains("callgraph_dwarf.data"));
}

TEST(RealDataTest, EveryRecordingReads) {
  for (const std::string& name : DataFiles()) {
    SCOPED_TRACE(name);
    std::vector<std::byte> bytes = ReadData(name);
    absl::StatusOr<ReadBack> back = ReadAll(bytes, name);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->warnings.empty()) << back->warnings[0];
    EXPECT_FALSE(back->header.cross_endian);
    EXPECT_EQ(back->header.layout,
              IsPipe(name) ? perf::DataLayout::kPipe : perf::DataLayout::kFile);
    EXPECT_FALSE(back->header.events.empty());
    EXPECT_TRUE(perf::ReadStringFeature(back->header.features, HEADER_HOSTNAME).ok());
    size_t samples = 0, mmaps = 0;
    for (const perf::OwnedRecord& r : back->records) {
      samples += r.view().type() == PERF_RECORD_SAMPLE;
      mmaps += r.view().type() == PERF_RECORD_MMAP2;
      if (r.view().type() == PERF_RECORD_SAMPLE) {
        absl::StatusOr<size_t> index = back->header.events.IndexOf(r.view());
        ASSERT_TRUE(index.ok()) << index.status();
        EXPECT_TRUE(perf::DecodeSample(back->header.events.format(*index), r.view().body()).ok());
      }
    }
    EXPECT_GE(samples, 2u);
    EXPECT_GE(mmaps, 1u);
  }
}

TEST(RealDataTest, BuilderReencodesEveryRecordAsPerfWroteIt) {
  for (const std::string& name : DataFiles()) {
    SCOPED_TRACE(name);
    absl::StatusOr<ReadBack> native = ReadAll(ReadData(name), name);
    ASSERT_TRUE(native.ok()) << native.status();
    Converted c = Convert(*native);
    ASSERT_EQ(c.builder.records().size(), native->records.size());
    for (size_t i = 0; i < native->records.size(); ++i) {
      SCOPED_TRACE(
          absl::StrCat("record ", i, " ", perf::RecordTypeName(native->records[i].view().type())));
      ASSERT_EQ(c.builder.records()[i].Build(kNative), Copy(native->records[i].view().bytes()));
    }
    for (size_t i = 0; i < native->header.events.size(); ++i) {
      EXPECT_EQ(c.builder.attrs()[i].Serialize(kNative),
                Copy(native->header.events.attrs()[i].bytes()));
    }
  }
}

TEST(RealDataTest, BigEndianConversionReadsBackEqual) {
  for (const std::string& name : DataFiles()) {
    SCOPED_TRACE(name);
    absl::StatusOr<ReadBack> native = ReadAll(ReadData(name), name);
    ASSERT_TRUE(native.ok()) << native.status();
    Converted c = Convert(*native);
    EXPECT_GE(c.features.size(), 5u);  // hostname, osrelease, arch, nrcpus, cmdline, ...
    std::vector<std::byte> big =
        IsPipe(name) ? c.builder.BuildPipe(Endian::kBig) : c.builder.BuildFile(Endian::kBig).bytes;
    absl::StatusOr<ReadBack> back = ReadAll(big, name + ".be");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->header.cross_endian);
    ASSERT_EQ(back->header.events.size(), native->header.events.size());
    for (size_t i = 0; i < native->header.events.size(); ++i) {
      EXPECT_EQ(Copy(back->header.events.attrs()[i].bytes()),
                Copy(native->header.events.attrs()[i].bytes()));
      EXPECT_EQ(back->header.events.attrs()[i].ids(), native->header.events.attrs()[i].ids());
    }
    for (int feature : c.features) {
      SCOPED_TRACE(perf::FeatureName(feature));
      ASSERT_EQ(back->header.features.count(feature), 1u);
      EXPECT_EQ(back->header.features.at(feature), native->header.features.at(feature));
    }
    ASSERT_EQ(back->records.size(), native->records.size());
    for (size_t i = 0; i < native->records.size(); ++i) {
      SCOPED_TRACE(
          absl::StrCat("record ", i, " ", perf::RecordTypeName(native->records[i].view().type())));
      EXPECT_EQ(Copy(back->records[i].view().bytes()), Copy(native->records[i].view().bytes()));
    }
  }
}

// Writes the synthetic fuzzing seeds of tests/data/synthetic (see the
// README there) into $PERFTK_FUZZ_SEEDS_DIR. Disabled: run it by hand with
//   PERFTK_FUZZ_SEEDS_DIR=tests/data/synthetic perftk_perf_tests
//     --gtest_also_run_disabled_tests --gtest_filter='*WriteFuzzSeeds'
TEST(RealDataTest, DISABLED_WriteFuzzSeeds) {
  const char* dir = getenv("PERFTK_FUZZ_SEEDS_DIR");
  ASSERT_NE(dir, nullptr) << "set PERFTK_FUZZ_SEEDS_DIR";
  auto write = [dir](const std::string& name, base::Bytes bytes) {
    std::ofstream out(absl::StrCat(dir, "/", name), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    ASSERT_TRUE(out.good()) << name;
  };
  // Big-endian versions of the real recordings.
  for (const std::string& name : {std::string("callgraph_fp.data"), std::string("two_events.data"),
                                  std::string("tracepoint.data"), std::string("pipe.data")}) {
    absl::StatusOr<ReadBack> native = ReadAll(ReadData(name), name);
    ASSERT_TRUE(native.ok()) << native.status();
    Converted c = Convert(*native);
    std::string be = name.substr(0, name.size() - 5) + "_be.data";
    write(be, IsPipe(name) ? c.builder.BuildPipe(Endian::kBig)
                           : c.builder.BuildFile(Endian::kBig).bytes);
  }
  // One record of every type, both byte orders, file and pipe layout, with
  // AUXTRACE payloads and two events.
  AttrBuilder attr =
      AttrBuilder()
          .Type(PERF_TYPE_HARDWARE)
          .SampleType(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                      PERF_SAMPLE_CPU | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
                      PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                      PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_AUX)
          .ReadFormat(PERF_FORMAT_GROUP | PERF_FORMAT_ID)
          .BranchSampleType(PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS)
          .RegsUser(0x7)
          .SampleIdAll()
          .Ids({7, 8});
  perf::Sample sample;
  sample.identifier = 7;
  sample.ip = 0x401000;
  sample.read.values = {{.value = 1, .id = 7, .lost = 0}, {.value = 2, .id = 8, .lost = 0}};
  sample.callchain = {PERF_CONTEXT_USER, 0x401000};
  sample.branch_stack.entries = {{1, 2, 3}};
  sample.branch_stack.counters = {4};
  sample.regs_user.abi = 2;
  sample.regs_user.values = {1, 2, 3};
  sample.stack_user.data = std::vector<std::byte>(16);
  sample.stack_user.dyn_size = 8;
  sample.aux = std::vector<std::byte>(8);
  perf::SampleId id;
  id.identifier = 8;
  PerfDataBuilder b;
  b.Attr(attr).Attr(AttrBuilder()
                        .Type(PERF_TYPE_SOFTWARE)
                        .SampleType(PERF_SAMPLE_IDENTIFIER)
                        .SampleIdAll()
                        .Ids({9}));
  b.Feature(HEADER_HOSTNAME, StringFeature("seed")).Feature(HEADER_NRCPUS, NrCpusFeature(1, 1));
  for (RecordBuilder& r : EveryRecordType(attr, sample, id)) b.Record(std::move(r));
  for (Endian endian : {Endian::kLittle, Endian::kBig}) {
    const char* suffix = endian == Endian::kLittle ? "le" : "be";
    write(absl::StrCat("every_record_", suffix, ".data"), b.BuildFile(endian).bytes);
    write(absl::StrCat("every_record_pipe_", suffix, ".data"), b.BuildPipe(endian));
  }
}

}  // namespace
}  // namespace perftk::testing
