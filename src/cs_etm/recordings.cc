#include "cs_etm/recordings.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "base/status_prefix.h"
#include "base/warnings.h"
#include "pipeline/pipeline.h"
#include "pipeline/progress.h"

namespace perftk::cs_etm {
namespace {

struct Outcome {
  absl::Status status;
  std::vector<std::string> warnings;
};

void AddStats(const DecodeStats& from, DecodeStats& into) {
  into.blocks += from.blocks;
  into.trace_bytes += from.trace_bytes;
  into.packets += from.packets;
  into.samples += from.samples;
  into.instruction_samples += from.instruction_samples;
  into.branch_samples += from.branch_samples;
  into.decoder_waits += from.decoder_waits;
  into.fast_blocks += from.fast_blocks;
  into.opencsd_blocks += from.opencsd_blocks;
}

}  // namespace

RecordingsDecode DecodeRecordings(const std::vector<std::string>& inputs,
                                  const DecodeOptions& options,
                                  const std::function<bool(const profile::BinaryKey&)>& keep) {
  RecordingsDecode result;
  const bool several = inputs.size() > 1;
  const size_t at_once = std::max<size_t>(
      1, std::min<size_t>(static_cast<size_t>(std::max(options.jobs, 1)), inputs.size()));
  DecodeOptions each = options;
  each.jobs = std::max(1, options.jobs / static_cast<int>(at_once));
  each.profile_text = false;

  std::vector<Outcome> outcomes(inputs.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  base::Mutex sum_mutex;  // guards result.profile, result.stats and the progress

  auto decode_one = [&](size_t i) {
    Outcome& outcome = outcomes[i];
    base::WarningList reader_warnings, tool_warnings;
    CsEtmDecodeTool tool(each, tool_warnings);
    pipeline::PipelineOptions run_options;
    run_options.input = inputs[i];
    run_options.progress_label = "perftk cs-etm-decode";
    // Several recordings: the list's progress, not each one's.
    run_options.show_progress = !several && options.show_progress;
    outcome.status = pipeline::RunPipeline(tool, run_options, reader_warnings).status();
    const std::string prefix = several ? absl::StrCat(inputs[i], ": ") : "";
    for (const std::string& warning : reader_warnings.lines()) {
      outcome.warnings.push_back(absl::StrCat(prefix, warning));
    }
    for (const std::string& warning : tool_warnings.lines()) {
      outcome.warnings.push_back(absl::StrCat(prefix, warning));
    }
    if (!outcome.status.ok()) {
      if (several && !absl::StartsWith(outcome.status.message(), inputs[i])) {
        outcome.status = base::Prefixed(prefix, outcome.status);
      }
      failed = true;
      return;
    }
    profile::Profile mine = tool.TakeProfile();
    std::vector<std::string> dropped;
    if (keep) {
      mine.KeepBinaries([&](const profile::BinaryKey& key) {
        if (keep(key)) return true;
        dropped.push_back(key.path);
        return false;
      });
    }
    base::MutexLock lock(sum_mutex);
    result.dropped.insert(dropped.begin(), dropped.end());
    AddStats(tool.stats(), result.stats);
    if (absl::Status s = result.profile.Add(std::move(mine)); !s.ok()) outcome.status = s;
  };
  // Several recordings: progress counts them (each one's own is off).
  pipeline::Progress progress(several && options.show_progress ? "perftk cs-etm-decode" : "",
                              inputs.size(), "recordings");
  size_t finished = 0;  // guarded by sum_mutex, as progress
  auto worker = [&] {
    for (size_t i = next++; i < inputs.size() && !failed; i = next++) {
      decode_one(i);
      base::MutexLock lock(sum_mutex);
      progress.Update(++finished);
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < at_once; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();

  for (Outcome& outcome : outcomes) {
    for (std::string& warning : outcome.warnings) result.warnings.push_back(std::move(warning));
    if (result.status.ok() && !outcome.status.ok()) result.status = outcome.status;
  }
  return result;
}

}  // namespace perftk::cs_etm
