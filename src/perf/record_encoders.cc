#include "perf/record_encoders.h"

#include "perf/record.h"

namespace perftk::perf {

absl::StatusOr<std::vector<std::byte>> EncodeMmap2(const Mmap2Fields& fields, uint16_t misc,
                                                   Bytes sample_id) {
  std::vector<std::byte> body;
  body.reserve(64 + fields.filename.size() + 8 + sample_id.size());
  Append(body, fields.pid);
  Append(body, fields.tid);
  Append(body, fields.start);
  Append(body, fields.len);
  Append(body, fields.pgoff);
  Append(body, fields.maj);
  Append(body, fields.min);
  Append(body, fields.ino);
  Append(body, fields.ino_generation);
  Append(body, fields.prot);
  Append(body, fields.flags);
  AppendBytes(body, AsBytes(fields.filename.data(), fields.filename.size()));
  body.resize(AlignUp(body.size() + 1, 8), std::byte{0});
  AppendBytes(body, sample_id);
  return MakeRecordBytes(PERF_RECORD_MMAP2, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeHeaderAttr(const EventAttr& attr, uint16_t misc) {
  std::vector<std::byte> body(attr.bytes().begin(), attr.bytes().end());
  for (uint64_t id : attr.ids()) Append(body, id);
  return MakeRecordBytes(PERF_RECORD_HEADER_ATTR, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeHeaderFeature(uint64_t feature, Bytes section,
                                                           uint16_t misc) {
  std::vector<std::byte> body;
  body.reserve(8 + section.size());
  Append(body, feature);
  AppendBytes(body, section);
  return MakeRecordBytes(PERF_RECORD_HEADER_FEATURE, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeHeaderTracingData(std::vector<std::byte>& data,
                                                               uint16_t misc) {
  data.resize(AlignUp(data.size(), 8), std::byte{0});
  std::vector<std::byte> body;
  Append(body, static_cast<uint32_t>(data.size()));
  Append(body, uint32_t{0});  // padding of the record to 8 bytes
  return MakeRecordBytes(PERF_RECORD_HEADER_TRACING_DATA, misc, body);
}

absl::StatusOr<std::vector<std::byte>> EncodeEventUpdateName(uint64_t id, absl::string_view name,
                                                             uint16_t misc) {
  std::vector<std::byte> body;
  Append(body, EventUpdateRecord::kName);
  Append(body, id);
  AppendBytes(body, AsBytes(name.data(), name.size()));
  body.resize(16 + AlignUp(name.size() + 1, 8), std::byte{0});
  return MakeRecordBytes(PERF_RECORD_EVENT_UPDATE, misc, body);
}

absl::Status MapDeferredCallchainIps(std::vector<std::byte>& bytes, size_t trailer_size,
                                     absl::FunctionRef<uint64_t(uint64_t)> map) {
  if (bytes.size() < CallchainDeferredRecord::kIpsOffset + trailer_size) {
    return absl::DataLossError("shorter than its layout");
  }
  const uint64_t nr = Load<uint64_t>(bytes.data() + CallchainDeferredRecord::kNrOffset);
  const size_t room = bytes.size() - CallchainDeferredRecord::kIpsOffset - trailer_size;
  if (nr > room / 8) return absl::DataLossError("nr runs past the record");
  for (uint64_t i = 0; i < nr; ++i) {
    std::byte* p = bytes.data() + CallchainDeferredRecord::IpOffset(i);
    const uint64_t ip = Load<uint64_t>(p);
    if (ip < PERF_CONTEXT_MAX) Store<uint64_t>(p, map(ip));
  }
  return absl::OkStatus();
}

}  // namespace perftk::perf
