// libFuzzer target: any bytes, read as the 64-bit words of a CoreSight
// AUXTRACE_INFO's private area, through the metadata parser; metadata it
// accepts then configures OpenCSD decoders (formatted, and raw for each
// CPU), as cs-etm-decode would. Errors are fine; crashes, sanitizer reports,
// hangs and aborts are not.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "cs_etm/decoder.h"
#include "cs_etm/metadata.h"
#include "cs_etm/opencsd_guard.h"

namespace {

using perftk::cs_etm::PacketContext;

// No code anywhere: decoders are only made, not run.
class NoCode : public perftk::cs_etm::DecodeEnvironment {
 public:
  int32_t PidOf(int32_t tid) override { return tid; }
  uint32_t ReadCode(const PacketContext&, uint64_t, uint32_t, uint8_t*) override { return 0; }
};

// Decoders made per input: enough to cover every protocol in one input.
constexpr size_t kMaxRawDecoders = 8;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  perftk::cs_etm::QuietOpenCsdErrorLog();
  std::vector<uint64_t> words(size / 8);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 8);
  absl::StatusOr<perftk::cs_etm::CsEtmInfo> info = perftk::cs_etm::ParseCsEtmInfo(words);
  if (!info.ok()) return 0;
  std::map<uint32_t, uint8_t> trace_ids;
  for (const perftk::cs_etm::TraceSource& source : info->sources) {
    if (source.trace_id_valid) trace_ids[source.cpu] = source.trace_id();
  }
  NoCode environment;
  auto made =
      perftk::cs_etm::TraceDecoder::Create(*info, trace_ids, /*formatted=*/true, 0, environment);
  made = absl::StatusOr<std::unique_ptr<perftk::cs_etm::TraceDecoder>>();
  for (size_t i = 0; i < info->sources.size() && i < kMaxRawDecoders; ++i) {
    auto raw = perftk::cs_etm::TraceDecoder::Create(*info, trace_ids, /*formatted=*/false,
                                                    info->sources[i].cpu, environment);
  }
  return 0;
}
