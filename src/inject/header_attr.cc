#include "inject/header_attr.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/bytes.h"

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

absl::Status RewriteEventDescAttrs(std::vector<std::byte>& section,
                                   absl::FunctionRef<void(EventAttr&)> change) {
  ByteCursor in(section);
  const uint32_t nr = in.Read<uint32_t>();
  const uint32_t attr_size = in.Read<uint32_t>();
  if (!in.ok() || attr_size < PERF_ATTR_SIZE_VER0 || nr > section.size() / attr_size) {
    return absl::DataLossError("event_desc feature section is malformed");
  }
  std::vector<std::pair<size_t, EventAttr>> changed;
  for (uint32_t i = 0; i < nr; ++i) {
    const size_t attr_at = in.position();
    Bytes attr_bytes = in.ReadBytes(attr_size);
    if (!in.ok()) return absl::DataLossError("event_desc entry runs past the section");
    absl::StatusOr<EventAttr> attr = EventAttr::FromBytes(attr_bytes);
    if (!attr.ok()) return attr.status();
    change(*attr);
    changed.emplace_back(attr_at, *std::move(attr));
    const uint32_t nr_ids = in.Read<uint32_t>();
    const uint32_t name_len = in.Read<uint32_t>();
    if (!in.ok() || !in.Skip(name_len) || !in.Skip(8ULL * nr_ids)) {
      return absl::DataLossError("event_desc entry runs past the section");
    }
  }
  for (const auto& [at, attr] : changed) {
    // The recorded size field stays: a change that grew the attr to a newer
    // ABI only wrote fields past the section's attr size (left out here).
    std::byte size_field[4];
    std::memcpy(size_field, section.data() + at + attr_offset::kSize, sizeof size_field);
    std::memcpy(section.data() + at, attr.bytes().data(),
                std::min<size_t>(attr_size, attr.bytes().size()));
    std::memcpy(section.data() + at + attr_offset::kSize, size_field, sizeof size_field);
  }
  return absl::OkStatus();
}

}  // namespace perftk
