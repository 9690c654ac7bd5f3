#include "cli/merge_profiles_command.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <regex>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "base/output_file.h"
#include "cli/input_list.h"
#include "cli/usage.h"
#include "cli/warnings.h"
#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"
#include "profile/profile.h"
#include "profile/profile_file.h"

namespace perftk::cli {

absl::Status RunMergeProfiles(const MergeProfilesOptions& options) {
  std::shared_ptr<const std::regex> pattern;
  if (!options.binary.empty()) {
    try {
      pattern = std::make_shared<const std::regex>(options.binary);
    } catch (const std::regex_error& e) {
      return UsageError(
          absl::StrCat("--binary=", options.binary, ": not a regular expression (", e.what(), ")"));
    }
  }
  // The output first: an input that is the output is then refused.
  absl::StatusOr<std::unique_ptr<base::OutputFile>> out =
      base::OutputFile::Open(options.output.empty() ? "-" : options.output, "output (-o)");
  if (!out.ok()) return out.status();
  profile::Profile sum;
  uint64_t files = 0;
  auto add = [&](const std::string& path) -> absl::Status {
    ++files;
    if (!pattern) return profile::AddProfileFile(path, sum);
    profile::Profile one;
    if (absl::Status s = profile::AddProfileFile(path, one); !s.ok()) return s;
    if (one.format() == profile::Format::kBolt) {
      return UsageError(absl::StrCat(
          "--binary: ", path, " is a BOLT text, which names no path (only a build id) to match"));
    }
    one.KeepBinaries(
        [&](const profile::BinaryKey& key) { return std::regex_search(key.path, *pattern); });
    return sum.Add(one);
  };
  if (absl::Status s = ForEachInput(options.inputs, "list of inputs (@FILE)", add); !s.ok()) {
    return s;
  }
  if (files == 0) return UsageError("no input: the lists name no profile");
  if (sum.saturated() > 0) {
    WarnSaturated(sum.saturated());
  }
  std::string text;
  if (sum.format() == profile::Format::kAutoFdo) {
    text = profile::AutoFdoText(sum);
  } else if (sum.format() == profile::Format::kBolt && !sum.binaries().empty()) {
    text = profile::BoltText(sum.binaries().begin()->first, sum.binaries().begin()->second);
  }
  if (absl::Status s = (*out)->Write(text); !s.ok()) return s;
  if (absl::Status s = (*out)->Commit(); !s.ok()) return s;
  if (!options.quiet) {
    std::fprintf(stderr, "perftk merge-profiles: %lu profiles (%s), %lu binaries\n",
                 static_cast<unsigned long>(files),
                 sum.format() ? profile::FormatName(*sum.format()) : "all empty",
                 static_cast<unsigned long>(sum.binaries().size()));
  }
  return absl::OkStatus();
}

void RegisterMergeProfilesCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<MergeProfilesOptions>();
  CLI::App* sub =
      app.add_subcommand("merge-profiles",
                         "Add up AutoFDO or BOLT profiles into one\n\n"
                         "Adds up AutoFDO or BOLT profile texts (from perftk cs-etm-decode on\n"
                         "many machines, or earlier merges) into one profile.");
  sub->footer(
      "Counts are summed per binary: its recorded path and build id, so two builds of one\n"
      "path are never summed. AutoFDO text (simpleperf's, as --format=autofdo writes it)\n"
      "names both for each binary it holds, and two builds of one path stay two binaries\n"
      "in the output. BOLT's pre-aggregated text holds one binary and has no place for a\n"
      "path; perftk writes the binary's build id as ID:ADDRESS on its first line (BOLT's\n"
      "own syntax, which perf2bolt reads and ignores), and merge-profiles refuses a BOLT\n"
      "text of another build than the inputs before it, or one without a build id.\n"
      "Inputs of two formats are refused too. The output is the text cs-etm-decode\n"
      "writes for the same counts, so merging the profiles of recordings equals decoding\n"
      "them together (-i A -i B); empty inputs add nothing. Counts stop at 2^63-1 (the\n"
      "largest perf2bolt reads) with a warning.\n\n"
      "Inputs are read one at a time, line by line: memory holds the sum (bounded by the\n"
      "distinct binaries, ranges and branches) and one input, whatever their number.\n"
      "@FILE stands for the paths FILE lists, one per line (for more than a command line\n"
      "holds). Exit status: 0 OK, 1 error (a bad input names its file and line), 2 usage\n"
      "error.\n\n"
      "Examples:\n"
      "  perftk merge-profiles -o all.afdo host1.afdo host2.afdo host3.afdo\n"
      "  ls profiles/*.pa > list; perftk merge-profiles -o prog.pa @list\n"
      "  perf2bolt --pa -p prog.pa -o prog.fdata prog\n"
      "  perftk merge-profiles --binary '/prog$' -o prog.afdo all.afdo");
  sub->add_option("inputs", options->inputs, "Profile texts (AutoFDO or BOLT), or @FILE")
      ->required();
  sub->add_option("-o,--output", options->output, "Output text file (default stdout)");
  sub->add_option("--binary", options->binary,
                  "Only the binaries whose recorded path this regular expression matches "
                  "(ECMAScript, anywhere in the path; AutoFDO)");
  sub->add_flag("-q,--quiet", options->quiet,
                "No progress or summary on stderr (warnings and errors still)");
  sub->callback([options, &outcome] { outcome = RunMergeProfiles(*options); });
}

}  // namespace perftk::cli
