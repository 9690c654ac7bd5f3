// Writes a perf.data recording in native byte order, in file or pipe layout.
//
// The output is a base::OutputFile: a regular file appears whole at Finish
// or not at all (a writer destroyed without Finish, or an interrupted run,
// leaves the old file as it was); standard output, a device, FIFO or socket
// is written in place and takes the pipe layout only.
// File layout written: file header, data section, feature table and sections,
// then the id arrays and attrs (perf reads each through its offset).
//
// Pipe layout (to a stream, or a file when asked): the pipe header and the header
// records for attrs and features are written at Create; records follow.
//
// Header records given to Write (pipe-mode HEADER_ATTR, HEADER_FEATURE,
// HEADER_TRACING_DATA, HEADER_BUILD_ID that came after the first event) are
// folded into the header in file layout, and written as they are in pipe
// layout.
#ifndef PERFTK_PERF_WRITER_H_
#define PERFTK_PERF_WRITER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/output_file.h"
#include "perf/features.h"
#include "perf/header.h"
#include "perf/record.h"

namespace perftk::perf {

class PerfDataWriter {
 public:
  // `header` gives the events and features to write (a copy is kept; tools
  // change attrs or features before Create).
  static absl::StatusOr<std::unique_ptr<PerfDataWriter>> Create(
      std::unique_ptr<base::OutputFile> out, DataLayout layout, const Header& header);
  // Opens `path` ("-": standard output) as the output and creates the writer.
  static absl::StatusOr<std::unique_ptr<PerfDataWriter>> Create(const std::string& path,
                                                                DataLayout layout,
                                                                const Header& header);
  ~PerfDataWriter();

  absl::Status Write(const Record& record);
  // Writes a record given as bytes (header included) and optional trailing data.
  absl::Status WriteBytes(base::Bytes record, base::Bytes trailing_payload = {});

  // File layout: features to write at Finish (replace or drop sections here).
  FeatureSet& features() { return header_.features; }

  absl::Status Finish();

  uint64_t records_written() const { return records_written_; }

 private:
  PerfDataWriter(std::unique_ptr<base::OutputFile> out, DataLayout layout, const Header& header);

  absl::Status Start();
  absl::Status WritePipePreamble();
  absl::Status WriteEventNames();
  absl::Status Absorb(const Record& record);
  absl::Status Put(base::Bytes bytes);
  // Appends bytes that fit to the buffer.
  void Buffer(base::Bytes bytes) {
    if (!bytes.empty()) std::memcpy(buffer_.get() + buffered_, bytes.data(), bytes.size());
    buffered_ += bytes.size();
    offset_ += bytes.size();
  }
  absl::Status Flush();
  absl::Status WriteFileTail();

  std::unique_ptr<base::OutputFile> out_;
  DataLayout layout_;
  Header header_;
  std::unique_ptr<std::byte[]> buffer_;  // kBufferSize bytes, of which buffered_ are used
  size_t buffered_ = 0;
  uint64_t offset_ = 0;  // bytes written so far (buffer included)
  uint64_t records_written_ = 0;
  std::vector<AuxtraceIndexEntry> auxtrace_index_;  // of the AUXTRACE records written
};

}  // namespace perftk::perf

#endif  // PERFTK_PERF_WRITER_H_
