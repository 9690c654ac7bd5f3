#include "cs_etm/recordings.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "profile/autofdo_text.h"

namespace perftk::cs_etm {
namespace {

using ::testing::HasSubstr;

const std::string kEtmDir = std::string(PERFTK_ETM_DATA_DIR) + "/";
const std::string kFormatted = kEtmDir + "perf_etm.data";
const std::string kRaw = kEtmDir + "perf_with_unformatted_trace.data";

DecodeOptions ProfileOptions(int jobs) {
  DecodeOptions options;
  options.format = OutputFormat::kAutoFdo;
  options.symfs = kEtmDir;
  options.jobs = jobs;
  return options;
}

TEST(DecodeRecordings, SumIsTheSameForAnyJobsAndOrder) {
  RecordingsDecode one = DecodeRecordings({kFormatted}, ProfileOptions(1), nullptr);
  ASSERT_TRUE(one.status.ok()) << one.status;
  RecordingsDecode three =
      DecodeRecordings({kFormatted, kRaw, kFormatted}, ProfileOptions(1), nullptr);
  ASSERT_TRUE(three.status.ok()) << three.status;
  RecordingsDecode spread =
      DecodeRecordings({kRaw, kFormatted, kFormatted}, ProfileOptions(3), nullptr);
  ASSERT_TRUE(spread.status.ok()) << spread.status;
  EXPECT_EQ(profile::AutoFdoText(three.profile), profile::AutoFdoText(spread.profile));
  EXPECT_EQ(three.stats.blocks, spread.stats.blocks);
  ASSERT_EQ(one.profile.binaries().size(), 1u);
  const profile::BinaryCounts& single = one.profile.binaries().begin()->second;
  const profile::BinaryCounts& sum = three.profile.binaries().begin()->second;
  ASSERT_EQ(single.branches.size(), sum.branches.size());
  for (const auto& [branch, count] : single.branches) {
    EXPECT_EQ(sum.branches.at(branch).taken, 3 * count.taken);
  }
  EXPECT_EQ(single.branches.at({0x106c, 0x1074}).taken, 100u);
}

TEST(DecodeRecordings, KeepFiltersBinaries) {
  RecordingsDecode run = DecodeRecordings(
      {kFormatted, kRaw}, ProfileOptions(2),
      [](const profile::BinaryKey& key) { return key.path.find("libc") != std::string::npos; });
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.profile.binaries().empty());
}

TEST(DecodeRecordings, AFailedRecordingIsNamed) {
  RecordingsDecode run =
      DecodeRecordings({kFormatted, kEtmDir + "NOTICE", kRaw}, ProfileOptions(2), nullptr);
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("NOTICE"));
}

}  // namespace
}  // namespace perftk::cs_etm
