// --build-ids, --buildid-all and --no-build-ids, as copy, aslr, unwind and
// jit take them (build_ids/build_id_tool.h does the work), and
// --buildid-dir.
#ifndef PERFTK_CLI_BUILD_ID_FLAGS_H_
#define PERFTK_CLI_BUILD_ID_FLAGS_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "base/warnings.h"
#include "build_ids/build_id_tool.h"
#include "pipeline/chained_tool.h"
#include "pipeline/tool.h"

namespace CLI {
class App;
}

namespace perftk::cli {

struct BuildIdFlags {
  bool hit = false;   // --build-ids
  bool all = false;   // --buildid-all
  bool none = false;  // --no-build-ids (where they are added by default)
};

// --buildid-dir DIR, perf's option for where its build-id cache is: the
// cache the run reads (and jit --buildid-cache writes), set while the
// command line is parsed (elf::SetBuildIdCacheDir).
void AddBuildIdDirOption(CLI::App& sub);

// Adds the flags to `sub`; `by_default` says the command adds the ids of
// hit DSOs when the input has none (aslr), which --no-build-ids turns off.
void AddBuildIdFlags(CLI::App& sub, BuildIdFlags& flags, bool by_default);

// The build-id tool's settings, or nullopt when none are to be added.
// `input`: the recording ("-" for stdin); when it is a regular file, its
// mtime is when the recording ended (BuildIdSettings::recording_ended_ns).
std::optional<build_ids::BuildIdSettings> BuildIdSettingsOf(const BuildIdFlags& flags,
                                                            bool by_default,
                                                            const std::string& input,
                                                            const std::string& symfs = "");

// A command's tool, run after a BuildIdTool when build ids are asked for
// (it sees the records first, at their recorded addresses). Lives as long
// as the run.
class WithBuildIds {
 public:
  WithBuildIds(const std::optional<build_ids::BuildIdSettings>& settings, pipeline::Tool& tool);
  WithBuildIds(const WithBuildIds&) = delete;
  WithBuildIds& operator=(const WithBuildIds&) = delete;

  bool adds_build_ids() const { return ids_.has_value(); }
  // What the pipeline runs.
  pipeline::Tool& tool() { return chain_ ? static_cast<pipeline::Tool&>(*chain_) : tool_; }
  // "perftk aslr: 12 build ids added ..." and one warning line per DSO left
  // without one; nothing when no ids were asked for, none added and none
  // missing.
  void PrintSummary(absl::string_view label) const;

 private:
  pipeline::Tool& tool_;
  base::WarningList warnings_;  // printed by PrintSummary, after the run
  std::optional<build_ids::BuildIdTool> ids_;
  std::optional<pipeline::ChainedTool> chain_;
};

}  // namespace perftk::cli

#endif  // PERFTK_CLI_BUILD_ID_FLAGS_H_
