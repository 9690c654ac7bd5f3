#include "cs_etm/profile_text.h"

#include <unistd.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cs_etm/dwarf_source_map.h"
#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"
#include "profile/llvm_sample.h"

namespace perftk::cs_etm {
namespace {

using Binaries = std::map<profile::BinaryKey, profile::BinaryCounts>;

// The binary of `binaries` that `wanted` names (its recorded path or file
// name), or with `wanted` empty the only one; end() when the trace ran in
// none.
absl::StatusOr<Binaries::const_iterator> ChooseBinary(const Binaries& binaries,
                                                      const std::string& wanted) {
  std::vector<std::string> names;
  for (auto it = binaries.begin(); it != binaries.end(); ++it) {
    const std::string& name = it->first.path;
    size_t slash = name.rfind('/');
    std::string file = slash == std::string::npos ? name : name.substr(slash + 1);
    if (!wanted.empty() && (name == wanted || file == wanted)) return it;
    names.push_back(name);
  }
  if (wanted.empty() && names.size() <= 1) return binaries.begin();
  std::string covered = names.empty() ? "none" : absl::StrJoin(names, ", ");
  if (!wanted.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dso=", wanted, ": the trace ran in no such binary; it ran in: ", covered));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--format=bolt writes one binary, and the trace ran in ", names.size(), ": ",
                   covered, "; choose one with --dso"));
}

}  // namespace

absl::StatusOr<ProfileText> WriteProfileText(const profile::Profile& profile,
                                             profile::Format format, const std::string& dso) {
  ProfileText out;
  if (format == profile::Format::kAutoFdo && dso.empty()) {
    out.text = profile::AutoFdoText(profile);
    return out;
  }
  absl::StatusOr<Binaries::const_iterator> binary = ChooseBinary(profile.binaries(), dso);
  if (!binary.ok()) return binary.status();
  if (*binary == profile.binaries().end()) return out;
  const auto& [key, counts] = **binary;
  if (format == profile::Format::kAutoFdo) {
    profile::AppendAutoFdoText(key, counts, out.text);
  } else {
    out.text = profile::BoltText(key, counts);
    out.binary = key.path;
  }
  return out;
}

absl::StatusOr<ProfileText> WriteLlvmSampleText(const profile::Profile& profile,
                                                const std::string& dso, const std::string& symfs) {
  if (dso.empty()) return absl::InvalidArgumentError("--format=llvm-sample needs --dso");
  absl::StatusOr<Binaries::const_iterator> binary = ChooseBinary(profile.binaries(), dso);
  if (!binary.ok()) return binary.status();
  const auto& [key, counts] = **binary;
  std::string file = key.path;
  if (!symfs.empty()) {
    file = absl::StrCat(symfs, "/", key.path);
    if (access(file.c_str(), R_OK) != 0) {
      const size_t slash = key.path.rfind('/');
      file = absl::StrCat(symfs, "/",
                          slash == std::string::npos ? key.path : key.path.substr(slash + 1));
    }
  }
  absl::StatusOr<std::unique_ptr<DwarfSourceMap>> map = DwarfSourceMap::Open(file);
  if (!map.ok()) return map.status();
  absl::StatusOr<std::string> text = profile::LlvmSampleText(counts, (*map)->first_load(), **map);
  if (!text.ok()) return text.status();
  return ProfileText{std::move(*text), file, (*map)->warnings()};
}

}  // namespace perftk::cs_etm
