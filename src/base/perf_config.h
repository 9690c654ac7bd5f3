// Values from perf's configuration files (perf-config(1)): git-config
// style text, "[section]" headers and "name = value" lines.
//
// perf reads $PERF_CONFIG when it is set (an empty one: no file), else
// /etc/perfconfig and then ~/.perfconfig, a later value overriding an
// earlier one; so does PerfConfigValue. Files that cannot be read count as
// empty, as they do for perf; one that is not a regular file (a FIFO) is
// not opened at all.
#ifndef PERFTK_BASE_PERF_CONFIG_H_
#define PERFTK_BASE_PERF_CONFIG_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace perftk::base {

// The value of `section`.`name` ("buildid", "dir") in `text`, the last one
// given; section and name ignore case. A value may be quoted ("..."); '#'
// and ';' start a comment outside quotes. Subsections ([a "b"]) are skipped.
std::optional<std::string> FindPerfConfigValue(absl::string_view text, absl::string_view section,
                                               absl::string_view name);

// The value of `section`.`name` from perf's configuration files.
std::optional<std::string> PerfConfigValue(absl::string_view section, absl::string_view name);

}  // namespace perftk::base

#endif  // PERFTK_BASE_PERF_CONFIG_H_
