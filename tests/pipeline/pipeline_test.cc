// What RunPipeline promises the tools about the records it hands them.
#include "pipeline/pipeline.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/warnings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/record.h"
#include "pipeline/tool.h"

namespace perftk::pipeline {
namespace {

// Keeps a view of every lasting record and a copy of its bytes.
class KeepingTool : public Tool {
 public:
  absl::Status Process(const perf::Record& record, RecordSink& out) override {
    ++records;
    if (!record.lasting()) not_lasting.push_back(record.type());
    if (record.lasting()) {
      views.push_back(record.bytes());
      copies.emplace_back(record.bytes().begin(), record.bytes().end());
    }
    return out.Emit(record);
  }
  absl::Status End(RecordSink&, perf::FeatureSet&) override {
    for (size_t i = 0; i < views.size(); ++i) {
      if (!std::equal(views[i].begin(), views[i].end(), copies[i].begin(), copies[i].end())) {
        ++changed_by_end;
      }
    }
    return absl::OkStatus();
  }

  size_t records = 0;
  std::vector<base::Bytes> views;
  std::vector<std::vector<std::byte>> copies;
  size_t changed_by_end = 0;
  std::vector<uint32_t> not_lasting;  // their types
};

std::string DataFile(const char* name) { return std::string(PERFTK_TEST_DATA_DIR) + "/" + name; }

TEST(PipelineTest, RecordsOfAMappedFileLastUntilTheEnd) {
  for (bool ordered : {false, true}) {
    SCOPED_TRACE(ordered ? "ordered" : "stored order");
    KeepingTool tool;
    PipelineOptions options;
    options.input = DataFile("callgraph_dwarf.data");
    options.ordered = ordered;
    perftk::base::WarningList warnings;
    ASSERT_TRUE(RunPipeline(tool, options, warnings).ok());
    ASSERT_GT(tool.records, 0u);
    // The kernel's records lie whole in the file. In time order, the
    // FINISHED_ROUND records are the ordered reader's own, handed out
    // after the records they released.
    const std::vector<uint32_t> expected =
        ordered ? std::vector<uint32_t>{PERF_RECORD_FINISHED_ROUND} : std::vector<uint32_t>{};
    EXPECT_EQ(tool.not_lasting, expected);
    EXPECT_GT(tool.views.size(), 50u);
    EXPECT_EQ(tool.changed_by_end, 0u);
  }
}

TEST(PipelineTest, DecompressedRecordsDoNotLast) {
  KeepingTool tool;
  PipelineOptions options;
  options.input = DataFile("compressed.data");
  perftk::base::WarningList warnings;
  ASSERT_TRUE(RunPipeline(tool, options, warnings).ok());
  ASSERT_GT(tool.records, 0u);
  EXPECT_LT(tool.views.size(), tool.records);
  EXPECT_EQ(tool.changed_by_end, 0u);
}

// What the reader finds wrong but not fatal goes to the caller's sink, and
// nothing to stderr: a recording cut after its data section, with its
// feature table gone.
TEST(PipelineTest, ReaderWarningsGoToTheSinkNotStderr) {
  std::ifstream in(DataFile("callgraph_dwarf.data"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t data_offset = 0, data_size = 0;
  ASSERT_GT(bytes.size(), 56u);
  std::memcpy(&data_offset, bytes.data() + 40, 8);
  std::memcpy(&data_size, bytes.data() + 48, 8);
  ASSERT_LT(data_offset + data_size, bytes.size());
  const std::string cut = ::testing::TempDir() + "/pipeline_test_cut.data";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, data_offset + data_size);

  KeepingTool tool;
  PipelineOptions options;
  options.input = cut;
  base::WarningList warnings;
  ::testing::internal::CaptureStderr();
  absl::StatusOr<PipelineStats> stats = RunPipeline(tool, options, warnings);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  std::filesystem::remove(cut);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_THAT(warnings.lines(), ::testing::ElementsAre(::testing::HasSubstr("feature table at")));
  EXPECT_EQ(printed, "");
}

}  // namespace
}  // namespace perftk::pipeline
