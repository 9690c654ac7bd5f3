// What `perftk cs-etm-decode` is asked to make (DecodeOptions) and what it
// counted while making it (DecodeStats); shared by the tool and its rooms.
#ifndef PERFTK_CS_ETM_DECODE_OPTIONS_H_
#define PERFTK_CS_ETM_DECODE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cs_etm/decoder.h"
#include "cs_etm/itrace.h"

namespace perftk::cs_etm {

enum class OutputFormat { kPerf, kAutoFdo, kBolt, kScript };

// Whether `format` is a profile (aggregated counts) rather than samples.
inline bool IsProfile(OutputFormat format) {
  return format == OutputFormat::kAutoFdo || format == OutputFormat::kBolt;
}

// Which decoder follows the trace: the fast one (fast_decoder.h), with
// OpenCSD for the blocks it does not follow, or OpenCSD alone.
enum class DecoderChoice { kFast, kOpenCsd };

struct DecodeOptions {
  ItraceOptions itrace;
  OutputFormat format = OutputFormat::kPerf;
  std::string symfs;
  // The kernel image: a vmlinux, or a kcore file (binary_images.h).
  std::string vmlinux;
  std::string kcore;
  // Packets the decoder hands over per OpenCSD WAIT.
  size_t packet_batch = TraceDecoder::kDefaultBatchSize;
  // Decode threads; 1 decodes on the calling thread.
  int jobs = 1;
  DecoderChoice decoder = DecoderChoice::kFast;
  // kBolt, kAutoFdo: the binary whose profile is written, by recorded path
  // or file name. Empty: for kBolt the only binary the trace ran in (several
  // are an error), for kAutoFdo every binary.
  std::string dso;
  // kBolt, kAutoFdo: false keeps only profile(), for a caller that adds up
  // several recordings and writes the text itself.
  bool profile_text = true;
  // Progress on stderr while decoding (pipeline/progress.h); off for -q.
  bool show_progress = true;
};

struct DecodeStats {
  uint64_t blocks = 0;
  uint64_t trace_bytes = 0;
  uint64_t packets = 0;
  uint64_t samples = 0;
  uint64_t instruction_samples = 0;
  uint64_t branch_samples = 0;
  uint64_t decoder_waits = 0;
  uint64_t fast_blocks = 0;     // decoded by the fast decoder
  uint64_t opencsd_blocks = 0;  // decoded by OpenCSD
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_DECODE_OPTIONS_H_
