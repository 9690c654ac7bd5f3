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

absl::Status Marked(absl::Status status, absl::string_view mark) {
  status.SetPayload(mark, absl::Cord("1"));
  return status;
}

bool HasMark(const absl::Status& status, absl::string_view mark) {
  return status.GetPayload(mark).has_value();
}

}  // namespace perftk::base
