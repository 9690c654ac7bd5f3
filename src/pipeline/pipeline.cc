#include "pipeline/pipeline.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "base/output_file.h"
#include "base/status_prefix.h"
#include "perf/ordered_reader.h"
#include "perf/reader.h"
#include "perf/writer.h"
#include "pipeline/progress.h"
#include "pipeline/tool_feed.h"

namespace perftk::pipeline {
namespace {

// An error of the tool's, which knows records by their offset, named after
// the input too.
absl::Status InInput(const perf::PerfDataReader& reader, const absl::Status& status) {
  return base::Prefixed(absl::StrCat(reader.name(), ": "), status);
}

class WriterSink : public RecordSink {
 public:
  explicit WriterSink(perf::PerfDataWriter& writer) : writer_(writer) {}
  absl::Status Emit(const perf::Record& record) override { return writer_.Write(record); }

 private:
  perf::PerfDataWriter& writer_;
};

class NullSink : public RecordSink {
 public:
  absl::Status Emit(const perf::Record&) override { return absl::OkStatus(); }
};

// Hands the tool a way to move the progress on, for the run's length.
class ProgressHook {
 public:
  ProgressHook(Tool& tool, Progress& progress) : tool_(tool) {
    tool_.set_progress([&progress](uint64_t done) { progress.Update(done); });
  }
  ~ProgressHook() { tool_.set_progress(nullptr); }
  ProgressHook(const ProgressHook&) = delete;
  ProgressHook& operator=(const ProgressHook&) = delete;

 private:
  Tool& tool_;
};

}  // namespace

absl::StatusOr<PipelineStats> RunPipeline(Tool& tool, const PipelineOptions& options,
                                          base::WarningSink& warnings) {
  // The output is open (and claimed) before the input, so that an input
  // that is the output is refused before anything is read.
  std::unique_ptr<base::OutputFile> out;
  if (!options.output.empty()) {
    absl::StatusOr<std::unique_ptr<base::OutputFile>> opened =
        base::OutputFile::Open(options.output, "output (-o)");
    if (!opened.ok()) return opened.status();
    out = std::move(*opened);
  }
  absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader =
      perf::PerfDataReader::Open(options.input);
  if (!reader.ok()) return reader.status();
  // Declared after the reader, so that on an error the tool's threads stop
  // (and stop reading views of the input and the model) before the reader
  // unmaps it.
  ToolFeed feed(tool);
  perf::Header header = (*reader)->header();
  if (absl::Status s = feed.Begin(header); !s.ok()) return InInput(**reader, s);
  std::unique_ptr<perf::PerfDataWriter> writer;
  if (out != nullptr) {
    perf::DataLayout layout = options.layout.value_or(out->is_stream() ? perf::DataLayout::kPipe
                                                                       : perf::DataLayout::kFile);
    absl::StatusOr<std::unique_ptr<perf::PerfDataWriter>> created =
        perf::PerfDataWriter::Create(std::move(out), layout, header);
    if (!created.ok()) return created.status();
    writer = std::move(*created);
  }
  NullSink no_output;
  std::optional<WriterSink> to_output;
  if (writer) to_output.emplace(*writer);
  RecordSink& sink = to_output ? static_cast<RecordSink&>(*to_output) : no_output;

  PipelineStats stats;
  Progress progress(options.show_progress ? options.progress_label : "", (*reader)->size());
  const ProgressHook hook(tool, progress);
  (*reader)->set_views_held_from([&tool] { return tool.OldestViewHeld(); });
  perf::OrderedReader ordered(**reader);
  while (true) {
    absl::StatusOr<std::optional<perf::Record>> record =
        options.ordered ? ordered.Next() : (*reader)->Next();
    if (!record.ok()) return record.status();
    if (!*record) break;
    (*record)->set_lasting((*reader)->IsMappedView(**record));
    ++stats.records_read;
    if (absl::Status s = feed.Process(**record, sink); !s.ok()) return InInput(**reader, s);
    if (!tool.reports_progress()) progress.Update((*record)->file_offset());
  }
  perf::FeatureSet unwritten_features;
  if (absl::Status s = feed.End(sink, writer ? writer->features() : unwritten_features); !s.ok()) {
    return InInput(**reader, s);
  }
  for (const std::string& warning : (*reader)->warnings()) warnings.Warn(warning);
  if (!writer) return stats;
  if (absl::Status s = writer->Finish(); !s.ok()) return s;
  stats.records_written = writer->records_written();
  return stats;
}

}  // namespace perftk::pipeline
