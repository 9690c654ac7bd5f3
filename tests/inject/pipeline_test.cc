// What RunPipeline promises the tools about the records it hands them.
#include "inject/pipeline.h"

#include <cstddef>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inject/tool.h"
#include "perf/record.h"

namespace perftk {
namespace {

// Keeps a view of every lasting record and a copy of its bytes.
class KeepingTool : public Tool {
 public:
  absl::Status Process(const Record& record, RecordSink& out) override {
    ++records;
    if (!record.lasting()) not_lasting.push_back(record.type());
    if (record.lasting()) {
      views.push_back(record.bytes());
      copies.emplace_back(record.bytes().begin(), record.bytes().end());
    }
    return out.Emit(record);
  }
  absl::Status End(RecordSink&, FeatureSet&) override {
    for (size_t i = 0; i < views.size(); ++i) {
      if (!std::equal(views[i].begin(), views[i].end(), copies[i].begin(), copies[i].end())) {
        ++changed_by_end;
      }
    }
    return absl::OkStatus();
  }

  size_t records = 0;
  std::vector<Bytes> views;
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
    ASSERT_TRUE(RunPipeline(tool, options).ok());
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
  ASSERT_TRUE(RunPipeline(tool, options).ok());
  ASSERT_GT(tool.records, 0u);
  EXPECT_LT(tool.views.size(), tool.records);
  EXPECT_EQ(tool.changed_by_end, 0u);
}

}  // namespace
}  // namespace perftk
