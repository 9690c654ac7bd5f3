#include "perf/reader.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "perf/decompressor.h"
#include "perf/features.h"
#include "perf/swap.h"

namespace perftk::perf {
namespace {

constexpr uint64_t kMagic = 0x32454c4946524550ULL;    // "PERFILE2" read as a native u64
constexpr uint64_t kMagicV1 = 0x454c494646524550ULL;  // "PERFFILE"
constexpr uint64_t kPipeHeaderSize = 16;
constexpr uint64_t kFileHeaderSize = 104;
constexpr uint64_t kFileHeaderSizeNoFeatures = 72;
// Largest payload a stream may announce after an AUXTRACE or tracing-data
// record; larger ones are taken as corruption. Below it, memory follows the
// bytes that really arrive (Input::Read grows its buffer as it reads).
constexpr uint64_t kMaxStreamPayload = 1ULL << 32;
// Largest expansion of one compressed record.
constexpr size_t kMaxDecompressed = 256u << 20;

bool IsCompressed(uint32_t type) {
  return type == PERF_RECORD_COMPRESSED || type == PERF_RECORD_COMPRESSED2;
}

// Size of the data that follows a record outside header.size, if any.
std::optional<uint64_t> TrailingPayloadSize(const Record& record) {
  if (record.type() == PERF_RECORD_AUXTRACE && record.size() >= 16) {
    return base::Load<uint64_t>(record.bytes().data() + 8);
  }
  if (record.type() == PERF_RECORD_HEADER_TRACING_DATA && record.size() >= 12) {
    return base::Load<uint32_t>(record.bytes().data() + 8);
  }
  return std::nullopt;
}

// Mapped pages this far behind the read position are given back.
constexpr uint64_t kReleaseStep = 16u << 20;

}  // namespace

PerfDataReader::PerfDataReader(std::unique_ptr<Input> input) : input_(std::move(input)) {}
PerfDataReader::~PerfDataReader() = default;

absl::StatusOr<std::unique_ptr<PerfDataReader>> PerfDataReader::Open(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Input>> input = Input::Open(path);
  if (!input.ok()) return input.status();
  return FromInput(*std::move(input));
}

absl::StatusOr<std::unique_ptr<PerfDataReader>> PerfDataReader::FromInput(
    std::unique_ptr<Input> input) {
  std::unique_ptr<PerfDataReader> reader(new PerfDataReader(std::move(input)));
  if (absl::Status s = reader->ReadHeader(); !s.ok()) return s;
  const Input& in = *reader->input_;
  if (!in.mapped().empty()) {
    reader->mapped_begin_ = reinterpret_cast<uintptr_t>(in.mapped().data());
    reader->mapped_end_ = reader->mapped_begin_ + in.mapped().size();
  }
  if (in.is_mapped() && !reader->header_.cross_endian) {
    reader->direct_end_ = reader->header_.layout == DataLayout::kFile
                              ? std::min<uint64_t>(reader->data_end_, in.mapped().size())
                              : in.mapped().size();
  }
  return reader;
}

absl::Status PerfDataReader::Error(uint64_t offset, std::optional<uint32_t> type,
                                   absl::string_view what) const {
  std::string where = absl::StrFormat("%s: offset %#x", input_->name(), offset);
  if (type) absl::StrAppend(&where, ": ", RecordTypeName(*type), " record");
  return absl::DataLossError(absl::StrCat(where, ": ", what));
}

absl::Status PerfDataReader::ReadHeader() {
  absl::StatusOr<base::Bytes> start = input_->Read(kPipeHeaderSize, scratch_);
  if (!start.ok()) return start.status();
  if (start->size() < kPipeHeaderSize) {
    return Error(0, std::nullopt,
                 absl::StrFormat("%u bytes are too few for a perf.data header", start->size()));
  }
  uint64_t magic = base::Load<uint64_t>(start->data());
  if (magic == kMagic) {
    header_.cross_endian = false;
  } else if (magic == base::ByteSwap(kMagic)) {
    header_.cross_endian = true;
  } else if (magic == kMagicV1 || magic == base::ByteSwap(kMagicV1)) {
    return Error(0, std::nullopt, "version 1 perf.data (magic PERFFILE) is not supported");
  } else {
    return Error(0, std::nullopt, "not a perf.data file (no PERFILE2 magic)");
  }
  uint64_t size = base::Load<uint64_t>(start->data() + 8);
  if (header_.cross_endian) size = base::ByteSwap(size);
  if (size == kPipeHeaderSize) {
    header_.layout = DataLayout::kPipe;
    return ReadPipePreamble();
  }
  if (size != kFileHeaderSize && size != kFileHeaderSizeNoFeatures) {
    return Error(8, std::nullopt,
                 absl::StrFormat("header size %u is neither 16 (pipe) nor 104", size));
  }
  if (!input_->is_mapped()) {
    return Error(0, std::nullopt,
                 "a file-layout perf.data cannot be read from a pipe; pass the file with -i");
  }
  header_.layout = DataLayout::kFile;
  base::Bytes whole = input_->mapped();
  if (whole.size() < size) {
    return Error(0, std::nullopt, "file ends inside its header");
  }
  std::vector<std::byte> file_header(whole.begin(), whole.begin() + size);
  file_header.resize(kFileHeaderSize);  // a 72-byte header has no feature bits
  if (header_.cross_endian) base::SwapArrayInPlace<uint64_t>(file_header.data(), size / 8);
  return ReadFileLayoutHeader(file_header);
}

absl::Status PerfDataReader::ReadFileLayoutHeader(base::Bytes h) {
  const uint64_t attr_size = base::Load<uint64_t>(h.data() + 16);
  const uint64_t attrs_offset = base::Load<uint64_t>(h.data() + 24);
  const uint64_t attrs_size = base::Load<uint64_t>(h.data() + 32);
  const uint64_t data_offset = base::Load<uint64_t>(h.data() + 40);
  uint64_t data_size = base::Load<uint64_t>(h.data() + 48);
  uint64_t bitmap[4];
  std::memcpy(bitmap, h.data() + 72, sizeof(bitmap));
  const uint64_t file_size = input_->mapped().size();

  if (data_offset > file_size || data_size > file_size - data_offset) {
    return Error(40, std::nullopt,
                 absl::StrFormat("data section [%#x, +%#x) lies outside the %u-byte file",
                                 data_offset, data_size, file_size));
  }
  const bool has_features = (bitmap[0] | bitmap[1] | bitmap[2] | bitmap[3]) != 0;
  // A finished recording with no records has features; an unfinished one
  // (perf record killed) has neither a data size nor features yet.
  if (data_size == 0 && !has_features) {
    Warn(absl::StrCat(input_->name(),
                      ": the data size in the header is 0 (was perf record stopped before it "
                      "finished?); reading records up to the end of the file"));
    data_size = file_size - data_offset;
  }
  data_end_ = data_offset + data_size;
  if (absl::Status s = ReadFileAttrs(attr_size, attrs_offset, attrs_size); !s.ok()) return s;
  if (absl::Status s = ReadFeatureTable(bitmap, data_end_); !s.ok()) return s;
  input_->Seek(data_offset);
  return absl::OkStatus();
}

absl::Status PerfDataReader::ReadFileAttrs(uint64_t attr_size, uint64_t offset, uint64_t size) {
  base::Bytes whole = input_->mapped();
  if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096) {
    return Error(16, std::nullopt, absl::StrFormat("impossible attr size %u", attr_size));
  }
  if (offset > whole.size() || size > whole.size() - offset) {
    return Error(24, std::nullopt, "attr section lies outside the file");
  }
  if (size % attr_size != 0) {
    return Error(32, std::nullopt,
                 absl::StrFormat("attr section of %u bytes is no multiple of %u", size, attr_size));
  }
  std::vector<EventAttr> attrs;
  for (uint64_t at = offset; at < offset + size; at += attr_size) {
    std::vector<std::byte> bytes(whole.begin() + at, whole.begin() + at + attr_size);
    base::MutableBytes attr_bytes(bytes.data(), attr_size - 16);
    if (header_.cross_endian) {
      SwapAttrBytes(attr_bytes);
      base::SwapArrayInPlace<uint64_t>(bytes.data() + attr_size - 16, 2);
    }
    absl::StatusOr<EventAttr> attr = EventAttr::FromBytes(attr_bytes);
    if (!attr.ok()) return Error(at, std::nullopt, attr.status().message());
    uint64_t ids_offset = base::Load<uint64_t>(bytes.data() + attr_size - 16);
    uint64_t ids_size = base::Load<uint64_t>(bytes.data() + attr_size - 8);
    if (ids_offset > whole.size() || ids_size > whole.size() - ids_offset || ids_size % 8 != 0) {
      return Error(
          at + attr_size - 16, std::nullopt,
          absl::StrFormat("id array [%#x, +%#x) lies outside the file", ids_offset, ids_size));
    }
    for (uint64_t i = 0; i < ids_size / 8; ++i) {
      uint64_t id = base::Load<uint64_t>(whole.data() + ids_offset + 8 * i);
      attr->ids().push_back(header_.cross_endian ? base::ByteSwap(id) : id);
    }
    attrs.push_back(*std::move(attr));
  }
  header_.events = EventList(std::move(attrs));
  return absl::OkStatus();
}

absl::Status PerfDataReader::ReadFeatureTable(const uint64_t bitmap_in[4], uint64_t table_offset) {
  uint64_t bitmap[4];
  std::memcpy(bitmap, bitmap_in, sizeof(bitmap));
  if (header_.cross_endian && !(bitmap[0] & (1ULL << HEADER_HOSTNAME))) {
    // Written by a 32-bit big-endian perf: the bitmap is made of u32 words.
    for (uint64_t& word : bitmap) word = std::rotl(word, 32);
  }
  base::Bytes whole = input_->mapped();
  struct Section {
    int bit;
    uint64_t offset;
    uint64_t size;
  };
  std::vector<Section> sections;
  uint64_t at = table_offset;
  for (int bit = 0; bit < HEADER_FEAT_BITS; ++bit) {
    if (!((bitmap[bit / 64] >> (bit % 64)) & 1)) continue;
    if (at + 16 > whole.size()) {
      Warn(
          absl::StrFormat("%s: feature table at %#x runs past the end of the file; features "
                          "from %s on are ignored",
                          input_->name(), table_offset, FeatureName(bit)));
      break;
    }
    uint64_t offset = base::Load<uint64_t>(whole.data() + at);
    uint64_t size = base::Load<uint64_t>(whole.data() + at + 8);
    if (header_.cross_endian) {
      offset = base::ByteSwap(offset);
      size = base::ByteSwap(size);
    }
    at += 16;
    if (offset > whole.size() || size > whole.size() - offset) {
      Warn(absl::StrFormat("%s: %s feature section [%#x, +%#x) lies outside the file; ignored",
                           input_->name(), FeatureName(bit), offset, size));
      continue;
    }
    sections.push_back(Section{bit, offset, size});
  }
  // perf writes each section once, one after another. Sections that share
  // bytes are a malformed (or hostile) file: copied one by one, 256 of them
  // over the whole file would take 256 times its size in memory.
  std::vector<Section> by_offset = sections;
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [](const Section& a, const Section& b) { return a.offset < b.offset; });
  const Section* last = nullptr;
  for (const Section& section : by_offset) {
    if (section.size == 0) continue;
    if (last != nullptr && section.offset < last->offset + last->size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: offset 0x%x: the %s feature section [0x%x, +0x%x) overlaps the %s section "
          "[0x%x, +0x%x); the feature table at 0x%x is malformed",
          input_->name(), section.offset, FeatureName(section.bit), section.offset, section.size,
          FeatureName(last->bit), last->offset, last->size, table_offset));
    }
    last = &section;
  }
  for (const Section& entry : sections) {
    std::vector<std::byte> section(whole.begin() + entry.offset,
                                   whole.begin() + entry.offset + entry.size);
    if (header_.cross_endian) {
      if (absl::Status s = SwapFeatureToNative(entry.bit, section); !s.ok()) {
        Warn(absl::StrCat(input_->name(), ": ", s.message(), "; section dropped"));
        continue;
      }
    }
    header_.features[entry.bit] = std::move(section);
  }
  return absl::OkStatus();
}

absl::Status PerfDataReader::ReadPipePreamble() {
  while (true) {
    absl::StatusOr<std::optional<Record>> record = NextStored();
    if (!record.ok()) return record.status();
    if (!*record) return absl::OkStatus();
    if (!(*record)->is_header_record()) {
      pending_.emplace_back(**record);
      return absl::OkStatus();
    }
    if (absl::Status s = Absorb(**record); !s.ok()) return s;
  }
}

absl::Status PerfDataReader::Absorb(const Record& record) {
  switch (record.type()) {
    case PERF_RECORD_HEADER_ATTR: {
      absl::StatusOr<HeaderAttrRecord> view = HeaderAttrRecord::From(record);
      if (!view.ok()) return Error(record.file_offset(), record.type(), view.status().message());
      absl::StatusOr<EventAttr> attr = EventAttr::FromBytes(view->attr_bytes());
      if (!attr.ok()) return Error(record.file_offset(), record.type(), attr.status().message());
      attr->ids() = view->ids();
      header_.events.Add(*std::move(attr));
      return absl::OkStatus();
    }
    case PERF_RECORD_HEADER_FEATURE: {
      absl::StatusOr<HeaderFeatureRecord> view = HeaderFeatureRecord::From(record);
      if (!view.ok()) return Error(record.file_offset(), record.type(), view.status().message());
      if (view->feature() >= HEADER_FEAT_BITS) {
        Warn(absl::StrFormat("%s: offset %#x: HEADER_FEATURE for unknown feature %u ignored",
                             name(), record.file_offset(), view->feature()));
        return absl::OkStatus();
      }
      std::vector<std::byte> data(view->data().begin(), view->data().end());
      int feature = static_cast<int>(view->feature());
      if (header_.cross_endian) {
        if (absl::Status s = SwapFeatureToNative(feature, data); !s.ok()) {
          Warn(absl::StrCat(name(), ": ", s.message(), "; section dropped"));
          return absl::OkStatus();
        }
      }
      header_.features[feature] = std::move(data);
      return absl::OkStatus();
    }
    case PERF_RECORD_HEADER_TRACING_DATA: {
      base::Bytes payload = record.trailing_payload();
      header_.features[HEADER_TRACING_DATA].assign(payload.begin(), payload.end());
      return absl::OkStatus();
    }
    case PERF_RECORD_HEADER_BUILD_ID: {
      auto& section = header_.features[HEADER_BUILD_ID];
      section.insert(section.end(), record.bytes().begin(), record.bytes().end());
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

uint16_t PerfDataReader::DirectRecordSize(uint64_t offset) const {
  if (offset >= direct_end_ || direct_end_ - offset < kRecordHeaderSize) return 0;
  if (offset >= released_before_ + kReleaseStep) return 0;
  if (!pending_.empty() || decompressed_pos_ < decompressed_.size()) return 0;
  const std::byte* at = input_->mapped().data() + offset;
  const uint32_t type = base::Load<uint32_t>(at);
  const uint16_t size = base::Load<uint16_t>(at + 6);
  if (type >= PERF_RECORD_USER_TYPE_START || size < kRecordHeaderSize ||
      size > direct_end_ - offset) {
    return 0;
  }
  return size;
}

absl::StatusOr<std::optional<Record>> PerfDataReader::Next() {
  const uint64_t offset = input_->position();
  if (const uint16_t size = DirectRecordSize(offset); size != 0) {
    input_->Seek(offset + size);
    return std::optional<Record>(
        Record(base::Bytes(input_->mapped().data() + offset, size), offset));
  }
  if (!pending_.empty()) {
    current_pending_ = std::move(pending_.front());
    pending_.pop_front();
    return std::optional<Record>(current_pending_.view());
  }
  absl::StatusOr<std::optional<Record>> record = NextStored();
  if (!record.ok() || !*record) return record;
  if ((*record)->is_header_record()) {
    if (absl::Status s = Absorb(**record); !s.ok()) return s;
  }
  return record;
}

absl::StatusOr<std::optional<Record>> PerfDataReader::NextStored() {
  while (true) {
    absl::StatusOr<std::optional<Record>> record =
        decompressed_pos_ < decompressed_.size() ? NextDecompressed() : NextFromInput();
    if (!record.ok() || !*record) return record;
    if (!IsCompressed((*record)->type())) return record;
    if (absl::Status s = StartDecompressing(**record); !s.ok()) return s;
  }
}

absl::StatusOr<std::optional<Record>> PerfDataReader::NextFromInput() {
  const uint64_t offset = input_->position();
  // Records before this one are no longer referenced (see Next's contract),
  // but through the views the user says it holds.
  if (offset >= released_before_ + kReleaseStep) {
    input_->ReleaseBefore(views_held_from_ ? std::min(offset, views_held_from_()) : offset);
    released_before_ = offset;
  }
  const bool file_layout = header_.layout == DataLayout::kFile;
  if (file_layout && offset >= data_end_) {
    if (decompressed_pos_ < decompressed_.size()) {
      return Error(compressed_offset_, PERF_RECORD_COMPRESSED,
                   "compressed data ends inside a record");
    }
    return std::optional<Record>();
  }
  absl::StatusOr<base::Bytes> head = input_->Read(kRecordHeaderSize, scratch_);
  if (!head.ok()) return head.status();
  if (head->empty()) {
    if (decompressed_pos_ < decompressed_.size()) {
      return Error(compressed_offset_, PERF_RECORD_COMPRESSED,
                   "compressed data ends inside a record");
    }
    return std::optional<Record>();
  }
  if (head->size() < kRecordHeaderSize)
    return Error(offset, std::nullopt, "input ends inside a record header");
  uint32_t type = base::Load<uint32_t>(head->data());
  uint16_t size = base::Load<uint16_t>(head->data() + 6);
  if (header_.cross_endian) {
    type = base::ByteSwap(type);
    size = base::ByteSwap(size);
  }
  if (size < kRecordHeaderSize) {
    return Error(offset, type, absl::StrFormat("size %u is smaller than the record header", size));
  }
  if (file_layout && size > data_end_ - offset) {
    return Error(
        offset, type,
        absl::StrFormat("size %u runs past the end of the data section at %#x", size, data_end_));
  }
  base::Bytes bytes;
  if (input_->is_mapped() && !header_.cross_endian) {
    bytes = input_->mapped().subspan(offset,
                                     std::min<uint64_t>(size, input_->mapped().size() - offset));
    input_->Seek(offset + bytes.size());
  } else {
    record_buffer_.assign(head->begin(), head->end());
    absl::StatusOr<base::Bytes> body = input_->Read(size - kRecordHeaderSize, scratch_);
    if (!body.ok()) return body.status();
    record_buffer_.insert(record_buffer_.end(), body->begin(), body->end());
    bytes = record_buffer_;
  }
  if (bytes.size() < size) return Error(offset, type, "input ends inside the record");
  if (header_.cross_endian) {
    if (absl::Status s = SwapRecordToNative(header_.events, record_buffer_); !s.ok()) {
      return Error(offset, type, s.message());
    }
  }
  Record record(bytes, offset);
  std::optional<uint64_t> payload_size = TrailingPayloadSize(record);
  if (!payload_size || *payload_size == 0) return std::optional<Record>(record);

  uint64_t payload_offset = input_->position();
  uint64_t limit = file_layout           ? data_end_ - payload_offset
                   : input_->is_mapped() ? input_->mapped().size() - payload_offset
                                         : kMaxStreamPayload;
  if (*payload_size > limit) {
    return Error(offset, type,
                 absl::StrFormat("announces %u bytes of trailing data, but only %u can follow",
                                 *payload_size, limit));
  }
  absl::StatusOr<base::Bytes> payload = input_->Read(*payload_size, payload_buffer_);
  if (!payload.ok()) return payload.status();
  if (payload->size() < *payload_size)
    return Error(offset, type, "input ends inside its trailing data");
  return std::optional<Record>(Record(bytes, offset, *payload));
}

absl::Status PerfDataReader::StartDecompressing(const Record& compressed) {
  if (!decompressor_) decompressor_ = std::make_unique<Decompressor>();
  absl::StatusOr<CompressedRecord> view = CompressedRecord::From(compressed);
  if (!view.ok())
    return Error(compressed.file_offset(), compressed.type(), view.status().message());
  base::Bytes data = view->data();
  // Keep the part of a record the previous compressed record ended inside.
  decompressed_.erase(decompressed_.begin(), decompressed_.begin() + decompressed_pos_);
  decompressed_pos_ = 0;
  compressed_offset_ = compressed.file_offset();
  absl::Status s = decompressor_->Decompress(data, decompressed_, kMaxDecompressed);
  if (!s.ok()) return Error(compressed.file_offset(), compressed.type(), s.message());
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Record>> PerfDataReader::NextDecompressed() {
  size_t available = decompressed_.size() - decompressed_pos_;
  std::byte* p = decompressed_.data() + decompressed_pos_;
  if (available < kRecordHeaderSize) return NextFromInput();
  uint32_t type = base::Load<uint32_t>(p);
  uint16_t size = base::Load<uint16_t>(p + 6);
  if (header_.cross_endian) {
    type = base::ByteSwap(type);
    size = base::ByteSwap(size);
  }
  if (size < kRecordHeaderSize) {
    return Error(compressed_offset_, type,
                 absl::StrFormat("decompressed record size %u is smaller than its header", size));
  }
  if (size > available) return NextFromInput();  // continues in the next compressed record
  if (IsCompressed(type)) {
    // perf never nests them; decompressing one would append to the buffer it lies in.
    return Error(compressed_offset_, type, "a compressed record inside compressed data");
  }
  decompressed_pos_ += size;
  if (header_.cross_endian) {
    record_buffer_.assign(p, p + size);
    if (absl::Status s = SwapRecordToNative(header_.events, record_buffer_); !s.ok()) {
      return Error(compressed_offset_, type, s.message());
    }
    return std::optional<Record>(Record(record_buffer_, compressed_offset_));
  }
  return std::optional<Record>(Record(base::Bytes(p, size), compressed_offset_));
}

}  // namespace perftk::perf
