#include "cli/dump_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/interrupt.h"
#include "base/json.h"
#include "base/warnings.h"
#include "cli/standard_streams.h"
#include "cli/warnings.h"
#include "machine/machines.h"
#include "perf/describe.h"
#include "perf/ordered_reader.h"
#include "perf/reader.h"
#include "perf/sample.h"
#include "pipeline/tool.h"
#include "pipeline/tool_feed.h"

namespace perftk::cli {
namespace {

using base::JsonString;

std::string Printable(absl::string_view text) {
  std::string out;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string Hex(uint64_t v) { return absl::StrFormat("%#x", v); }

// One line: `kind name=value ...` in text, or a JSON object.
std::string Line(absl::string_view kind, const std::vector<perf::Field>& fields, bool json) {
  std::vector<std::string> parts;
  for (const perf::Field& f : fields) {
    std::string value;
    switch (f.kind) {
      case perf::Field::Kind::kNumber:
        value = absl::StrCat(f.number);
        break;
      case perf::Field::Kind::kAddress:
        value = json ? JsonString(Hex(f.number)) : Hex(f.number);
        break;
      case perf::Field::Kind::kText:
        value = json ? JsonString(f.text) : Printable(f.text);
        break;
      case perf::Field::Kind::kAddressList: {
        std::vector<std::string> items;
        for (uint64_t v : f.list) items.push_back(json ? JsonString(Hex(v)) : Hex(v));
        value = json ? absl::StrCat("[", absl::StrJoin(items, ","), "]")
                     : absl::StrCat("[", absl::StrJoin(items, " "), "]");
        break;
      }
    }
    parts.push_back(json ? absl::StrCat(JsonString(f.name), ":", value)
                         : absl::StrCat(f.name, "=", value));
  }
  if (json) {
    return absl::StrCat("{\"kind\":", JsonString(kind), parts.empty() ? "" : ",",
                        absl::StrJoin(parts, ","), "}\n");
  }
  return absl::StrCat(kind, " ", absl::StrJoin(parts, " "), "\n");
}

// --resolve: the model of the maps, kept as the pipeline keeps it; a record
// the model cannot take goes to `errors`, to be named on its line, not the
// run's end.
class ModelFollower : public pipeline::Tool {
 public:
  explicit ModelFollower(base::WarningSink& errors) : errors_(errors) {}
  std::optional<pipeline::ModelPolicy> model_policy() const override {
    return pipeline::ModelPolicy{.bad_records_to = &errors_};
  }
  absl::Status Process(const perf::Record&, pipeline::RecordSink&) override {
    return absl::OkStatus();
  }

 private:
  base::WarningSink& errors_;
};

class NoRecords : public pipeline::RecordSink {
 public:
  absl::Status Emit(const perf::Record&) override { return absl::OkStatus(); }
};

// The map a sample's ip falls in, as `dso` and `dso_addr` fields.
void AddSampleMap(const machine::Machines& machines, const perf::Record& record,
                  const perf::EventList& events, std::vector<perf::Field>& fields) {
  absl::StatusOr<size_t> index = events.IndexOf(record);
  if (!index.ok()) return;
  const perf::SampleFormat& format = events.format(*index);
  if (!format.has(PERF_SAMPLE_IP) || !format.has(PERF_SAMPLE_TID)) return;
  absl::StatusOr<perf::Sample> sample = perf::DecodeSample(format, record.body());
  if (!sample.ok()) return;
  std::optional<machine::Map> map =
      machines.FindMap(static_cast<int32_t>(sample->pid), static_cast<int32_t>(sample->pid),
                       record.cpumode(), sample->ip);
  if (!map || map->dso == nullptr) {
    fields.push_back(perf::Field::Text("dso", "[unknown]"));
    return;
  }
  fields.push_back(perf::Field::Text("dso", map->dso->name));
  fields.push_back(perf::Field::Address("dso_addr", map->DsoAddress(sample->ip)));
}

absl::Status WriteError(int error) {
  if (error == EPIPE) {
    return base::ClosedPipeError("cannot write the listing: the reader closed its end of the pipe");
  }
  return absl::InternalError(absl::StrCat("cannot write the listing: ", std::strerror(error)));
}

// Writes one line of the listing; a failed write stops the listing with
// the system's reason (a closed pipe, a full disk).
absl::Status Emit(std::FILE* out, const std::string& line) {
  return std::fputs(line.c_str(), out) == EOF ? WriteError(errno) : absl::OkStatus();
}

}  // namespace

absl::Status RunDump(const DumpOptions& options, std::FILE* out) {
  absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader =
      perf::PerfDataReader::Open(options.input.empty() ? DefaultRecordingInput() : options.input);
  if (!reader.ok()) return reader.status();
  const perf::Header& header = (*reader)->header();
  std::vector<perf::Field> file = {
      perf::Field::Text("file", (*reader)->name()),
      perf::Field::Text("layout", header.layout == perf::DataLayout::kFile ? "file" : "pipe"),
      perf::Field::Text("byte_order", header.cross_endian ? "foreign" : "native"),
      perf::Field::Number("events", header.events.size()),
      perf::Field::Number("features", header.features.size())};
  if (absl::Status s = Emit(out, Line("header", file, options.json)); !s.ok()) return s;
  for (size_t i = 0; i < header.events.size(); ++i) {
    if (absl::Status s =
            Emit(out, Line("attr", perf::DescribeAttr(header.events.attrs()[i], i), options.json));
        !s.ok()) {
      return s;
    }
  }
  for (const auto& [feature, section] : header.features) {
    if (absl::Status s = Emit(
            out, Line("feature", perf::DescribeFeature(feature, header.features), options.json));
        !s.ok()) {
      return s;
    }
  }
  if (!options.header_only) {
    perf::OrderedReader ordered(**reader);
    base::WarningList model_errors;
    ModelFollower follower(model_errors);
    pipeline::ToolFeed model(follower);
    NoRecords nowhere;
    const bool in_time_order = options.ordered || options.resolve;
    while (true) {
      absl::StatusOr<std::optional<perf::Record>> record =
          in_time_order ? ordered.Next() : (*reader)->Next();
      if (!record.ok()) return record.status();
      if (!*record) break;
      const perf::EventList& events = (*reader)->header().events;
      std::vector<perf::Field> fields = perf::DescribeRecord(**record, events);
      if (options.resolve) {
        if (absl::Status s = model.Process(**record, nowhere); !s.ok()) return s;
        for (const std::string& error : model_errors.lines()) {
          fields.push_back(perf::Field::Text("error", error));
        }
        model_errors.Clear();
        if ((*record)->type() == PERF_RECORD_SAMPLE) {
          AddSampleMap(model.model(), **record, events, fields);
        }
      }
      if (absl::Status s = Emit(out, Line("record", fields, options.json)); !s.ok()) return s;
    }
  }
  PrintWarnings((*reader)->warnings());
  if (std::fflush(out) != 0) return WriteError(errno);
  return absl::OkStatus();
}

void RegisterDumpCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* sub =
      app.add_subcommand("dump", "List the header, attrs, features and records of a recording");
  sub->footer(
      "One line per item: `header`, `attr`, `feature`, then `record` lines in\n"
      "stored order with the file offset, type, cpumode and decoded fields\n"
      "(sample fields, sample_id trailer, mmap/comm/fork fields). With --json,\n"
      "each line is a JSON object (JSON Lines); addresses are hex strings.\n\n"
      "Examples:\n"
      "  perftk dump -i perf.data | grep MMAP2\n"
      "  perftk dump -i perf.data --json | jq -c 'select(.type==\"SAMPLE\") | .ip'");
  sub->add_option("-i,--input", options->input,
                  "Input perf.data, '-' for stdin (default: '-' when stdin is a pipe, as perf "
                  "report takes it, else perf.data)");
  sub->add_flag("--json", options->json, "JSON Lines instead of text");
  sub->add_flag("--ordered", options->ordered,
                "Records in timestamp order (perf's FINISHED_ROUND rule) instead of stored order");
  sub->add_flag("--resolve", options->resolve,
                "Follow the address spaces (implies --ordered) and add each sample's dso and "
                "the address perf looks up in it");
  sub->add_flag("--header-only", options->header_only, "Stop after the header, attrs and features");
  sub->callback([options, &outcome] { outcome = RunDump(*options, stdout); });
}

}  // namespace perftk::cli
