// libFuzzer target: any bytes through the perf.data reader, every record
// described (which decodes samples and trailers), samples checked to encode
// back to their own bytes, and the same input again through OrderedReader.
// Errors are fine; crashes, sanitizer reports, hangs and aborts are not.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "perf/describe.h"
#include "perf/input.h"
#include "perf/ordered_reader.h"
#include "perf/reader.h"
#include "perf/sample.h"

namespace {

using perftk::base::Bytes;

// Enough for any input the fuzzer makes; stops pathological loops early.
constexpr int kMaxRecords = 1 << 16;

std::unique_ptr<perftk::perf::PerfDataReader> Open(Bytes bytes) {
  auto reader =
      perftk::perf::PerfDataReader::FromInput(perftk::perf::Input::FromMemory(bytes, "fuzz"));
  return reader.ok() ? *std::move(reader) : nullptr;
}

void CheckSampleRoundTrip(const perftk::perf::Record& record,
                          const perftk::perf::EventList& events) {
  if (record.type() != perftk::PERF_RECORD_SAMPLE || events.empty()) return;
  absl::StatusOr<size_t> index = events.IndexOf(record);
  if (!index.ok()) return;
  const perftk::perf::SampleFormat& format = events.format(*index);
  absl::StatusOr<perftk::perf::Sample> sample = perftk::perf::DecodeSample(format, record.body());
  if (!sample.ok()) return;
  std::vector<std::byte> encoded;
  perftk::perf::EncodeSample(format, *sample, encoded);
  // The payload may carry padding after the last field; the fields must match.
  if (encoded.size() > record.body().size() ||
      (!encoded.empty() &&
       std::memcmp(encoded.data(), record.body().data(), encoded.size()) != 0)) {
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes bytes(reinterpret_cast<const std::byte*>(data), size);
  std::unique_ptr<perftk::perf::PerfDataReader> reader = Open(bytes);
  if (reader == nullptr) return 0;
  {
    const perftk::perf::Header& header = reader->header();
    for (size_t i = 0; i < header.events.size(); ++i) {
      perftk::perf::DescribeAttr(header.events.attrs()[i], i);
    }
    for (const auto& [feature, section] : header.features) {
      perftk::perf::DescribeFeature(feature, header.features);
    }
  }
  for (int i = 0; i < kMaxRecords; ++i) {
    absl::StatusOr<std::optional<perftk::perf::Record>> record = reader->Next();
    if (!record.ok() || !*record) break;
    perftk::perf::DescribeRecord(**record, reader->header().events);
    CheckSampleRoundTrip(**record, reader->header().events);
  }

  reader = Open(bytes);
  if (reader == nullptr) abort();  // opened the first time
  perftk::perf::OrderedReader ordered(*reader, /*max_queued_bytes=*/4096);
  for (int i = 0; i < kMaxRecords; ++i) {
    absl::StatusOr<std::optional<perftk::perf::Record>> record = ordered.Next();
    if (!record.ok() || !*record) break;
    perftk::perf::DescribeRecord(**record, ordered.header().events);
  }
  return 0;
}
