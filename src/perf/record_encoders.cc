#include "perf/record_encoders.h"

#include "perf/record.h"

namespace perftk::perf {

absl::StatusOr<std::vector<std::byte>> EncodeMmap2(const Mmap2Fields& fields, uint16_t misc,
                                                   base::Bytes sample_id) {
  std::vector<std::byte> body;
  body.reserve(64 + fields.filename.size() + 8 + sample_id.size());
  base::Append(body, fields.pid);
  base::Append(body, fields.tid);
  base::Append(body, fields.start);
  base::Append(body, fields.len);
  base::Append(body, fields.pgoff);
  base::Append(body, fields.maj);
  base::Append(body, fields.min);
  base::Append(body, fields.ino);
  base::Append(body, fields.ino_generation);
  base::Append(body, fields.prot);
  base::Append(body, fields.flags);
  base::AppendBytes(body, base::AsBytes(fields.filename.data(), fields.filename.size()));
  body.resize(base::AlignUp(body.size() + 1, 8), std::byte{0});
  base::AppendBytes(body, sample_id);
  return MakeRecordBytes(PERF_RECORD_MMAP2, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeHeaderAttr(const EventAttr& attr, uint16_t misc) {
  std::vector<std::byte> body(attr.bytes().begin(), attr.bytes().end());
  for (uint64_t id : attr.ids()) base::Append(body, id);
  return MakeRecordBytes(PERF_RECORD_HEADER_ATTR, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeHeaderFeature(uint64_t feature, base::Bytes section,
                                                           uint16_t misc) {
  std::vector<std::byte> body;
  body.reserve(8 + section.size());
  base::Append(body, feature);
  base::AppendBytes(body, section);
  return MakeRecordBytes(PERF_RECORD_HEADER_FEATURE, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeHeaderTracingData(std::vector<std::byte>& data,
                                                               uint16_t misc) {
  data.resize(base::AlignUp(data.size(), 8), std::byte{0});
  std::vector<std::byte> body;
  base::Append(body, static_cast<uint32_t>(data.size()));
  base::Append(body, uint32_t{0});  // padding of the record to 8 bytes
  return MakeRecordBytes(PERF_RECORD_HEADER_TRACING_DATA, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeEventUpdateName(uint64_t id, absl::string_view name,
                                                             uint16_t misc) {
  std::vector<std::byte> body;
  base::Append(body, EventUpdateRecord::kName);
  base::Append(body, id);
  base::AppendBytes(body, base::AsBytes(name.data(), name.size()));
  body.resize(16 + base::AlignUp(name.size() + 1, 8), std::byte{0});
  return MakeRecordBytes(PERF_RECORD_EVENT_UPDATE, misc, body);
}

absl::Status MapDeferredCallchainIps(std::vector<std::byte>& bytes, size_t trailer_size,
                                     absl::FunctionRef<uint64_t(uint64_t)> map) {
  if (bytes.size() < CallchainDeferredRecord::kIpsOffset + trailer_size) {
    return absl::DataLossError("shorter than its layout");
  }
  const uint64_t nr = base::Load<uint64_t>(bytes.data() + CallchainDeferredRecord::kNrOffset);
  const size_t room = bytes.size() - CallchainDeferredRecord::kIpsOffset - trailer_size;
  if (nr > room / 8) return absl::DataLossError("nr runs past the record");
  for (uint64_t i = 0; i < nr; ++i) {
    std::byte* p = bytes.data() + CallchainDeferredRecord::IpOffset(i);
    const uint64_t ip = base::Load<uint64_t>(p);
    if (ip < PERF_CONTEXT_MAX) base::Store<uint64_t>(p, map(ip));
  }
  return absl::OkStatus();
}

}  // namespace perftk::perf
