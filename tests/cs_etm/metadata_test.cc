#include "cs_etm/metadata.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "perf/reader.h"
#include "perf/record.h"

namespace perftk::cs_etm {
namespace {

const std::string kEtmDir = std::string(PERFTK_ETM_DATA_DIR) + "/";

// The private words of the first AUXTRACE_INFO of a recording.
std::vector<uint64_t> InfoWords(const std::string& path) {
  auto reader = perf::PerfDataReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return {};
  while (true) {
    auto record = (*reader)->Next();
    EXPECT_TRUE(record.ok()) << record.status();
    if (!record.ok() || !*record) return {};
    if ((*record)->type() != PERF_RECORD_AUXTRACE_INFO) continue;
    auto view = perf::AuxtraceInfoRecord::From(**record);
    EXPECT_TRUE(view.ok());
    EXPECT_EQ(view->auxtrace_type(), kAuxtraceCsEtm);
    return view->priv();
  }
}

TEST(CsEtmInfo, ParsesSimpleperfEtmV4Recording) {
  auto info = ParseCsEtmInfo(InfoWords(kEtmDir + "perf_etm.data"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->version, 1u);
  EXPECT_EQ(info->pmu_type, 8u);
  ASSERT_EQ(info->sources.size(), 8u);
  for (uint32_t cpu = 0; cpu < 8; ++cpu) {
    const TraceSource* source = info->FindCpu(cpu);
    ASSERT_NE(source, nullptr);
    EXPECT_EQ(source->protocol, TraceProtocol::kEtmV4);
    EXPECT_EQ(source->trcconfigr, 0x40u);
    EXPECT_EQ(source->trace_id(), 0x10 + 2 * cpu);  // the drivers' default ids
    EXPECT_EQ(source->trcidr0, 0x28000ea1u);
    EXPECT_EQ(source->trcidr1 & ~0xfu, 0x4100f420u);  // revision differs by core
    EXPECT_EQ(source->trcidr2, 0x20001088u);
    EXPECT_EQ(source->trcauthstatus, 0x8cu);
    EXPECT_EQ(source->pid_format(), PidFormat::kCtxtId);
  }
}

TEST(CsEtmInfo, ParsesEteRecordingWithPidInVmid) {
  auto info = ParseCsEtmInfo(InfoWords(kEtmDir + "perf_with_unformatted_trace.data"));
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_FALSE(info->sources.empty());
  const TraceSource& source = info->sources.front();
  EXPECT_EQ(source.protocol, TraceProtocol::kEte);
  EXPECT_EQ(source.trcconfigr, 0x8080u);
  EXPECT_EQ(source.trcidr1, 0x4100fff0u);
  EXPECT_EQ(source.trcdevarch, 0x47715a13u);
  EXPECT_EQ(source.pid_format(), PidFormat::kCtxtId2);
}

std::vector<uint64_t> Header(uint64_t version, uint32_t cpus) {
  return {version, (8ULL << 32) | cpus, 0};
}

TEST(CsEtmInfo, VersionZeroHasNoParameterCount) {
  std::vector<uint64_t> words = Header(0, 2);
  // ETMv4: magic, cpu, 7 registers; ETMv3: magic, cpu, 4 registers.
  for (uint64_t w : std::initializer_list<uint64_t>{kMagicEtmV4, 3ULL, 0x40ULL, 0x14ULL, 1ULL, 2ULL,
                                                    3ULL, 4ULL, 5ULL}) {
    words.push_back(w);
  }
  for (uint64_t w : std::initializer_list<uint64_t>{kMagicEtmV3, 5ULL, 1ULL << 14, 0x22ULL, 7ULL,
                                                    0x4100f300ULL}) {
    words.push_back(w);
  }
  auto info = ParseCsEtmInfo(words);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->sources.size(), 2u);
  EXPECT_EQ(info->sources[0].cpu, 3u);
  EXPECT_EQ(info->sources[0].trace_id(), 0x14);
  EXPECT_EQ(info->sources[0].trcidr8, 4u);
  EXPECT_EQ(info->sources[1].cpu, 5u);
  EXPECT_EQ(info->sources[1].protocol, TraceProtocol::kPtm);  // ETMIDR arch 3
  EXPECT_EQ(info->sources[1].trace_id(), 0x22);
  EXPECT_EQ(info->sources[1].pid_format(), PidFormat::kCtxtId);
}

TEST(CsEtmInfo, SkipsUnknownExtraParameters) {
  std::vector<uint64_t> words = Header(1, 2);
  // 9 parameters where 7 are known (a newer perf's TS_SOURCE and one more).
  for (uint64_t w : std::initializer_list<uint64_t>{kMagicEtmV4, 0ULL, 9ULL, 0x8080ULL, 0x10ULL,
                                                    1ULL, 2ULL, 3ULL, 4ULL, 5ULL, 77ULL, 78ULL}) {
    words.push_back(w);
  }
  for (uint64_t w : std::initializer_list<uint64_t>{kMagicEtmV4, 1ULL, 7ULL, 0x40ULL, 0x12ULL, 1ULL,
                                                    2ULL, 3ULL, 4ULL, 5ULL}) {
    words.push_back(w);
  }
  auto info = ParseCsEtmInfo(words);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->sources.size(), 2u);
  EXPECT_EQ(info->sources[0].pid_format(), PidFormat::kCtxtId2);
  EXPECT_EQ(info->sources[1].cpu, 1u);
  EXPECT_EQ(info->sources[1].trace_id(), 0x12);
}

TEST(CsEtmInfo, VersionTwoUnusedTraceIdWaitsForHwId) {
  std::vector<uint64_t> words = Header(2, 1);
  for (uint64_t w : std::initializer_list<uint64_t>{
           kMagicEtmV4, 0ULL, 7ULL, 0x40ULL, (1ULL << 31) | 0x7f, 1ULL, 2ULL, 3ULL, 4ULL, 5ULL}) {
    words.push_back(w);
  }
  auto info = ParseCsEtmInfo(words);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->sources[0].trace_id_valid);
}

TEST(CsEtmInfo, RejectsBadInputWithAMessage) {
  std::vector<uint64_t> unknown = Header(1, 1);
  for (uint64_t w : std::initializer_list<uint64_t>{0x6060606060606060ULL, 0ULL, 7ULL})
    unknown.push_back(w);
  auto status = ParseCsEtmInfo(unknown).status();
  EXPECT_NE(std::string(status.message()).find("unknown magic"), std::string::npos) << status;

  std::vector<uint64_t> truncated = Header(1, 1);
  for (uint64_t w : std::initializer_list<uint64_t>{kMagicEtmV4, 0ULL, 7ULL, 1ULL})
    truncated.push_back(w);
  EXPECT_FALSE(ParseCsEtmInfo(truncated).ok());

  std::vector<uint64_t> too_few = Header(1, 1);
  for (uint64_t w : std::initializer_list<uint64_t>{kMagicEtmV4, 0ULL, 2ULL, 1ULL, 2ULL})
    too_few.push_back(w);
  EXPECT_FALSE(ParseCsEtmInfo(too_few).ok());

  EXPECT_FALSE(ParseCsEtmInfo(Header(3, 0)).ok());
  EXPECT_FALSE(ParseCsEtmInfo(Header(1, 0xffffffff)).ok());
  EXPECT_FALSE(ParseCsEtmInfo(std::vector<uint64_t>{1, 2}).ok());
}

// Every prefix and every single-word corruption of a real record parses or
// fails cleanly (run under ASan in CI).
TEST(CsEtmInfo, SurvivesTruncationAndCorruption) {
  std::vector<uint64_t> words = InfoWords(kEtmDir + "perf_etm.data");
  ASSERT_FALSE(words.empty());
  size_t parsed = 0;
  for (size_t n = 0; n <= words.size(); ++n) {
    if (ParseCsEtmInfo(std::span<const uint64_t>(words.data(), n)).ok()) ++parsed;
  }
  EXPECT_EQ(parsed, 1u);  // only the whole record holds all 8 blocks
  for (size_t i = 0; i < words.size(); ++i) {
    for (uint64_t value : {0ULL, ~0ULL, 0x100000000ULL, 3ULL}) {
      std::vector<uint64_t> copy = words;
      copy[i] = value;
      (void)ParseCsEtmInfo(copy);
    }
  }
}

}  // namespace
}  // namespace perftk::cs_etm
