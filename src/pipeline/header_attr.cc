#include "pipeline/header_attr.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "perf/features.h"
#include "perf/record_encoders.h"

namespace perftk::pipeline {

absl::StatusOr<std::vector<std::byte>> RewriteHeaderAttr(
    const perf::Record& record, perf::EventList& input, perf::EventList& output,
    absl::FunctionRef<void(perf::EventAttr&)> change) {
  absl::StatusOr<perf::HeaderAttrRecord> view = perf::HeaderAttrRecord::From(record);
  if (!view.ok()) return view.status();
  absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(view->attr_bytes());
  if (!attr.ok()) return attr.status();
  attr->ids() = view->ids();
  input.Add(*attr);
  change(*attr);
  output.Add(*attr);
  return perf::EncodeHeaderAttr(*attr, record.misc());
}

absl::Status RewriteEventDesc(std::vector<std::byte>& section,
                              absl::FunctionRef<void(perf::EventAttr&)> change,
                              absl::FunctionRef<std::string(const std::string&)> rename) {
  absl::StatusOr<perf::EventDesc> desc = perf::ParseEventDesc(section);
  if (!desc.ok()) return desc.status();
  if (desc->attr_size < PERF_ATTR_SIZE_VER0) {
    return absl::DataLossError("event_desc feature section has attrs of impossible size");
  }
  for (perf::EventDescEntry& entry : desc->entries) {
    absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(entry.attr);
    if (!attr.ok()) return attr.status();
    change(*attr);
    // The recorded size field stays: a change that grew the attr to a newer
    // ABI only wrote fields past the section's attr size (left out here).
    std::byte size_field[4];
    std::memcpy(size_field, entry.attr.data() + attr_offset::kSize, sizeof size_field);
    std::memcpy(entry.attr.data(), attr->bytes().data(),
                std::min<size_t>(entry.attr.size(), attr->bytes().size()));
    std::memcpy(entry.attr.data() + attr_offset::kSize, size_field, sizeof size_field);
    if (std::string name = rename(entry.name); name.size() < entry.name_size) {
      entry.name = std::move(name);
    }
  }
  section = perf::EncodeEventDesc(*desc);
  return absl::OkStatus();
}

absl::Status RewriteEventDescAttrs(std::vector<std::byte>& section,
                                   absl::FunctionRef<void(perf::EventAttr&)> change) {
  return RewriteEventDesc(section, change, [](const std::string& name) { return name; });
}

}  // namespace perftk::pipeline
