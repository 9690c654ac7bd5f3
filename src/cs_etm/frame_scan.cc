#include "cs_etm/frame_scan.h"

#include <cstdint>

namespace perftk::cs_etm {
namespace {

constexpr size_t kFrameSize = 16;
constexpr uint32_t kFrameSync = 0x7fffffff;

uint32_t WordAt(const std::byte* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// 0: no sync word in the frame; 4: the frame is all sync words; else mixed.
int SyncWordsIn(const std::byte* frame) {
  int count = 0;
  for (size_t i = 0; i < kFrameSize; i += 4) count += WordAt(frame + i) == kFrameSync;
  return count;
}

}  // namespace

bool ForEachIdChange(base::Bytes data, absl::FunctionRef<void(uint8_t id)> id_change) {
  bool whole = data.size() % kFrameSize == 0;
  for (size_t at = 0; at + kFrameSize <= data.size(); at += kFrameSize) {
    const std::byte* frame = data.data() + at;
    const int syncs = SyncWordsIn(frame);
    if (syncs == 4) continue;
    whole = whole && syncs == 0;
    for (size_t i = 0; i < kFrameSize; i += 2) {
      const auto byte = static_cast<uint8_t>(frame[i]);
      if (byte & 1) id_change(byte >> 1);
    }
  }
  return whole;
}

std::optional<TraceIdSet> TraceIdsOfFrames(base::Bytes data) {
  TraceIdSet ids;
  if (!ForEachIdChange(data, [&ids](uint8_t id) { ids.set(id); })) return std::nullopt;
  return ids;
}

}  // namespace perftk::cs_etm
