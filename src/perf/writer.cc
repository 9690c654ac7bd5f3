#include "perf/writer.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "perf/features.h"
#include "perf/record_encoders.h"

namespace perftk::perf {
namespace {

constexpr uint64_t kMagic = 0x32454c4946524550ULL;
constexpr size_t kFileHeaderSize = 104;
constexpr size_t kBufferSize = 1 << 20;

// Features that describe the input file itself and must not be carried
// into another file: AUXTRACE holds file offsets of the input's records (the
// writer makes a new one for the records it writes), COMPRESSED describes
// compressed records perftk does not write.
bool IsFileSpecificFeature(int feature) {
  return feature == HEADER_AUXTRACE || feature == HEADER_COMPRESSED || feature == HEADER_DIR_FORMAT;
}

}  // namespace

PerfDataWriter::PerfDataWriter(std::unique_ptr<base::OutputFile> out, DataLayout layout,
                               const Header& header)
    : out_(std::move(out)), layout_(layout), header_(header) {
  header_.layout = layout;
  header_.cross_endian = false;
  for (auto it = header_.features.begin(); it != header_.features.end();) {
    it = IsFileSpecificFeature(it->first) ? header_.features.erase(it) : std::next(it);
  }
  buffer_ = std::make_unique_for_overwrite<std::byte[]>(kBufferSize);
}

PerfDataWriter::~PerfDataWriter() = default;

absl::StatusOr<std::unique_ptr<PerfDataWriter>> PerfDataWriter::Create(
    std::unique_ptr<base::OutputFile> out, DataLayout layout, const Header& header) {
  if (layout == DataLayout::kFile && out->is_stream()) {
    return absl::InvalidArgumentError(
        absl::StrCat(out->path() == "-" ? "standard output" : out->path(),
                     ": written in order only, so it takes the pipe layout only"));
  }
  std::unique_ptr<PerfDataWriter> writer(new PerfDataWriter(std::move(out), layout, header));
  if (absl::Status s = writer->Start(); !s.ok()) return s;
  return writer;
}

absl::StatusOr<std::unique_ptr<PerfDataWriter>> PerfDataWriter::Create(const std::string& path,
                                                                       DataLayout layout,
                                                                       const Header& header) {
  absl::StatusOr<std::unique_ptr<base::OutputFile>> out = base::OutputFile::Open(path);
  if (!out.ok()) return out.status();
  return Create(std::move(*out), layout, header);
}

absl::Status PerfDataWriter::Start() {
  if (layout_ == DataLayout::kPipe) return WritePipePreamble();
  std::memset(buffer_.get(), 0, kFileHeaderSize);  // filled in by Finish
  buffered_ = kFileHeaderSize;
  offset_ = kFileHeaderSize;
  return absl::OkStatus();
}

absl::Status PerfDataWriter::WritePipePreamble() {
  std::vector<std::byte> head;
  base::Append(head, kMagic);
  base::Append(head, uint64_t{16});
  if (absl::Status s = Put(head); !s.ok()) return s;
  for (const EventAttr& attr : header_.events.attrs()) {
    absl::StatusOr<std::vector<std::byte>> record = EncodeHeaderAttr(attr);
    if (!record.ok()) return record.status();
    if (absl::Status s = WriteBytes(*record); !s.ok()) return s;
  }
  if (absl::Status s = WriteEventNames(); !s.ok()) return s;
  for (const auto& [feature, section] : header_.features) {
    if (feature == HEADER_TRACING_DATA) {
      std::vector<std::byte> data(section);
      absl::StatusOr<std::vector<std::byte>> record = EncodeHeaderTracingData(data);
      if (!record.ok()) return record.status();
      if (absl::Status s = WriteBytes(*record, data); !s.ok()) return s;
    } else if (feature == HEADER_BUILD_ID) {
      // The section is a sequence of build-id records; in a file their
      // type field is left 0, in a pipe it must say HEADER_BUILD_ID.
      std::vector<std::byte> records(section);
      for (size_t at = 0; at + kRecordHeaderSize <= records.size();) {
        uint16_t size = base::Load<uint16_t>(records.data() + at + 6);
        if (size < kRecordHeaderSize || at + size > records.size()) {
          return absl::DataLossError("build_id feature section has an entry of impossible size");
        }
        base::Store<uint32_t>(records.data() + at, PERF_RECORD_HEADER_BUILD_ID);
        at += size;
      }
      if (absl::Status s = Put(records); !s.ok()) return s;
    } else {
      absl::StatusOr<std::vector<std::byte>> record =
          EncodeHeaderFeature(static_cast<uint64_t>(feature), section);
      if (!record.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the ", FeatureName(feature), " feature is too large for a pipe-mode record"));
      }
      if (absl::Status s = WriteBytes(*record); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status PerfDataWriter::WriteEventNames() {
  // A file names its events in EVENT_DESC; a pipe carries the names in
  // EVENT_UPDATE records, without which perf makes up names from the attrs.
  absl::StatusOr<std::vector<EventDescEntry>> descs = ReadEventDesc(header_.features);
  if (!descs.ok()) return absl::OkStatus();
  for (const EventDescEntry& desc : *descs) {
    if (desc.ids.empty()) continue;
    absl::StatusOr<std::vector<std::byte>> record = EncodeEventUpdateName(desc.ids[0], desc.name);
    if (!record.ok()) return record.status();
    if (absl::Status s = WriteBytes(*record); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status PerfDataWriter::Put(base::Bytes bytes) {
  if (buffered_ + bytes.size() > kBufferSize) {
    if (absl::Status s = Flush(); !s.ok()) return s;
  }
  if (bytes.size() >= kBufferSize) {
    if (absl::Status s = out_->Write(bytes); !s.ok()) return s;
    offset_ += bytes.size();
  } else {
    Buffer(bytes);
  }
  return absl::OkStatus();
}

absl::Status PerfDataWriter::Flush() {
  if (absl::Status s = out_->Write(base::Bytes(buffer_.get(), buffered_)); !s.ok()) return s;
  buffered_ = 0;
  return absl::OkStatus();
}

absl::Status PerfDataWriter::Absorb(const Record& record) {
  switch (record.type()) {
    case PERF_RECORD_HEADER_ATTR: {
      absl::StatusOr<HeaderAttrRecord> view = HeaderAttrRecord::From(record);
      if (!view.ok()) return view.status();
      absl::StatusOr<EventAttr> attr = EventAttr::FromBytes(view->attr_bytes());
      if (!attr.ok()) return attr.status();
      attr->ids() = view->ids();
      header_.events.Add(*std::move(attr));
      break;
    }
    case PERF_RECORD_HEADER_FEATURE: {
      absl::StatusOr<HeaderFeatureRecord> view = HeaderFeatureRecord::From(record);
      if (!view.ok()) return view.status();
      int feature = static_cast<int>(view->feature());
      if (feature < HEADER_FEAT_BITS && !IsFileSpecificFeature(feature)) {
        header_.features[feature].assign(view->data().begin(), view->data().end());
      }
      break;
    }
    case PERF_RECORD_HEADER_TRACING_DATA:
      header_.features[HEADER_TRACING_DATA].assign(record.trailing_payload().begin(),
                                                   record.trailing_payload().end());
      break;
    case PERF_RECORD_HEADER_BUILD_ID: {
      auto& section = header_.features[HEADER_BUILD_ID];
      section.insert(section.end(), record.bytes().begin(), record.bytes().end());
      break;
    }
    default:
      break;
  }
  return absl::OkStatus();
}

absl::Status PerfDataWriter::Write(const Record& record) {
  // Most records are kernel records (no header record, no AUXTRACE, no
  // trailing payload) that fit in the buffer: copied there directly.
  const base::Bytes bytes = record.bytes();
  if (record.type() < PERF_RECORD_USER_TYPE_START && bytes.size() <= kBufferSize - buffered_ &&
      record.trailing_payload().empty()) {
    Buffer(bytes);
    ++records_written_;
    return absl::OkStatus();
  }
  if (layout_ == DataLayout::kFile && record.is_header_record()) return Absorb(record);
  return WriteBytes(record.bytes(), record.trailing_payload());
}

absl::Status PerfDataWriter::WriteBytes(base::Bytes record, base::Bytes trailing_payload) {
  if (layout_ == DataLayout::kFile && record.size() >= kRecordHeaderSize &&
      base::Load<uint32_t>(record.data()) == PERF_RECORD_AUXTRACE) {
    auxtrace_index_.push_back({offset_, record.size()});
  }
  if (absl::Status s = Put(record); !s.ok()) return s;
  if (!trailing_payload.empty()) {
    if (absl::Status s = Put(trailing_payload); !s.ok()) return s;
  }
  ++records_written_;
  return absl::OkStatus();
}

absl::Status PerfDataWriter::WriteFileTail() {
  const uint64_t data_size = offset_ - kFileHeaderSize;
  // perf decodes AUX area data out of order only through this index; without
  // it, it falls back to reading the file as a stream.
  if (!auxtrace_index_.empty()) {
    header_.features[HEADER_AUXTRACE] = EncodeAuxtraceIndex(auxtrace_index_);
  }
  // Feature table right after the data, then the sections in bit order.
  uint64_t bitmap[4] = {0, 0, 0, 0};
  std::vector<std::byte> table;
  uint64_t section_offset = offset_ + 16 * header_.features.size();
  for (const auto& [feature, section] : header_.features) {
    bitmap[feature / 64] |= 1ULL << (feature % 64);
    base::Append(table, section_offset);
    base::Append(table, static_cast<uint64_t>(section.size()));
    section_offset += section.size();
  }
  if (absl::Status s = Put(table); !s.ok()) return s;
  for (const auto& [feature, section] : header_.features) {
    if (absl::Status s = Put(section); !s.ok()) return s;
  }
  // Id arrays, then the attrs that point at them.
  std::vector<uint64_t> ids_offsets;
  for (const EventAttr& attr : header_.events.attrs()) {
    ids_offsets.push_back(offset_);
    std::vector<std::byte> ids;
    for (uint64_t id : attr.ids()) base::Append(ids, id);
    if (absl::Status s = Put(ids); !s.ok()) return s;
  }
  // All attrs of a file share one size: the largest of them.
  uint64_t attr_size = PERF_ATTR_SIZE_VER0;
  for (const EventAttr& attr : header_.events.attrs())
    attr_size = std::max<uint64_t>(attr_size, attr.size());
  const uint64_t attrs_offset = offset_;
  std::vector<std::byte> attrs;
  for (size_t i = 0; i < header_.events.size(); ++i) {
    const EventAttr& attr = header_.events.attrs()[i];
    size_t at = attrs.size();
    base::AppendBytes(attrs, attr.bytes());
    attrs.resize(at + attr_size);
    base::Store<uint32_t>(attrs.data() + at + attr_offset::kSize, static_cast<uint32_t>(attr_size));
    base::Append(attrs, ids_offsets[i]);
    base::Append(attrs, static_cast<uint64_t>(8 * attr.ids().size()));
  }
  if (absl::Status s = Put(attrs); !s.ok()) return s;
  if (absl::Status s = Flush(); !s.ok()) return s;

  std::vector<std::byte> head;
  base::Append(head, kMagic);
  base::Append(head, static_cast<uint64_t>(kFileHeaderSize));
  base::Append(head, attr_size + 16);
  base::Append(head, attrs_offset);
  base::Append(head, static_cast<uint64_t>(attrs.size()));
  base::Append(head, static_cast<uint64_t>(kFileHeaderSize));
  base::Append(head, data_size);
  base::Append(head, uint64_t{0});
  base::Append(head, uint64_t{0});
  for (uint64_t word : bitmap) base::Append(head, word);
  return out_->WriteAt(head, 0);
}

absl::Status PerfDataWriter::Finish() {
  if (layout_ == DataLayout::kFile) {
    if (absl::Status s = WriteFileTail(); !s.ok()) return s;
  } else if (absl::Status s = Flush(); !s.ok()) {
    return s;
  }
  return out_->Commit();
}

}  // namespace perftk::perf
