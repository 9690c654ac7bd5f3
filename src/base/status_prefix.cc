#include "base/status_prefix.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace perftk::base {

absl::Status Prefixed(absl::string_view prefix, const absl::Status& status) {
  if (status.ok()) return status;
  absl::Status prefixed(status.code(), absl::StrCat(prefix, status.message()));
  status.ForEachPayload([&prefixed](absl::string_view type_url, const absl::Cord& payload) {
    prefixed.SetPayload(type_url, payload);
  });
  return prefixed;
}

}  // namespace perftk::base
