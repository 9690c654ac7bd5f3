#include "cli/build_id_flags.h"

#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "CLI/CLI.hpp"
#include "cli/warnings.h"
#include "elf/build_id_cache.h"

namespace perftk::cli {

void AddBuildIdDirOption(CLI::App& sub) {
  sub.add_option_function<std::string>(
         "--buildid-dir", [](const std::string& dir) { elf::SetBuildIdCacheDir(dir); },
         "perf's build-id cache; default: $PERF_BUILDID_DIR, else buildid.dir from perf's "
         "config (~/.perfconfig), else ~/.debug. A DIR that does not exist is an empty "
         "cache (jit --buildid-cache makes it)")
      ->type_name("DIR")
      ->check(
          [](const std::string& dir) -> std::string {
            // A file there cannot be a cache, and was surely not meant.
            struct stat st;
            if (stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
              return dir + " is not a directory";
            }
            return {};
          },
          "DIR");
}

void AddBuildIdFlags(CLI::App& sub, BuildIdFlags& flags, bool by_default) {
  CLI::Option* hit = sub.add_flag(
      "--build-ids", flags.hit,
      "Add the build ids of the DSOs samples hit (as perf inject -b), to the BUILD_ID feature "
      "of a file or as HEADER_BUILD_ID records in a pipe");
  CLI::Option* all =
      sub.add_flag("--buildid-all", flags.all, "Add the build ids of every mapped DSO");
  all->excludes(hit);
  if (by_default) {
    sub.add_flag("--no-build-ids", flags.none,
                 "Do not add build ids (added by default when the input has none)")
        ->excludes(hit)
        ->excludes(all);
  }
}

std::optional<build_ids::BuildIdSettings> BuildIdSettingsOf(const BuildIdFlags& flags,
                                                            bool by_default,
                                                            const std::string& input,
                                                            const std::string& symfs) {
  build_ids::BuildIdSettings settings;
  settings.symfs = symfs;
  struct stat st;
  // A recording made on a board without a clock (its mtime in 1970) says
  // nothing of when it ended.
  constexpr int64_t kYear2000 = 946684800;
  if (input != "-" && stat(input.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_mtim.tv_sec >= kYear2000) {
    settings.recording_ended_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  }
  if (flags.all) {
    settings.scope = build_ids::BuildIdScope::kAll;
  } else if (flags.hit) {
    settings.scope = build_ids::BuildIdScope::kHit;
  } else if (by_default && !flags.none) {
    settings.scope = build_ids::BuildIdScope::kHit;
    settings.only_without_ids = true;
  } else {
    return std::nullopt;
  }
  return settings;
}

WithBuildIds::WithBuildIds(const std::optional<build_ids::BuildIdSettings>& settings,
                           pipeline::Tool& tool)
    : tool_(tool) {
  if (!settings) return;
  ids_.emplace(*settings, warnings_);
  chain_.emplace(*ids_, tool_);
}

void WithBuildIds::PrintSummary(absl::string_view label) const {
  if (!ids_) return;
  const build_ids::BuildIdTool& tool = *ids_;
  const build_ids::BuildIdStats& stats = tool.stats();
  if (stats.added == 0 && stats.without == 0) return;
  std::fprintf(stderr, "%.*s: %llu build ids added", static_cast<int>(label.size()), label.data(),
               static_cast<unsigned long long>(stats.added));
  if (stats.had != 0) {
    std::fprintf(stderr, ", %llu were there", static_cast<unsigned long long>(stats.had));
  }
  if (stats.without != 0) {
    std::fprintf(stderr, ", %llu DSOs without one", static_cast<unsigned long long>(stats.without));
  }
  std::fputc('\n', stderr);
  PrintWarnings(warnings_.lines());
}

}  // namespace perftk::cli
