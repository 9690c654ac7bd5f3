#include "cs_etm/frame_demux.h"

#include <cstring>

namespace perftk::cs_etm {
namespace {

constexpr size_t kFrameSize = 16;
constexpr uint8_t kNoId = 0xff;

bool IsFrameSync(const uint8_t* p) {
  return p[0] == 0xff && p[1] == 0xff && p[2] == 0xff && p[3] == 0x7f;
}

// Frame syncs from `at`: how many bytes they take.
size_t SyncBytesAt(std::span<const uint8_t> block, size_t at) {
  size_t n = 0;
  while (at + n + 4 <= block.size() && IsFrameSync(block.data() + at + n)) n += 4;
  return n;
}

}  // namespace

bool CanDemux(std::span<const uint8_t> block) {
  if (block.size() % kFrameSize != 0) return false;
  size_t at = 0;
  while (at < block.size()) {
    at += SyncBytesAt(block, at);
    // After an odd number of syncs, too few bytes for a frame: OpenCSD
    // would read one past the block.
    if (at < block.size() && block.size() - at < kFrameSize) return false;
    if (at < block.size()) at += kFrameSize;
  }
  return true;
}

bool Demux(std::span<const uint8_t> block, FrameDemuxSink& sink) {
  if (!CanDemux(block)) return false;
  DemuxWholeFrames(block, sink);
  return true;
}

void DemuxWholeFrames(std::span<const uint8_t> block, FrameDemuxSink& sink) {
  uint8_t id = kNoId;
  size_t at = 0;
  uint8_t data[kFrameSize];
  while (at < block.size()) {
    const size_t syncs = SyncBytesAt(block, at);
    if (syncs > 0 && syncs % kFrameSize == 0) {
      sink.Reset(at);
      id = kNoId;
    }
    at += syncs;
    if (block.size() - at < kFrameSize) break;  // the end, or a frame cut short
    const uint8_t* frame = block.data() + at;
    const uint64_t frame_index = at;
    const uint8_t flags = frame[15];
    // The current run: its id, its first index, its bytes in `data`.
    uint8_t run_id = id;
    uint64_t run_index = frame_index;
    size_t size = 0;
    auto flush = [&] {
      if (size > 0 && run_id != kNoId) sink.Run(FrameRun{run_id, run_index, {data, size}});
    };
    for (int i = 0; i < 14; i += 2) {
      const bool flag = (flags >> (i / 2)) & 1;
      bool second_byte_done = false;
      if (frame[i] & 1) {
        const uint8_t next = (frame[i] >> 1) & 0x7f;
        if (next != id) {
          // The odd byte may still belong to the old id.
          if (flag) {
            data[size++] = frame[i + 1];
            second_byte_done = true;
          }
          id = next;
          if (size > 0) {
            flush();
            size = 0;
            run_index = frame_index + i;
          }
          run_id = id;
        }
      } else {
        data[size++] = static_cast<uint8_t>(frame[i] | (flag ? 1 : 0));
      }
      if (!second_byte_done) data[size++] = frame[i + 1];
    }
    if (frame[14] & 1) {
      id = (frame[14] >> 1) & 0x7f;  // no data follows in this frame
    } else {
      data[size++] = static_cast<uint8_t>(frame[14] | ((flags & 0x80) ? 1 : 0));
    }
    flush();
    at += kFrameSize;
  }
}

}  // namespace perftk::cs_etm
