// CollectingSink: a RecordSink that keeps a copy of every record a tool
// emits, for tests of tools.
#ifndef PERFTK_TESTS_TESTING_COLLECTING_SINK_H_
#define PERFTK_TESTS_TESTING_COLLECTING_SINK_H_

#include <vector>

#include "absl/status/status.h"
#include "perf/record.h"
#include "pipeline/tool.h"

namespace perftk::testing {

class CollectingSink : public pipeline::RecordSink {
 public:
  absl::Status Emit(const perf::Record& record) override {
    records.emplace_back(record);
    return absl::OkStatus();
  }
  std::vector<perf::OwnedRecord> records;
};

}  // namespace perftk::testing

#endif  // PERFTK_TESTS_TESTING_COLLECTING_SINK_H_
