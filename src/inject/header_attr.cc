#include "inject/header_attr.h"

namespace perftk {

absl::StatusOr<std::vector<std::byte>> RewriteHeaderAttr(
    const Record& record, EventList& input, EventList& output,
    absl::FunctionRef<void(EventAttr&)> change) {
  absl::StatusOr<HeaderAttrRecord> view = HeaderAttrRecord::From(record);
  if (!view.ok()) return view.status();
  absl::StatusOr<EventAttr> attr = EventAttr::FromBytes(view->attr_bytes());
  if (!attr.ok()) return attr.status();
  attr->ids() = view->ids();
  input.Add(*attr);
  change(*attr);
  output.Add(*attr);
  std::vector<std::byte> body(attr->bytes().begin(), attr->bytes().end());
  for (uint64_t id : attr->ids()) Append(body, id);
  return MakeRecordBytes(record.type(), record.misc(), body);
}

}  // namespace perftk
